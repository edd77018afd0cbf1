// render_options.cpp: the view options of `render` and `video` (render_options.h).
#include "app/modes/render_options.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "app/modes/cmd_nucleus.h"
#include "compute/fractal/view/kfr.h"
#include "compute/scale/deep_multi_gpu.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

// "RE,IM" with the text of each part kept verbatim (compute/view.h, the same in every mode).
std::string parse_center(const std::string& text, View* view) {
    return parse_center_option(text, &view->center_re, &view->center_im);
}

// "WxH" with whole numbers: compute/number_text.h's parser, linear in the text's length, so a
// size of thousands of digits is refused with a sentence rather than exhausting the stack.
std::string parse_size(const std::string& text, View* view) {
    return parse_size_text(text, INT_MAX, &view->width, &view->height);
}

}  // namespace

void add_view_place_options(CLI::App& app, RenderOptionTexts& o) {
    app.add_option("--center", o.center, "Centre RE,IM as decimal text, kept verbatim (write --center=-0.75,0)")
        ->capture_default_str();
    app.add_option("--formula", o.formula, formula_names() + " (each opens on its own default view)")
        ->capture_default_str();
    app.add_option("--julia", o.julia, "Draw the formula's Julia set of c = RE,IM (decimal text, kept verbatim)");
    app.add_option("--zoom", o.zoom, "Zoom: half the image height spans 2/zoom; any depth (4.00000000000E533)")
        ->capture_default_str();
    app.add_option("--size", o.size, "Image size WIDTHxHEIGHT in pixels")->capture_default_str();
    o.center_option = app.get_option("--center");
    o.zoom_option = app.get_option("--zoom");
    o.iter_option = app.add_option("--iter", o.iterations,
                                   "Maximum iterations (up to 1e11), or auto: 1000 + 600 per decade of zoom")
                        ->capture_default_str();
    app.add_option("--location", o.location,
                   "A Kalles Fraktaler location file (.kfr): its Re, Im, Zoom and Iterations (--iter overrides them)");
}

void add_view_look_options(CLI::App& app, RenderRequest& request, RenderOptionTexts& o) {
    Colouring& colour = request.view.colouring;
    app.add_option("--palette", request.view.palette, "Palette name (a file in assets/palettes/; a name, not a path)")
        ->capture_default_str();
    app.add_option("--palette-file", request.palette_file,
                   "A palette file anywhere (the format of assets/palettes/*.txt)");
    app.add_option("--offset", request.view.palette_offset, "Palette offset, in cycles")->capture_default_str();
    app.add_option("--density", request.view.palette_density, "Palette cycles per 100 iterations")
        ->capture_default_str();
    app.add_option("--colouring", o.colouring,
                   "Colouring: a base (smooth, histogram or stripe) and layers (de, slope, atom), comma-separated, "
                   "e.g. histogram,de,slope or smooth,atom")
        ->capture_default_str();
    app.add_option("--interior", o.interior, "Interior colouring: flat (the palette's interior colour) or period")
        ->capture_default_str();
    app.add_option("--stripe-density", colour.stripe_density, "Stripe base: stripes per turn of arg z (1-64)")
        ->capture_default_str();
    app.add_option("--de-band", colour.de_band_px, "de layer: width of the dark band along the boundary, in pixels")
        ->capture_default_str();
    app.add_option("--slope-angle", colour.slope_angle_deg,
                   "slope layer: light direction in degrees, counterclockwise from the right")
        ->capture_default_str();
    app.add_option("--slope-strength", colour.slope_strength, "slope layer: relief height (0 is flat)")
        ->capture_default_str();
    app.add_option("--atom-strength", colour.atom_strength,
                   "atom layer: how much of the atom domain's hue (0-1) blends into each pixel, interior included")
        ->capture_default_str();
    app.add_option("--backend", request.backend, "cpu, cuda, or auto (CUDA when a device is usable)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_option("--precision", o.precision,
                   "auto (by depth: fp32, fp64, then perturbation in double and in floatexp), fp32, fp64, "
                   "deep-double or deep-floatexp")
        ->check(CLI::IsMember({"auto", "fp32", "fp64", "deep-double", "deep-floatexp"}))
        ->capture_default_str();
    app.add_option("--supersample", request.supersample, "K: render K x K samples per pixel and box-filter them (1-4)")
        ->check(CLI::Range(1, 4))
        ->capture_default_str();
    app.add_flag("--no-shortcuts", o.no_shortcuts, "Switch off the cardioid/bulb test and periodicity checking");
}

