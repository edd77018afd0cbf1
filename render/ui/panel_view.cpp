// panel_view.cpp: the View panel: centre as full-precision text (copy/paste), zoom,
// iterations (auto), palette, offset and density, navigation speeds and the Newton zoom's
// choices, backend, precision, history buttons.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "compute/fractal/view/kfr.h"
#include "render/ui/panels.h"

namespace ms {

namespace {

// The centre: two text fields, committed together when either loses focus after an edit (or
// on Enter); refreshed from the view whenever neither is being edited.
void draw_center(ViewPanelState& s) {
    if (!s.center_being_edited) {
        s.center_re_text = s.view.center_re;
        s.center_im_text = s.view.center_im;
    }
    ImGui::TextUnformatted("Centre");
    help_marker(
        "The exact decimal text of the centre: every digit is kept as you pan and zoom. "
        "Type or paste into a field and press Enter, or use Copy/Paste for both parts "
        "as \"RE, IM\". Copy location copies the whole place (centre, zoom, iterations) "
        "as a Kalles Fraktaler .kfr text; Paste takes that too.");
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool commit = false;
    ImGui::InputText("##re", &s.center_re_text);
    commit |= ImGui::IsItemDeactivatedAfterEdit();
    s.center_being_edited = ImGui::IsItemActive();
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputText("##im", &s.center_im_text);
    commit |= ImGui::IsItemDeactivatedAfterEdit();
    s.center_being_edited |= ImGui::IsItemActive();
    if (ImGui::Button("Copy")) ImGui::SetClipboardText((s.view.center_re + ", " + s.view.center_im).c_str());
    ImGui::SameLine();
    // The whole place, every digit, as a Kalles Fraktaler location (Re, Im, Zoom, Iterations).
    if (ImGui::Button("Copy location")) ImGui::SetClipboardText(format_kfr(deep_location(s.view)).c_str());
    ImGui::SameLine();
    if (ImGui::Button("Paste")) {
        const char* clip = ImGui::GetClipboardText();
        const std::string text = clip ? clip : "";
        std::string re, im;
        std::string problem = parse_center_text(text, &re, &im);
        DeepLocation location;
        if (problem.empty()) {
            s.center_re_text = re;
            s.center_im_text = im;
            commit = true;
        } else if (text.find("Re:") != std::string::npos && parse_kfr(text, &location).empty()) {
            // A location (Copy location, or a .kfr file's text): centre, zoom, iterations, the
            // formula and the Julia parameter.
            s.view.center_re = location.center_re;
            s.view.center_im = location.center_im;
            s.view.zoom = ViewZoom::from_deep(location.zoom);
            s.view.max_iterations = location.max_iterations;
            s.view.formula = location.formula;
            s.view.julia = location.julia;
            s.view.julia_re = location.julia_re;
            s.view.julia_im = location.julia_im;
            s.settings.auto_iterations = false;
            s.view_edited = s.settings_edited = true;
            s.center_error.clear();
        } else {
            s.center_error = "The clipboard holds no centre: " + problem;
        }
    }
    if (commit) {
        View edited = s.view;
        edited.center_re = s.center_re_text;
        edited.center_im = s.center_im_text;
        std::string problem = validate_view(edited);
        if (problem.empty()) {
            s.view = edited;
            s.view_edited = true;
            s.center_error.clear();
        } else {
            s.center_error = "Centre not changed: " + problem + ".";
        }
    }
    if (!s.center_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
        ImGui::TextWrapped("%s", s.center_error.c_str());
        ImGui::PopStyleColor();
    }
}

// The formula and the Julia switch. A new formula (or switching the Julia set on or off) opens
// on that picture's default frame; Back returns to where the view was. Switching the Julia set
// on takes c from the centre of the view: look at a point of the parameter plane, switch on,
// and see its Julia set.
void draw_formula(ViewPanelState& s) {
    auto open_frame = [&] {
        const FormulaFrame frame = formula_default_frame(s.view.formula, s.view.julia);
        s.view.center_re = frame.center_re;
        s.view.center_im = frame.center_im;
        s.view.zoom = frame.zoom;
        s.view_edited = true;
    };
    if (ImGui::BeginCombo("formula", formula_title(s.view.formula))) {
        for (Formula f : kAllFormulas) {
            if (ImGui::Selectable(formula_title(f), f == s.view.formula) && f != s.view.formula) {
                s.view.formula = f;
                open_frame();
            }
        }
        ImGui::EndCombo();
    }
    bool julia = s.view.julia;
    if (ImGui::Checkbox("Julia set", &julia)) {
        if (julia) {
            s.view.julia_re = s.view.center_re;
            s.view.julia_im = s.view.center_im;
        }
        s.view.julia = julia;
        open_frame();
    }
    help_marker(
        "On: the Julia set of the parameter c below (z starts at the pixel, c is fixed). Switching "
        "it on takes c from the centre of the view; Back returns to the parameter plane.");
    ImGui::SameLine();
    ImGui::Checkbox("preview", &s.julia_preview);
    help_marker(
        "A small picture of the Julia set of the point under the mouse, redrawn as the mouse moves. "
        "Click it to make it the main view.");
    if (!s.view.julia) return;
    if (!s.julia_being_edited) {
        s.julia_re_text = s.view.julia_re;
        s.julia_im_text = s.view.julia_im;
    }
    bool commit = false;
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputText("##julia_re", &s.julia_re_text);
    commit |= ImGui::IsItemDeactivatedAfterEdit();
    s.julia_being_edited = ImGui::IsItemActive();
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputText("##julia_im", &s.julia_im_text);
    commit |= ImGui::IsItemDeactivatedAfterEdit();
    s.julia_being_edited |= ImGui::IsItemActive();
    if (commit) {
        View edited = s.view;
        edited.julia_re = s.julia_re_text;
        edited.julia_im = s.julia_im_text;
        if (std::string problem = validate_view(edited); problem.empty()) {
            s.view = edited;
            s.view_edited = true;
            s.julia_error.clear();
        } else {
            s.julia_error = "Julia parameter not changed: " + problem + ".";
        }
    }
    if (!s.julia_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
        ImGui::TextWrapped("%s", s.julia_error.c_str());
        ImGui::PopStyleColor();
    }
}

void draw_colours(ViewPanelState& s) {
    int current = int(std::find(s.palettes.begin(), s.palettes.end(), s.view.palette) - s.palettes.begin());
    if (ImGui::BeginCombo("palette", s.view.palette.c_str())) {
        for (int i = 0; i < int(s.palettes.size()); ++i) {
            if (ImGui::Selectable(s.palettes[i].c_str(), i == current)) {
                s.view.palette = s.palettes[i];
                s.view_edited = true;
            }
        }
        ImGui::EndCombo();
    }
    float offset = float(s.view.palette_offset);
    if (ImGui::SliderFloat("offset", &offset, 0.0f, 1.0f, "%.3f")) {
        s.view.palette_offset = offset;
        s.view_edited = true;
    }
    float density = float(s.view.palette_density);
    if (ImGui::SliderFloat("density", &density, 0.05f, 20.0f, "%.3f", ImGuiSliderFlags_Logarithmic)) {
        s.view.palette_density = density;
        s.view_edited = true;
    }
    help_marker("Palette cycles per 100 iterations of the smooth count.");
}

// The colouring layers (compute/fractal/view/colouring.h): a base, the DE, slope and atom layers,
// the interior. Every change applies at once (a view edit).
void draw_colouring(ViewPanelState& s) {
    // Open at first where the view starts with layers (--colouring, a PNG), so they show.
    if (!colouring_is_plain(s.view.colouring)) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    if (!ImGui::CollapsingHeader("Colouring")) return;
    Colouring& c = s.view.colouring;
    const Colouring before = c;
    // Every formula and Julia set has the orbit features (stripe base, DE, period interior) on
    // the direct kernels. Past FP64 the deep path skips iterations (BLA): no stripes, no period
    // interior there; its distance estimate is every formula's and Julia set's.
    const bool every_iteration = !s.deep_path;
    const char* bases[] = {"smooth", "histogram", "stripe"};
    int base = int(c.base);
    if (ImGui::Combo("base", &base, bases, every_iteration ? 3 : 2)) c.base = ColourBase(base);
    if (s.deep_path) ImGui::TextDisabled("stripe and period interior: not past FP64 (BLA skips their iterations)");
    help_marker(
        "smooth: the palette along the smooth iteration count. histogram: along its rank among the "
        "frame's pixels, so the colours spread evenly at any depth. stripe: the stripe average of "
        "arg z along the orbit (Haerkoenen).");
    if (c.base == ColourBase::Stripe) ImGui::SliderInt("stripe density", &c.stripe_density, 1, kMaxStripeDensity);
    ImGui::Checkbox("distance estimation", &c.distance_estimation);
    help_marker("Darkens a band along the boundary by the exterior distance estimate, so filaments show at any zoom.");
    if (c.distance_estimation) {
        float band = float(c.de_band_px);
        if (ImGui::SliderFloat("band (px)", &band, 0.25f, 32.0f, "%.2f", ImGuiSliderFlags_Logarithmic))
            c.de_band_px = band;
    }
    ImGui::Checkbox("slopes", &c.slopes);
    help_marker("Lights the smooth count as a relief (Kalles Fraktaler's Slopes).");
    if (c.slopes) {
        float angle = float(c.slope_angle_deg), strength = float(c.slope_strength);
        if (ImGui::SliderFloat("light angle", &angle, -180.0f, 180.0f, "%.0f deg")) c.slope_angle_deg = angle;
        if (ImGui::SliderFloat("strength", &strength, 0.0f, 100.0f, "%.2f", ImGuiSliderFlags_Logarithmic))
            c.slope_strength = strength;
    }
    ImGui::Checkbox("atom domains", &c.atom_domains);
    help_marker(
        "Blends a hue per atom-domain period into every pixel, interior too: the period n of the orbit's "
        "smallest |z_n|. Each domain surrounds a component of that period, so the hues point at the minibrots.");
    if (c.atom_domains) {
        float atom_strength = float(c.atom_strength);
        if (ImGui::SliderFloat("atom strength", &atom_strength, 0.0f, 1.0f, "%.2f")) c.atom_strength = atom_strength;
    }
    const char* interiors[] = {"flat", "period"};
    int interior = int(c.interior);
    ImGui::BeginDisabled(!every_iteration);
    if (ImGui::Combo("interior", &interior, interiors, 2)) c.interior = InteriorColour(interior);
    ImGui::EndDisabled();
    help_marker("flat: the palette's interior colour. period: a colour per period of the settled orbit.");
    if (!(c == before)) s.view_edited = true;
}

// How fast the wheel and a held button zoom, and the Newton zoom's choices
// (render/frame/navigation.h's NavigationSettings).
void draw_navigation(ViewPanelState& s) {
    if (!ImGui::CollapsingHeader("Navigation")) return;
    NavigationSettings& n = s.settings.navigation;
    const NavigationSettings before = n;
    float notch = float(n.wheel_zoom_per_notch), rate = float(n.zoom_doublings_per_second);
    if (ImGui::SliderFloat("wheel zoom", &notch, 1.05f, 4.0f, "%.2fx a notch", ImGuiSliderFlags_Logarithmic))
        n.wheel_zoom_per_notch = std::clamp(double(notch), 1.01, 16.0);
    if (ImGui::SliderFloat("held zoom", &rate, 0.25f, 16.0f, "%.2f doublings/s", ImGuiSliderFlags_Logarithmic))
        n.zoom_doublings_per_second = std::clamp(double(rate), 0.05, 64.0);
    help_marker(
        "Hold the middle button (Shift: out) or Page Up / Page Down: the view zooms continuously "
        "about the cursor at this rate, however long a frame takes (XaoS's way).");
    ImGui::TextUnformatted("Newton zoom");
    help_marker(
        "M, J, N or a right click on the picture: look for the nucleus of a minibrot near the "
        "cursor (Newton's method in high precision, on a worker thread; Esc cancels) and fly "
        "there: to the minibrot (its size times the margin), to its embedded Julia set (this "
        "fraction of the way in log zoom from the view to the minibrot), or to the minibrot of "
        "the next higher period. Backspace flies back to where you were.");
    float radius = float(n.search_radius_pixels), margin = float(n.minibrot_margin);
    float fraction = float(n.julia_fraction), seconds = float(n.flight_seconds);
    if (ImGui::SliderFloat("search radius", &radius, 2.0f, 200.0f, "%.0f px", ImGuiSliderFlags_Logarithmic))
        n.search_radius_pixels = std::clamp(double(radius), 1.0, 1000.0);
    if (ImGui::SliderFloat("minibrot margin", &margin, 1.0f, 20.0f, "%.1fx", ImGuiSliderFlags_Logarithmic))
        n.minibrot_margin = std::clamp(double(margin), 0.5, 100.0);
    if (ImGui::SliderFloat("Julia fraction", &fraction, 0.05f, 0.95f, "%.2f"))
        n.julia_fraction = std::clamp(double(fraction), 0.0, 1.0);
    if (ImGui::SliderFloat("flight", &seconds, 0.0f, 5.0f, "%.1f s")) n.flight_seconds = std::max(0.0, double(seconds));
    ImGui::Checkbox("period under the cursor", &n.show_period);
    help_marker("While the mouse rests on the picture: the period and the nucleus of the minibrot nearest to it.");
    if (n.wheel_zoom_per_notch != before.wheel_zoom_per_notch ||
        n.zoom_doublings_per_second != before.zoom_doublings_per_second ||
        n.search_radius_pixels != before.search_radius_pixels || n.minibrot_margin != before.minibrot_margin ||
        n.julia_fraction != before.julia_fraction || n.flight_seconds != before.flight_seconds ||
        n.show_period != before.show_period)
        s.settings_edited = true;
}

void draw_backend(ViewPanelState& s) {
    ImGui::TextUnformatted("Backend");
    ImGui::SameLine();
    int backend = int(s.settings.backend);
    if (ImGui::RadioButton("CPU", &backend, int(Backend::Cpu))) s.settings_edited = true;
    ImGui::SameLine();
    ImGui::BeginDisabled(!s.cuda_unavailable.empty());
    if (ImGui::RadioButton("CUDA", &backend, int(Backend::Cuda))) s.settings_edited = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("(C)");
    s.settings.backend = Backend(backend);
    if (!s.cuda_unavailable.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(230, 190, 90, 255));
        ImGui::TextWrapped("CUDA unavailable: %s", s.cuda_unavailable.c_str());
        ImGui::PopStyleColor();
    }

