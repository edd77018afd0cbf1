// render_options.h: the options that say what a view looks like and how it renders (centre,
// zoom, location, size, iterations, formula, palette, colouring, backend, precision,
// supersampling), defined once for every mode that renders views: `render` (cmd_render.cpp)
// and `video` (cmd_video.cpp), so that the same option means the same thing in both.
// add_view_place_options and add_view_look_options add them (a mode adds its own between
// and after); apply_view_options parses the texts into a RenderRequest's view and settings.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/modes/cmd_render.h"

namespace ms {

// The command line's texts, kept as given until apply_view_options parses them into the
// request (the options that need no parsing go straight into it).
struct RenderOptionTexts {
    std::string center = View{}.center_re + "," + View{}.center_im;
    std::string size = "1280x720";
    std::string png, raw;
    std::string zoom = View{}.zoom.text();
    bool no_shortcuts = false;
    std::string precision = "auto";
    std::string colouring = "smooth", interior = "flat";
    std::string formula = formula_name(Formula::Mandelbrot), julia;
    std::string iterations = "1000", location, save_location;
    bool print_view = false;
    bool to_minibrot = false;              // render's --to-minibrot: frame the minibrot nearest the centre
    double julia_fraction = 0.0;           // render's --to-julia-fraction: that far towards it in log zoom
    CLI::Option* center_option = nullptr;  // whether --center, --zoom and --iter were given
    CLI::Option* zoom_option = nullptr;
    CLI::Option* iter_option = nullptr;
    std::string devices;  // --devices: a device list ("0,1"), as given
};

// Where the view is: --center, --formula, --julia, --zoom, --size, --iter, --location.
void add_view_place_options(CLI::App& app, RenderOptionTexts& o);
// How it looks and renders: --palette, --palette-file, --offset, --density, --colouring,
// --interior, the layers' settings, --backend, --precision, --supersample, --no-shortcuts.
void add_view_look_options(CLI::App& app, RenderRequest& request, RenderOptionTexts& o);
// The texts into request->view, precision and shortcuts, in the order the options are checked.
// Returns "" or the sentence saying which option is wrong.
std::string apply_view_options(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request);

// --devices=LIST: the CUDA devices a command shares its work over (render's deep frames:
// compute/scale/; video's segments: compute/video/video_job.h), described by `help`;
// apply_devices_option reads the list's numbers into request->devices without asking the driver
// (which takes a few hundred milliseconds a device to start); check_devices_visible then checks
// them against the visible devices, once the command has started what does not need them (a
// deep view's reference orbit). Each returns "" or one sentence.
void add_devices_option(CLI::App& app, RenderOptionTexts& o, const std::string& help);
std::string apply_devices_option(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request);
std::string check_devices_visible(const RenderRequest& request);

// Newton zoom before any work (render, and video's target): --to-minibrot and
// --to-julia-fraction (cmd_nucleus.h's move_view_to_minibrot). apply_newton_zoom moves
// request->view where they ask and returns "" or one sentence.
void add_newton_zoom_options(CLI::App& app, RenderOptionTexts& o);
std::string apply_newton_zoom(const CLI::App& app, const RenderOptionTexts& o, RenderRequest* request);

}  // namespace ms
