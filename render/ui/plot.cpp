// plot.cpp: line plots with linear or log axes drawn with ImDrawList (see plot.h). The first
// half is the maths, testable without ImGui; the second half draws.
#include "render/ui/plot.h"

#include <imgui_internal.h>  // ImRect

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <limits>
#include <tuple>

namespace ms {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// log10 of exact powers of ten is exact in glibc, but sums and products of them may not be:
// a tolerance keeps 1e6 from counting as "just above 10^6".
constexpr double kLogEpsilon = 1e-9;

double to_axis_space(const PlotAxis& axis, double v) {
    if (!axis.log) return v;
    return v > 0.0 ? std::log10(v) : kNaN;
}

double from_axis_space(const PlotAxis& axis, double t) { return axis.log ? std::pow(10.0, t) : t; }

std::string format_with(const PlotAxis& axis, double v) {
    return axis.format ? axis.format(v) : plot_format_general(v);
}

bool usable(const PlotAxis& axis, double v) { return std::isfinite(v) && (!axis.log || v > 0.0); }

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
    if (!(raw > 0.0) || !std::isfinite(raw)) return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * magnitude >= raw * (1.0 - 1e-9)) return m * magnitude;
    return 10.0 * magnitude;
}

// The largest 1, 2 or 5 times a power of ten at most v (v > 0), and the smallest at least v.
double round_down_125(double v) {
    const double p = std::pow(10.0, std::floor(std::log10(v) + kLogEpsilon));
    for (double m : {5.0, 2.0, 1.0})
        if (m * p <= v * (1.0 + kLogEpsilon)) return m * p;
    return p;
}
double round_up_125(double v) {
    const double p = std::pow(10.0, std::floor(std::log10(v) - kLogEpsilon));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= v * (1.0 - kLogEpsilon)) return m * p;
    return 10.0 * p;
}

}  // namespace

// ---- Maths ----------------------------------------------------------------------------------------

double plot_axis_fraction(const PlotAxis& axis, double v) {
    const double lo = to_axis_space(axis, axis.min), hi = to_axis_space(axis, axis.max);
    const double t = to_axis_space(axis, v);
    if (!std::isfinite(t) || !std::isfinite(lo) || !std::isfinite(hi)) return kNaN;
    if (hi == lo) return 0.5;
    return (t - lo) / (hi - lo);
}

double plot_axis_value(const PlotAxis& axis, double fraction) {
    const double lo = to_axis_space(axis, axis.min), hi = to_axis_space(axis, axis.max);
    return from_axis_space(axis, lo + fraction * (hi - lo));
}

ImVec2 plot_to_screen(const PlotFrame& f, PlotPoint p) {
    const double fx = plot_axis_fraction(f.x, p.x), fy = plot_axis_fraction(f.y, p.y);
    return ImVec2(float(f.min.x + fx * (f.max.x - f.min.x)), float(f.max.y - fy * (f.max.y - f.min.y)));
}

PlotPoint plot_from_screen(const PlotFrame& f, ImVec2 pixel) {
    const double fx = (pixel.x - f.min.x) / double(f.max.x - f.min.x);
    const double fy = (f.max.y - pixel.y) / double(f.max.y - f.min.y);
    return {plot_axis_value(f.x, fx), plot_axis_value(f.y, fy)};
}

