// view_math.cpp: navigation maths and the decimal centre arithmetic (see view_math.h).
#include "render/frame/view_math.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

namespace ms {

// ---------------------------------------------------------------------------------------
// Decimal text arithmetic. A decimal is sign * digits * 10^exponent, digits without leading
// zeros. Only addition is needed: the centre moves by offsets computed in double, which are
// small next to the centre's own digits, and the sum must keep every digit of both.

namespace {

struct Decimal {
    bool negative = false;
    std::string digits;  // most significant first; "" means zero
    int exponent = 0;    // value = digits * 10^exponent
};

Decimal parse_decimal(const std::string& text) {
    Decimal d;
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) d.negative = text[i++] == '-';
    bool seen_digit = false, seen_point = false;
    int fraction_digits = 0;
    for (; i < text.size(); ++i) {
        char ch = text[i];
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            seen_digit = true;
            if (!(d.digits.empty() && ch == '0')) d.digits += ch;
            if (seen_point) ++fraction_digits;
        } else if (ch == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    int exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        size_t start = i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (i == text.size()) throw std::invalid_argument("'" + text + "' is not a decimal number");
        for (; i < text.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(text[i]))) break;
            if (i - start > 6) throw std::invalid_argument("'" + text + "' has an absurd exponent");
        }
        exponent = std::atoi(text.c_str() + start);
    }
    if (!seen_digit || i != text.size()) throw std::invalid_argument("'" + text + "' is not a decimal number");
    d.exponent = exponent - fraction_digits;
    if (d.digits.empty()) d.negative = false;
    return d;
}

// Magnitudes as digit strings aligned to the same exponent: compare and add/subtract.
std::string pad_to_exponent(const Decimal& d, int exponent) {
    return d.digits + std::string(size_t(d.exponent - exponent), '0');
}