std::string apply_view_options(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request) {
    Colouring& colour = request->view.colouring;
    const std::string& formula = o.formula;
    if (!parse_formula(formula, &request->view.formula))
        return "the formula '" + (formula.size() > 60 ? formula.substr(0, 60) + "..." : formula) + "' is not one of " +
               formula_names();
    if (app.count("--julia") > 0) {
        if (std::string problem = parse_julia_option(o.julia, &request->view.julia_re, &request->view.julia_im);
            !problem.empty())
            return problem;
        request->view.julia = true;
    }
    // A formula (or Julia set) opens on its own frame unless --center or --zoom say otherwise.
    const FormulaFrame frame = formula_default_frame(request->view.formula, request->view.julia);
    const std::string center = o.center_option->count() == 0 ? std::string(frame.center_re) + "," + frame.center_im
                                                             : o.center;
    const std::string zoom = o.zoom_option->count() == 0 ? ViewZoom(frame.zoom).text() : o.zoom;
    if (!o.location.empty()) {
        // The location gives centre, zoom and iterations; an explicit --iter wins over its count.
        // It also gives the formula and the Julia parameter (kfr.h).
        if (o.center_option->count() > 0 || o.zoom_option->count() > 0)
            return "--location gives the centre and the zoom: leave out --center and --zoom";
        if (app.count("--formula") > 0 || app.count("--julia") > 0)
            return "--location gives the formula and the Julia parameter: leave out --formula and --julia";
        DeepLocation kfr;
        if (std::string problem = read_kfr(o.location, &kfr); !problem.empty()) return problem;
        request->view.center_re = kfr.center_re;
        request->view.center_im = kfr.center_im;
        request->view.formula = kfr.formula;
        request->view.julia = kfr.julia;
        request->view.julia_re = kfr.julia_re;
        request->view.julia_im = kfr.julia_im;
        request->view.zoom = ViewZoom::from_deep(kfr.zoom);
        request->view.max_iterations = kfr.max_iterations;
    } else {
        if (std::string problem = parse_center(center, &request->view); !problem.empty()) return problem;
        if (std::string problem = ViewZoom::parse(zoom, &request->view.zoom); !problem.empty()) return problem;
    }
    if (std::string problem = parse_size(o.size, &request->view); !problem.empty()) return problem;
    if (std::string problem = parse_colouring_methods(o.colouring, &colour); !problem.empty()) return problem;
    if (std::string problem = parse_interior_colour(o.interior, &colour.interior); !problem.empty()) return problem;
    // Iterations are fixed unless asked for: a render reproduces exactly what its command line
    // says. --iter=auto follows the window's rule (render/frame/view_math.h), at any depth.
    if (o.iterations == "auto") {
        request->view.max_iterations = std::min<int64_t>(
            kDeepMaxIterations,
            std::llround((1000.0 + 600.0 * std::max(0.0, request->view.zoom.log10())) / 100.0) * 100);
    } else if (o.location.empty() || o.iter_option->count() > 0) {
        if (std::string problem = parse_deep_iterations(o.iterations, &request->view.max_iterations); !problem.empty())
            return problem;
    }
    if (!precision_from_name(o.precision, &request->precision)) return "unknown precision " + o.precision;
    request->shortcuts = o.no_shortcuts ? Shortcuts{false, false} : Shortcuts{};
    return {};
}

void add_devices_option(CLI::App& app, RenderOptionTexts& o, const std::string& help) {
    app.add_option("--devices", o.devices, help);
}

std::string apply_devices_option(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request) {
    request->devices.clear();
    if (app.count("--devices") == 0) return {};
    if (request->backend == "cpu") return "--devices picks CUDA devices: leave out --backend=cpu";
    return parse_device_numbers(o.devices, &request->devices);
}

std::string check_devices_visible(const RenderRequest& request) {
    if (request.devices.empty()) return {};
    return check_device_numbers(request.devices, int(deep_visible_devices().size()));
}

void add_newton_zoom_options(CLI::App& app, RenderOptionTexts& o) {
    app.add_flag("--to-minibrot", o.to_minibrot,
                 "Newton zoom: centre on the nucleus of the lowest-period minibrot in the image and frame it");
    app.add_option("--to-julia-fraction", o.julia_fraction,
                   "Newton zoom: centre on that minibrot's nucleus, this fraction of the way to it in log zoom "
                   "(0.5: its embedded Julia set)")
        ->check(CLI::Range(0.0, 1.0));
}

std::string apply_newton_zoom(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request) {
    if (app.count("--to-julia-fraction") > 0 && !(o.julia_fraction > 0.0 && o.julia_fraction < 1.0))
        return "--to-julia-fraction must lie strictly between 0 and 1";
    if (o.to_minibrot && app.count("--to-julia-fraction") > 0)
        return "--to-minibrot and --to-julia-fraction both move the view: give one";
    if (o.to_minibrot || app.count("--to-julia-fraction") > 0)
        return move_view_to_minibrot(&request->view, o.julia_fraction, o.iter_option->count() > 0);
    return {};
}

}  // namespace ms