std::vector<PlotTick> plot_ticks(const PlotAxis& axis, int max_labels) {
    std::vector<PlotTick> ticks;
    max_labels = std::max(2, max_labels);
    const double lo = std::min(axis.min, axis.max), hi = std::max(axis.min, axis.max);
    if (axis.log) {
        if (!(lo > 0.0) || !std::isfinite(hi)) return ticks;
        const double l0 = std::log10(lo), l1 = std::log10(hi);
        const int first = int(std::ceil(l0 - kLogEpsilon)), last = int(std::floor(l1 + kLogEpsilon));
        const int decades = last - first + 1;
        const int label_every = std::max(1, (decades + max_labels - 1) / max_labels);
        const bool minors = l1 - l0 <= 6.0 + kLogEpsilon;
        // Too narrow for two decades to show: label the 1, 2, 5 ticks instead.
        const bool label_125 = decades < 2;
        for (int k = first - 1; k <= last; ++k) {
            for (int m = 1; m <= 9; ++m) {
                const double v = m * std::pow(10.0, k);
                const double lv = std::log10(v);
                if (lv < l0 - kLogEpsilon || lv > l1 + kLogEpsilon) continue;
                PlotTick t;
                t.value = v;
                if (m == 1) {
                    // Labelled decades are counted from the first, so 10^first always has a label.
                    t.major = (k - first) % label_every == 0;
                } else {
                    if (!minors) continue;
                    t.major = label_125 && (m == 2 || m == 5);
                }
                if (t.major) t.label = format_with(axis, v);
                ticks.push_back(t);
            }
        }
        return ticks;
    }
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) return ticks;
    const double step = nice_step((hi - lo) / max_labels);
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1.0) {
        double v = k * step;
        if (std::abs(v) < step * 1e-9) v = 0.0;  // not -1.3e-17
        ticks.push_back({v, true, format_with(axis, v)});
    }
    return ticks;
}