    const char* names[] = {"auto", "fp32", "fp64", "deep-double", "deep-floatexp"};
    int precision = int(s.settings.precision);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    if (ImGui::Combo("precision", &precision, names, 5)) {
        s.settings.precision = Precision(precision);
        s.settings_edited = true;
    }
    ImGui::SameLine();
    if (s.deep_path) ImGui::TextUnformatted("in use: perturbation");
    else ImGui::Text("in use: %s", precision_name(s.precision_in_use));
    help_marker(
        "auto: FP32 while it resolves every pixel of the view, then FP64, then perturbation from a "
        "high-precision reference orbit (MPFR) with BLA: double deltas, then floatexp (an extended "
        "exponent) past 1e290. The status line shows the reference and BLA figures.");
    if (!fp64_resolves(s.view) && !s.deep_path) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
        ImGui::TextWrapped("%s", kBeyondFp64Message);
        ImGui::PopStyleColor();
    }
}

}  // namespace

std::string parse_center_text(const std::string& text, std::string* re, std::string* im) {
    std::string t = text;
    for (char& ch : t)
        if (ch == ',' || ch == ';' || ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
    size_t a = t.find_first_not_of(' ');
    if (a == std::string::npos) return "it is empty";
    size_t b = t.find(' ', a);
    size_t c = b == std::string::npos ? b : t.find_first_not_of(' ', b);
    if (c == std::string::npos) return "it needs two numbers, the real and the imaginary part";
    size_t d = t.find(' ', c);
    if (d != std::string::npos && t.find_first_not_of(' ', d) != std::string::npos)
        return "it has more than two numbers";
    View probe;
    probe.center_re = t.substr(a, b - a);
    probe.center_im = t.substr(c, d == std::string::npos ? std::string::npos : d - c);
    std::string problem = validate_view(probe);
    if (!problem.empty()) return problem;
    *re = probe.center_re;
    *im = probe.center_im;
    return {};
}

void draw_view_panel(ViewPanelState& s, const PanelLayout& layout) {
    s.view_edited = s.settings_edited = s.back = s.forward = s.reset = s.open_export = false;
    // Collapsible (the arrow in its title bar, or a double-click on it); ImGui remembers that.
    place_view_panel(layout);
    const bool expanded = ImGui::Begin("View");
    s.width = ImGui::GetWindowWidth();
    s.shown = {ImGui::GetWindowPos().x, ImGui::GetWindowPos().y, s.width, ImGui::GetWindowHeight()};
    if (!expanded) {
        ImGui::End();
        return;
    }
    ImGui::PushItemWidth(ImGui::GetFontSize() * 12.0f);
    draw_center(s);

    // Number fields apply on Enter or when they lose focus, not at every keystroke. The zoom is
    // text, as the centre is: any depth up to 1E60000 ("4.00000000000E533").
    if (!s.zoom_being_edited) s.zoom_text = s.view.zoom.text();
    bool zoom_entered = ImGui::InputText("zoom", &s.zoom_text, ImGuiInputTextFlags_EnterReturnsTrue);
    s.zoom_being_edited = ImGui::IsItemActive();
    if (zoom_entered || ImGui::IsItemDeactivatedAfterEdit()) {
        ViewZoom zoom;
        if (std::string problem = ViewZoom::parse(s.zoom_text, &zoom); !problem.empty()) {
            s.zoom_error = "Zoom not changed: " + problem;
        } else {
            s.view.zoom = zoom;
            s.view_edited = true;
            s.zoom_error.clear();
        }
        s.zoom_being_edited = false;
    }
    help_marker(
        "Half the window's height spans 2/zoom (Kalles Fraktaler's convention). Any depth up to "
        "1E60000: past FP64 the view renders by perturbation (the deep path).");
    if (!s.zoom_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
        ImGui::TextWrapped("%s", s.zoom_error.c_str());
        ImGui::PopStyleColor();
    }

    ImGui::BeginDisabled(s.settings.auto_iterations);
    int64_t iterations = s.view.max_iterations;
    const int64_t step = 100, step_fast = 1000;
    bool iterations_entered = ImGui::InputScalar("iterations", ImGuiDataType_S64, &iterations, &step, &step_fast,
                                                 "%lld", ImGuiInputTextFlags_EnterReturnsTrue);
    if (iterations_entered || ImGui::IsItemDeactivatedAfterEdit()) {
        s.view.max_iterations = std::clamp<int64_t>(iterations, 1, kDeepMaxIterations);
        s.view_edited = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Checkbox("auto", &s.settings.auto_iterations)) s.settings_edited = true;

    draw_formula(s);
    draw_colours(s);
    draw_colouring(s);
    draw_navigation(s);
    ImGui::Separator();
    draw_backend(s);
    if (ImGui::Checkbox("vsync", &s.settings.vsync)) s.settings_edited = true;
    ImGui::SameLine();
    if (ImGui::Checkbox("redraw always", &s.settings.redraw_continuously)) s.settings_edited = true;
    help_marker(
        "Off (default): the window draws only when something changes (input, rows of a CPU frame, "
        "running work), and an idle window sleeps. On: it draws every frame, so the Timings panel "
        "shows the UI's full frame rate.");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    if (ImGui::SliderFloat("panel opacity", &s.settings.panel_opacity, 0.2f, 1.0f, "%.2f")) s.settings_edited = true;
    help_marker("1: the panels hide the fractal behind them. Lower: the fractal shows through.");
    ImGui::Separator();

    ImGui::BeginDisabled(!s.can_back);
    if (ImGui::Button("Back")) s.back = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!s.can_forward);
    if (ImGui::Button("Forward")) s.forward = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Home")) s.reset = true;
    ImGui::SameLine();
    if (ImGui::Button("Export PNG...")) s.open_export = true;
    // The panels that open as tabs of the column on the right.
    ImGui::TextUnformatted("Panels (tabs on the right)");
    ImGui::Checkbox("Performance: timings, CPU vs GPU", &s.show_performance);
    ImGui::Checkbox("Vector add: when does the GPU win?", &s.show_vector_add);
    ImGui::Checkbox("CNN: Fashion-MNIST on CPU and GPU", &s.show_cnn);
    ImGui::Checkbox("Palette editor", &s.show_palette_editor);
    ImGui::Checkbox("Video: zoom videos, keyframes", &s.show_video);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped(
        "Mouse: drag pans, wheel zooms, middle held zooms in (Shift: out), right-drag zooms to a "
        "box, right click opens the Newton menu, double-click centres. "
        "Keys: arrows pan, +/- zoom, Page Up/Down held zoom in/out, M minibrot, J embedded Julia "
        "set, N next period (Esc cancels), Home, Backspace or Ctrl+Z back, Ctrl+Y forward, "
        "C CPU/CUDA, F11 fullscreen, Ctrl+Q quit.");
    ImGui::PopStyleColor();
    ImGui::PopItemWidth();
    ImGui::End();
}

}  // namespace ms
