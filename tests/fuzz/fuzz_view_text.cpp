// fuzz_view_text.cpp: the view strings (compute/number_text.h) and the navigation that does
// arithmetic on them (render/view_math.h). Input: "RE,IM,ZOOM" then bytes that drive moves.
// Checks: parse_decimal agrees with parse_finite_double; a centre the grammar accepts survives
// format_decimal and reparses to the same number; a valid view stays valid after any pan, zoom,
// box or centring (no exception, no UB: UBSan aborts in this build).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "compute/system/number_text.h"
#include "compute/fractal/view/view.h"
#include "render/frame/view_math.h"

namespace {

void check_number(const std::string& text) {
    ms::DecimalNumber d;
    const bool grammar = ms::parse_decimal(text, &d).empty();
    double value = 0.0;
    const bool finite = ms::parse_finite_double(text, &value).empty();
    if (finite && !grammar) std::abort();
    if (!grammar) return;
    ms::DecimalNumber again;
    if (!ms::parse_decimal(ms::format_decimal(d), &again).empty()) std::abort();
    if (again.negative != d.negative || again.digits != d.digits || again.exponent != d.exponent) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const size_t c1 = text.find(','), c2 = c1 == std::string::npos ? c1 : text.find(',', c1 + 1);
    if (c2 == std::string::npos) {
        check_number(text);
        return 0;
    }
    const size_t end = text.find('\n', c2);
    ms::View view;
    view.width = 64;
    view.height = 36;
    view.center_re = text.substr(0, c1);
    view.center_im = text.substr(c1 + 1, c2 - c1 - 1);
    const std::string zoom_text = text.substr(c2 + 1, end == std::string::npos ? end : end - c2 - 1);
    check_number(view.center_re);
    check_number(view.center_im);
    check_number(zoom_text);
    double zoom = 0.0;
    if (!ms::parse_finite_double(zoom_text, &zoom).empty()) return 0;
    view.zoom = zoom;
    if (!ms::validate_double_view(view).empty()) return 0;  // the window's navigation is in double
    // Up to 8 moves, each from two input bytes. A move costs time linear in the centre's digits,
    // and a centre such as 1e-9999 keeps 10,000 of them once it has moved (no digit is lost):
    // 32 moves of such a centre can pass the fuzzer's 1 s per input under ASan and the fuzzer's
    // coverage on a loaded machine, so the harness keeps each input to 8.
    const std::string moves = end == std::string::npos ? std::string() : text.substr(end + 1);
    for (size_t i = 0; i + 1 < moves.size() && i < 16; i += 2) {
        const double a = (uint8_t(moves[i]) - 128) * 0.5, b = (uint8_t(moves[i + 1]) - 128) * 0.5;
        switch (uint8_t(moves[i]) % 4) {
        case 0: view = ms::pan_view(view, {32 + a, 18 + b}, {32 - b, 18 + a}); break;
        case 1: view = ms::zoom_view_about(view, {32 + a, 18 + b}, std::exp2(b / 8)); break;
        case 2: view = ms::box_zoom_view(view, {32 + a, 18 + b}, {32 - a, 18 - b}); break;
        case 3: view = ms::center_view_on(view, {a, b}); break;
        }
        if (!ms::validate_view(view).empty()) std::abort();
        ms::frame_mapping(view, ms::reset_view(view));
    }
    return 0;
}