int compare_magnitudes(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

std::string add_magnitudes(const std::string& a, const std::string& b) {
    std::string out;
    int carry = 0;
    for (size_t k = 0; k < std::max(a.size(), b.size()) || carry; ++k) {
        int s = carry;
        if (k < a.size()) s += a[a.size() - 1 - k] - '0';
        if (k < b.size()) s += b[b.size() - 1 - k] - '0';
        out += char('0' + s % 10);
        carry = s / 10;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string subtract_magnitudes(const std::string& larger, const std::string& smaller) {
    std::string out;
    int borrow = 0;
    for (size_t k = 0; k < larger.size(); ++k) {
        int s = (larger[larger.size() - 1 - k] - '0') - borrow;
        if (k < smaller.size()) s -= smaller[smaller.size() - 1 - k] - '0';
        borrow = s < 0;
        out += char('0' + (s + 10) % 10);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

Decimal add_decimals(const Decimal& a, const Decimal& b) {
    if (a.digits.empty()) return b;
    if (b.digits.empty()) return a;
    int exponent = std::min(a.exponent, b.exponent);
    std::string ma = pad_to_exponent(a, exponent), mb = pad_to_exponent(b, exponent);
    Decimal sum;
    sum.exponent = exponent;
    if (a.negative == b.negative) {
        sum.digits = add_magnitudes(ma, mb);
        sum.negative = a.negative;
    } else {
        int c = compare_magnitudes(ma, mb);
        if (c == 0) return Decimal{};
        sum.digits = c > 0 ? subtract_magnitudes(ma, mb) : subtract_magnitudes(mb, ma);
        sum.negative = c > 0 ? a.negative : b.negative;
    }
    sum.digits.erase(0, std::min(sum.digits.find_first_not_of('0'), sum.digits.size()));
    if (sum.digits.empty()) return Decimal{};
    return sum;
}

// Plain fixed-point text: "-0.0125", "3", "0"; no exponent, no trailing fraction zeros.
std::string format_decimal(const Decimal& d) {
    if (d.digits.empty()) return "0";
    std::string digits = d.digits;
    int exponent = d.exponent;
    while (exponent < 0 && digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
        ++exponent;
    }
    std::string out = d.negative ? "-" : "";
    if (exponent >= 0) return out + digits + std::string(size_t(exponent), '0');
    size_t fraction = size_t(-exponent);
    if (digits.size() <= fraction) return out + "0." + std::string(fraction - digits.size(), '0') + digits;
    return out + digits.substr(0, digits.size() - fraction) + "." + digits.substr(digits.size() - fraction);
}

// a - b in double, computed in decimal first so nearby centres with many digits subtract
// exactly before the one rounding to double.
double decimal_difference(const std::string& a, const std::string& b) {
    Decimal nb = parse_decimal(b);
    if (!nb.digits.empty()) nb.negative = !nb.negative;
    return std::strtod(format_decimal(add_decimals(parse_decimal(a), nb)).c_str(), nullptr);
}

}  // namespace

std::string add_to_decimal(const std::string& text, double delta, int fraction_digits) {
    if (!std::isfinite(delta)) throw std::invalid_argument("the centre cannot move by a non-finite amount");
    fraction_digits = std::clamp(fraction_digits, 0, 1000);
    // glibc prints the exact binary value correctly rounded, so this is delta rounded to
    // fraction_digits decimals, not an approximation of one.
    char delta_text[1400];  // %.1000f of a |delta| < 1e300... fits; larger deltas are absurd
    if (std::fabs(delta) >= 1e300) throw std::invalid_argument("the centre cannot move that far");
    std::snprintf(delta_text, sizeof delta_text, "%.*f", fraction_digits, delta);
    return format_decimal(add_decimals(parse_decimal(text), parse_decimal(delta_text)));
}

int center_fraction_digits(const View& view) {
    double step = pixel_step(view);
    return std::max(0, int(std::ceil(-std::log10(step))) + 4);
}

// ---------------------------------------------------------------------------------------
// Geometry (compute/fractal/view.h: c = centre + ((px - W/2) * step, -(py - H/2) * step)).

glm::dvec2 pixel_to_plane_offset(const View& view, glm::dvec2 pixel) {
    double step = pixel_step(view);
    return {(pixel.x - 0.5 * view.width) * step, -(pixel.y - 0.5 * view.height) * step};
}

glm::dvec2 plane_offset_to_pixel(const View& view, glm::dvec2 offset) {
    double step = pixel_step(view);
    return {offset.x / step + 0.5 * view.width, -offset.y / step + 0.5 * view.height};
}

View move_center(const View& view, glm::dvec2 offset) {
    View moved = view;
    int digits = center_fraction_digits(view);
    moved.center_re = add_to_decimal(view.center_re, offset.x, digits);
    moved.center_im = add_to_decimal(view.center_im, offset.y, digits);
    return moved;
}

View pan_view(const View& view, glm::dvec2 grab_pixel, glm::dvec2 cursor_pixel) {
    return move_center(view, pixel_to_plane_offset(view, grab_pixel) - pixel_to_plane_offset(view, cursor_pixel));
}

View zoom_view_about(const View& view, glm::dvec2 pixel, double factor) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return view;
    double zoom = std::clamp(view.zoom * factor, kMinZoom, kMaxZoom);
    factor = zoom / view.zoom;
    // The point p = centre + d must stay at offset d / factor from the new centre.
    glm::dvec2 d = pixel_to_plane_offset(view, pixel);
    View zoomed = view;
    zoomed.zoom = zoom;
    // Digits for the finer of the two steps: the new view's when zooming in.
    int digits = std::max(center_fraction_digits(view), center_fraction_digits(zoomed));
    zoomed.center_re = add_to_decimal(view.center_re, d.x * (1.0 - 1.0 / factor), digits);
    zoomed.center_im = add_to_decimal(view.center_im, d.y * (1.0 - 1.0 / factor), digits);
    return zoomed;
}

View box_zoom_view(const View& view, glm::dvec2 corner_a, glm::dvec2 corner_b) {
    glm::dvec2 size = glm::abs(corner_b - corner_a);
    if (size.x < kMinBoxPixels || size.y < kMinBoxPixels) return view;
    double factor = std::min(view.width / size.x, view.height / size.y);
    View centred = center_view_on(view, 0.5 * (corner_a + corner_b));
    return zoom_view_about(centred, {0.5 * view.width, 0.5 * view.height}, factor);
}

View center_view_on(const View& view, glm::dvec2 pixel) {
    return move_center(view, pixel_to_plane_offset(view, pixel));
}

View pan_view_by_fraction(const View& view, glm::dvec2 fraction) {
    glm::dvec2 centre{0.5 * view.width, 0.5 * view.height};
    return center_view_on(view, centre + fraction * glm::dvec2(view.width, view.height));
}

View reset_view(const View& view) {
    View home;
    View reset = view;
    reset.center_re = home.center_re;
    reset.center_im = home.center_im;
    reset.zoom = home.zoom;
    return reset;
}

int auto_iterations(double zoom) {
    double decades = std::max(0.0, std::log10(zoom));
    return int(std::lround((1000.0 + 600.0 * decades) / 100.0)) * 100;
}

bool same_place(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom &&
           a.max_iterations == b.max_iterations && a.palette == b.palette &&
           a.palette_offset == b.palette_offset && a.palette_density == b.palette_density;
}

// ---------------------------------------------------------------------------------------
// History.

void history_record(ViewHistory& history, const View& view) {
    if (!history.views.empty()) {
        if (same_place(history.views[history.current], view)) return;
        history.views.resize(history.current + 1);  // a new branch drops the forward views
    }
    history.views.push_back(view);
    if (history.views.size() > std::max<std::size_t>(history.max_views, 1))
        history.views.erase(history.views.begin());
    history.current = history.views.size() - 1;
}

bool history_can_back(const ViewHistory& history, const View& shown) {
    if (history.views.empty()) return false;
    return history.current > 0 || !same_place(history.views[history.current], shown);
}

bool history_can_forward(const ViewHistory& history) {
    return !history.views.empty() && history.current + 1 < history.views.size();
}

namespace {
void restore_place(const View& from_history, View* view) {
    int width = view->width, height = view->height;
    *view = from_history;
    view->width = width;
    view->height = height;
}
}  // namespace

bool history_back(ViewHistory& history, View* view) {
    if (!history_can_back(history, *view)) return false;
    history_record(history, *view);  // an unrecorded view on screen becomes the forward step
    if (history.current == 0) return false;
    --history.current;
    restore_place(history.views[history.current], view);
    return true;
}

bool history_forward(ViewHistory& history, View* view) {
    if (!history_can_forward(history)) return false;
    ++history.current;
    restore_place(history.views[history.current], view);
    return true;
}

// ---------------------------------------------------------------------------------------

FrameMapping frame_mapping(const View& shown_view, const View& frame_view) {
    double step_shown = pixel_step(shown_view), step_frame = pixel_step(frame_view);
    glm::dvec2 centre_shift{decimal_difference(shown_view.center_re, frame_view.center_re),
                            decimal_difference(shown_view.center_im, frame_view.center_im)};
    FrameMapping m;
    m.scale = step_shown / step_frame;
    m.offset.x = centre_shift.x / step_frame - 0.5 * shown_view.width * m.scale + 0.5 * frame_view.width;
    m.offset.y = -centre_shift.y / step_frame - 0.5 * shown_view.height * m.scale + 0.5 * frame_view.height;
    return m;
}

}  // namespace ms