void plot_fit_axes(const std::vector<PlotSeries>& series, PlotAxis* x, PlotAxis* y) {
    for (PlotAxis* axis : {x, y}) {
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (const PlotSeries& s : series) {
            if (s.hidden) continue;
            for (const PlotPoint& p : s.points) {
                if (!usable(*x, p.x) || !usable(*y, p.y)) continue;
                const double v = axis == x ? p.x : p.y;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        if (lo > hi) {  // nothing to show
            axis->min = axis->log ? 1.0 : 0.0;
            axis->max = axis->log ? 10.0 : 1.0;
            continue;
        }
        if (axis->log) {
            axis->min = round_down_125(lo);
            axis->max = round_up_125(hi);
            // At least one power of ten inside, so the axis has a labelled tick.
            if (std::floor(std::log10(axis->max) + kLogEpsilon) < std::ceil(std::log10(axis->min) - kLogEpsilon)) {
                axis->min = std::pow(10.0, std::floor(std::log10(axis->min) + kLogEpsilon));
                axis->max = std::max(axis->max, 10.0 * axis->min);
            }
            if (axis->max <= axis->min) axis->max = 10.0 * axis->min;
            continue;
        }
        if (hi == lo) {
            const double pad = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
            lo -= pad;
            hi += pad;
        }
        if (lo > 0.0 && lo <= 0.5 * (hi - lo)) lo = 0.0;
        if (hi < 0.0 && -hi <= 0.5 * (hi - lo)) hi = 0.0;
        const double step = nice_step((hi - lo) / 8);
        axis->min = std::floor(lo / step + 1e-9) * step;
        axis->max = std::ceil(hi / step - 1e-9) * step;
    }
}

void plot_include(PlotAxis* axis, double v) {
    if (!usable(*axis, v)) return;
    if (axis->log) {
        if (v < axis->min) axis->min = round_down_125(v);
        if (v > axis->max) axis->max = round_up_125(v);
        return;
    }
    if (v < axis->min) axis->min = v;
    if (v > axis->max) axis->max = v;
}

PlotNearest plot_nearest_point(const PlotFrame& frame, const std::vector<PlotSeries>& series, ImVec2 pixel,
                               double max_distance_px) {
    PlotNearest best;
    double best_d2 = max_distance_px * max_distance_px;
    for (int s = 0; s < int(series.size()); ++s) {
        if (series[s].hidden) continue;
        for (int i = 0; i < int(series[s].points.size()); ++i) {
            const PlotPoint p = series[s].points[i];
            if (!usable(frame.x, p.x) || !usable(frame.y, p.y)) continue;
            const ImVec2 q = plot_to_screen(frame, p);
            const double dx = q.x - pixel.x, dy = q.y - pixel.y, d2 = dx * dx + dy * dy;
            if (d2 <= best_d2) {
                best_d2 = d2;
                best = {s, i, std::sqrt(d2)};
            }
        }
    }
    return best;
}

double plot_series_value_at(const PlotSeries& series, const PlotAxis& x, const PlotAxis& y, double at_x) {
    const double t = to_axis_space(x, at_x);
    for (size_t i = 1; i < series.points.size(); ++i) {
        const PlotPoint a = series.points[i - 1], b = series.points[i];
        const double ta = to_axis_space(x, a.x), tb = to_axis_space(x, b.x);
        const double ya = to_axis_space(y, a.y), yb = to_axis_space(y, b.y);
        if (!std::isfinite(ta) || !std::isfinite(tb) || !std::isfinite(ya) || !std::isfinite(yb)) continue;
        if (t < std::min(ta, tb) - kLogEpsilon || t > std::max(ta, tb) + kLogEpsilon) continue;
        const double f = tb == ta ? 0.0 : (t - ta) / (tb - ta);
        return from_axis_space(y, ya + f * (yb - ya));
    }
    if (series.points.size() == 1 && std::abs(to_axis_space(x, series.points[0].x) - t) <= kLogEpsilon)
        return series.points[0].y;
    return kNaN;
}

std::string plot_format_general(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string plot_format_si(double v) {
    struct Unit {
        double scale;
        const char* suffix;
    };
    char buf[32];
    for (Unit u : {Unit{1e12, "T"}, Unit{1e9, "G"}, Unit{1e6, "M"}, Unit{1e3, "K"}}) {
        if (std::abs(v) >= u.scale * 0.9995) {
            std::snprintf(buf, sizeof buf, "%.3g%s", v / u.scale, u.suffix);
            return buf;
        }
    }
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// ---- Drawing ------------------------------------------------------------------------------------

namespace {

constexpr float kMarkerRadius = 3.5f;
constexpr double kHoverDistancePx = 14.0;

ImU32 with_alpha(ImU32 colour, int alpha) { return (colour & ~IM_COL32_A_MASK) | (ImU32(alpha) << IM_COL32_A_SHIFT); }

}  // namespace

void draw_plot_marker(ImDrawList* dl, ImVec2 c, PlotMarker marker, ImU32 colour, float r) {
    switch (marker) {
    case PlotMarker::None: break;
    case PlotMarker::Circle: dl->AddCircleFilled(c, r, colour, 12); break;
    case PlotMarker::Square: dl->AddRectFilled(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), colour); break;
    case PlotMarker::Diamond:
        r *= 1.3f;
        dl->AddQuadFilled(ImVec2(c.x, c.y - r), ImVec2(c.x + r, c.y), ImVec2(c.x, c.y + r), ImVec2(c.x - r, c.y),
                          colour);
        break;
    case PlotMarker::TriangleUp:
        r *= 1.3f;
        dl->AddTriangleFilled(ImVec2(c.x, c.y - r), ImVec2(c.x + r, c.y + 0.8f * r), ImVec2(c.x - r, c.y + 0.8f * r),
                              colour);
        break;
    case PlotMarker::TriangleDown:
        r *= 1.3f;
        dl->AddTriangleFilled(ImVec2(c.x - r, c.y - 0.8f * r), ImVec2(c.x + r, c.y - 0.8f * r), ImVec2(c.x, c.y + r),
                              colour);
        break;
    case PlotMarker::Cross:
        dl->AddLine(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), colour, 2.0f);
        dl->AddLine(ImVec2(c.x - r, c.y + r), ImVec2(c.x + r, c.y - r), colour, 2.0f);
        break;
    case PlotMarker::Plus:
        r *= 1.2f;
        dl->AddLine(ImVec2(c.x - r, c.y), ImVec2(c.x + r, c.y), colour, 2.0f);
        dl->AddLine(ImVec2(c.x, c.y - r), ImVec2(c.x, c.y + r), colour, 2.0f);
        break;
    }
}

namespace {

// A line in dashes of 6 pixels with gaps of 4.
void draw_dashed(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness) {
    const float dx = b.x - a.x, dy = b.y - a.y, length = std::sqrt(dx * dx + dy * dy);
    if (length < 0.5f) return;
    const float ux = dx / length, uy = dy / length;
    for (float s = 0.0f; s < length; s += 10.0f) {
        const float e = std::min(length, s + 6.0f);
        dl->AddLine(ImVec2(a.x + ux * s, a.y + uy * s), ImVec2(a.x + ux * e, a.y + uy * e), colour, thickness);
    }
}

void draw_series(ImDrawList* dl, const PlotFrame& f, const PlotSeries& s) {
    std::vector<ImVec2> run;  // consecutive drawable points
    auto flush = [&] {
        if (run.size() >= 2) {
            if (s.dashed)
                for (size_t i = 1; i < run.size(); ++i) draw_dashed(dl, run[i - 1], run[i], s.colour, 1.5f);
            else dl->AddPolyline(run.data(), int(run.size()), s.colour, ImDrawFlags_None, 2.0f);
        }
        run.clear();
    };
    for (const PlotPoint& p : s.points) {
        if (!usable(f.x, p.x) || !usable(f.y, p.y)) {
            flush();  // a gap in the data is a gap in the line
            continue;
        }
        run.push_back(plot_to_screen(f, p));
    }
    flush();
    for (const PlotPoint& p : s.points)
        if (usable(f.x, p.x) && usable(f.y, p.y))
            draw_plot_marker(dl, plot_to_screen(f, p), s.marker, s.colour, kMarkerRadius);
}

}  // namespace

PlotResult draw_plot(const char* id, const PlotAxis& x, const PlotAxis& y, const std::vector<PlotSeries>& series,
                     const std::vector<PlotAnnotation>& annotations, ImVec2 size) {
    PlotResult result;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line_h = ImGui::GetTextLineHeight();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered();
    const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);

    // Margins: the widest y label on the left, the x labels and title below, the y title above.
    std::vector<PlotTick> y_ticks = plot_ticks(y, std::max(2, int(size.y / (2.5f * line_h))));
    float y_label_w = 0.0f;
    for (const PlotTick& t : y_ticks)
        if (t.major) y_label_w = std::max(y_label_w, ImGui::CalcTextSize(t.label.c_str()).x);
    PlotFrame f;
    f.x = x;
    f.y = y;
    f.min = ImVec2(origin.x + y_label_w + 8.0f, origin.y + (y.title.empty() ? 0.5f : 1.3f) * line_h);
    f.max = ImVec2(origin.x + size.x - 0.5f * ImGui::CalcTextSize("000").x,
                   origin.y + size.y - (x.title.empty() ? 1.4f : 2.5f) * line_h);
    if (f.max.x - f.min.x < 20.0f || f.max.y - f.min.y < 20.0f) return result;  // too small to draw
    std::vector<PlotTick> x_ticks = plot_ticks(x, std::max(2, int((f.max.x - f.min.x) / (3.0f * line_h))));

    const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->AddRectFilled(f.min, f.max, ImGui::GetColorU32(ImGuiCol_FrameBg));
    // Grid and tick labels. Labels that would run into the previous one are skipped.
    float last_label_right = -FLT_MAX;
    for (const PlotTick& t : x_ticks) {
        const float px = plot_to_screen(f, {t.value, y.min > 0 ? y.min : 1.0}).x;
        dl->AddLine(ImVec2(px, f.min.y), ImVec2(px, f.max.y), IM_COL32(255, 255, 255, t.major ? 50 : 18));
        dl->AddLine(ImVec2(px, f.max.y), ImVec2(px, f.max.y + (t.major ? 5.0f : 3.0f)), dim_text);
        if (t.label.empty()) continue;
        const float w = ImGui::CalcTextSize(t.label.c_str()).x;
        const float left = std::clamp(px - 0.5f * w, origin.x, origin.x + size.x - w);
        if (left < last_label_right + 6.0f) continue;
        dl->AddText(ImVec2(left, f.max.y + 5.0f), text_colour, t.label.c_str());
        last_label_right = left + w;
    }
    for (const PlotTick& t : y_ticks) {
        const float py = plot_to_screen(f, {x.min > 0 ? x.min : 1.0, t.value}).y;
        dl->AddLine(ImVec2(f.min.x, py), ImVec2(f.max.x, py), IM_COL32(255, 255, 255, t.major ? 50 : 18));
        dl->AddLine(ImVec2(f.min.x - (t.major ? 5.0f : 3.0f), py), ImVec2(f.min.x, py), dim_text);
        if (t.label.empty()) continue;
        const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
        dl->AddText(ImVec2(f.min.x - 7.0f - ts.x, std::clamp(py - 0.5f * ts.y, origin.y, f.max.y)), text_colour,
                    t.label.c_str());
    }
    dl->AddRect(f.min, f.max, ImGui::GetColorU32(ImGuiCol_Border));
    if (!x.title.empty()) {
        const float w = ImGui::CalcTextSize(x.title.c_str()).x;
        dl->AddText(ImVec2(0.5f * (f.min.x + f.max.x - w), f.max.y + 5.0f + 1.1f * line_h), dim_text, x.title.c_str());
    }
    if (!y.title.empty()) dl->AddText(ImVec2(origin.x, origin.y), dim_text, y.title.c_str());

    // Data, clipped to the data area widened by a marker, so points on its edge show whole.
    const float grow = kMarkerRadius + 5.0f;
    dl->PushClipRect(ImVec2(f.min.x - grow, f.min.y - grow), ImVec2(f.max.x + grow, f.max.y + grow), true);
    for (const PlotSeries& s : series)
        if (!s.hidden) draw_series(dl, f, s);
    // Annotation labels on a dark box, each moved to the first of a few places around its mark
    // that no earlier label covers (two crossovers close together stay readable).
    std::vector<ImRect> placed;
    auto place_label = [&](const std::string& text, ImU32 colour, std::initializer_list<ImVec2> candidates) {
        if (text.empty()) return;
        const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
        ImRect best;
        bool found = false;
        for (ImVec2 c : candidates) {
            const ImVec2 at(std::clamp(c.x, f.min.x + 2.0f, std::max(f.min.x + 2.0f, f.max.x - ts.x - 2.0f)),
                            std::clamp(c.y, f.min.y + 2.0f, std::max(f.min.y + 2.0f, f.max.y - ts.y - 2.0f)));
            const ImRect r(ImVec2(at.x - 2.0f, at.y), ImVec2(at.x + ts.x + 2.0f, at.y + ts.y));
            if (!found) best = r;
            found = true;
            if (std::none_of(placed.begin(), placed.end(), [&](const ImRect& p) { return p.Overlaps(r); })) {
                best = r;
                break;
            }
        }
        placed.push_back(best);
        dl->AddRectFilled(best.Min, best.Max, IM_COL32(0, 0, 0, 170), 2.0f);
        dl->AddText(ImVec2(best.Min.x + 2.0f, best.Min.y), colour, text.c_str());
    };
    for (const PlotAnnotation& a : annotations) {
        const bool has_x = usable(x, a.x), has_y = usable(y, a.y);
        const ImVec2 ts = ImGui::CalcTextSize(a.text.c_str());
        if (has_x && has_y) {
            const ImVec2 c = plot_to_screen(f, {a.x, a.y});
            dl->AddCircle(c, 7.0f, IM_COL32(0, 0, 0, 160), 16, 4.0f);
            dl->AddCircle(c, 7.0f, a.colour, 16, 2.0f);
            place_label(
                a.text, a.colour,
                {ImVec2(c.x + 7.0f, c.y - 7.0f - ts.y), ImVec2(c.x + 7.0f, c.y + 7.0f),
                 ImVec2(c.x - 9.0f - ts.x, c.y - 7.0f - ts.y), ImVec2(c.x - 9.0f - ts.x, c.y + 7.0f),
                 ImVec2(c.x - 0.5f * ts.x, c.y - 9.0f - 2.0f * ts.y), ImVec2(c.x - 0.5f * ts.x, c.y + 9.0f + ts.y)});
        } else if (has_x) {
            const float px = plot_to_screen(f, {a.x, y.min > 0 ? y.min : 1.0}).x;
            draw_dashed(dl, ImVec2(px, f.min.y), ImVec2(px, f.max.y), a.colour, 1.0f);
            place_label(a.text, a.colour,
                        {ImVec2(px + 3.0f, f.min.y + 2.0f), ImVec2(px - ts.x - 5.0f, f.min.y + 2.0f)});
        } else if (has_y) {
            const float py = plot_to_screen(f, {x.min > 0 ? x.min : 1.0, a.y}).y;
            draw_dashed(dl, ImVec2(f.min.x, py), ImVec2(f.max.x, py), a.colour, 1.0f);
            place_label(a.text, a.colour,
                        {ImVec2(f.min.x + 4.0f, py - ts.y - 2.0f), ImVec2(f.min.x + 4.0f, py + 2.0f)});
        }
    }
    dl->PopClipRect();

    // The point nearest the mouse: highlighted, described in a tooltip, clickable.
    if (hovered) {
        result.hovered = plot_nearest_point(f, series, ImGui::GetIO().MousePos, kHoverDistancePx);
        if (result.hovered.series >= 0) {
            const PlotSeries& s = series[result.hovered.series];
            const PlotPoint p = s.points[result.hovered.point];
            const ImVec2 c = plot_to_screen(f, p);
            dl->AddCircle(c, kMarkerRadius + 4.0f, text_colour, 16, 2.0f);
            ImGui::BeginTooltip();
            ImGui::PushStyleColor(ImGuiCol_Text, s.colour);
            ImGui::TextUnformatted(s.label.c_str());
            ImGui::PopStyleColor();
            for (const auto& [axis, v, fallback] : {std::tuple{&x, p.x, "x"}, std::tuple{&y, p.y, "y"}}) {
                const std::string& name = axis->name.empty() ? axis->title : axis->name;
                ImGui::Text("%s: %s", name.empty() ? fallback : name.c_str(),
                            (axis->value_format ? axis->value_format(v) : format_with(*axis, v)).c_str());
            }
            ImGui::EndTooltip();
            result.clicked = clicked;
        }
    }
    return result;
}

bool draw_plot_legend(std::vector<PlotSeries>& series) {
    bool toggled = false;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float line_h = ImGui::GetTextLineHeight();
    const float swatch_w = 2.2f * line_h;
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < series.size(); ++i) {
        PlotSeries& s = series[i];
        const ImVec2 text_size = ImGui::CalcTextSize(s.label.c_str());
        const ImVec2 entry(swatch_w + style.ItemInnerSpacing.x + text_size.x, line_h);
        if (i > 0) {
            ImGui::SameLine(0.0f, 2.0f * style.ItemSpacing.x);
            if (ImGui::GetCursorScreenPos().x + entry.x > right_edge) ImGui::NewLine();
        }
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::PushID(int(i));
        if (ImGui::InvisibleButton("##legend", entry)) {
            s.hidden = !s.hidden;
            toggled = true;
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(s.hidden ? "Click to show this series" : "Click to hide this series");
        ImGui::PopID();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImU32 colour = s.hidden ? with_alpha(s.colour, 70) : s.colour;
        const float mid = at.y + 0.5f * line_h;
        if (s.dashed) draw_dashed(dl, ImVec2(at.x, mid), ImVec2(at.x + swatch_w, mid), colour, 1.5f);
        else dl->AddLine(ImVec2(at.x, mid), ImVec2(at.x + swatch_w, mid), colour, 2.0f);
        draw_plot_marker(dl, ImVec2(at.x + 0.5f * swatch_w, mid), s.marker, colour, kMarkerRadius);
        dl->AddText(ImVec2(at.x + swatch_w + style.ItemInnerSpacing.x, at.y),
                    ImGui::GetColorU32(s.hidden ? ImGuiCol_TextDisabled : ImGuiCol_Text), s.label.c_str());
    }
    return toggled;
}

}  // namespace ms
