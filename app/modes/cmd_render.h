// cmd_render.h: rendering a view to files (`mandelscope render`, cmd_render.cpp), in a form
// other modes can call.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"

namespace ms {

struct DeepFrame;

struct RenderRequest {
    View view;
    Precision precision = Precision::Auto;
    std::string backend = "auto";  // "cpu", "cuda" or "auto" (CUDA when usable)
    int supersample = 1;           // K: K x K samples per pixel, box-filtered
    Shortcuts shortcuts;
    std::filesystem::path png_path;
    std::filesystem::path raw_path;       // optional .npy of the smooth values (samples grid)
    std::filesystem::path palette_file;   // --palette-file: colours from this file, not view.palette
    std::filesystem::path save_location;  // --save-location: also write the view as a .kfr
    int band_rows = 0;                    // output rows per band; 0 = chosen from memory
    bool stream_png = false;              // force the band-by-band PNG writer (tests)
    bool disk_check = false;              // --disk-check: also time the disk alone on the PNG's size
    std::string png_encoder = "auto";     // --png-encoder: "cpu", "cuda" or "auto" (the GPU's where
                                          // the frame is coloured there: CUDA, no supersampling or --raw)
    std::vector<int> devices;             // --devices: the CUDA devices the deep path shares a frame
                                          // over; empty: every visible one
};

// Checks and renders a request: one sentence on stderr and 2 for bad input (found before any
// work), 1 for a failure while working, 0 with a summary on stdout otherwise.
int render_request(const RenderRequest& request);

// For cmd_render_deep.cpp. render_bad_input prints "mandelscope render: SENTENCE." and
// returns 2.
int render_bad_input(const std::string& sentence);
// A whole deep frame of `samples` coloured, box-filtered when supersampling, and written as the
// .npy, the PNG (the view in its metadata, with the number type `ran`) and the .kfr location, as
// one render writes it (the cluster's rank 0 writes the frame its ranks computed through it).
// Returns the milliseconds colouring took; throws on a failure (a full disk).
double write_deep_frame(const RenderRequest& request, const View& view, const View& samples,
                        const PaletteTable& table, DeepFrame& frame, Precision ran);

}  // namespace ms
