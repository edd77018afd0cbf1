// cmd_render.h: rendering a view to files, shared by `mandelscope render` (cmd_render.cpp) and
// the explorer's placeholder (explorer.cpp), which renders the default view until the window
// exists.
#pragma once

#include <filesystem>
#include <string>

#include "compute/mandelbrot.h"
#include "compute/view.h"

namespace ms {

struct RenderRequest {
    View view;
    Precision precision = Precision::Auto;
    std::string backend = "auto";       // "cpu", "cuda" or "auto" (CUDA when usable)
    int supersample = 1;                // K: K x K samples per pixel, box-filtered
    Shortcuts shortcuts;
    std::filesystem::path png_path;
    std::filesystem::path raw_path;     // optional .npy of the smooth values (samples grid)
    int band_rows = 0;                  // output rows per band; 0 = chosen from memory
    bool stream_png = false;            // force the band-by-band PNG writer (tests)
};

// Checks and renders a request: one sentence on stderr and 2 for bad input (found before any
// work), 1 for a failure while working, 0 with a summary on stdout otherwise.
int render_request(const RenderRequest& request);

// The explorer placeholder: the default view to mandelscope-default-view.png in the current
// directory (or $TMPDIR when that is not writable); says where on stdout.
int render_default_view_png();

}  // namespace ms
