// deep_colour.cpp: a deep frame's colours (deep_colour.h).
#include "compute/fractal/deep/deep_colour.h"

#include <stdexcept>

#include "compute/fractal/colour/colour_pass.h"

namespace ms {

void deep_options_for_colouring(const Colouring& colouring, DeepRenderOptions* options) {
    options->distance = colouring.distance_estimation;
    options->atom = colouring.atom_domains;
}

void colour_deep_frame(const DeepFrame& frame, const PaletteTable& palette, const View& view, double pixel_scale,
                       uint8_t* rgba_out) {
    const int width = frame.width;
    if (colouring_is_plain(view.colouring)) {
        // Rows shared among the cores: a 1920x1080 frame is 2 million pixels.
#pragma omp parallel for schedule(static)
        for (int y = 0; y < frame.height; ++y)
            colourize_deep(frame.mu.data() + size_t(y) * width, width, palette, view.palette_density,
                           view.palette_offset, rgba_out + size_t(y) * width * 4);
        return;
    }
    if (std::string problem = deep_colouring_problem(view.colouring); !problem.empty())
        throw std::invalid_argument(problem);
    if (view.colouring.distance_estimation && frame.distance.size() != frame.mu.size())
        throw std::invalid_argument(
            "The deep frame has no distance estimate for the DE layer (render it with "
            "options.distance).");
    if (view.colouring.atom_domains && frame.atom.size() != frame.mu.size())
        throw std::invalid_argument(
            "The deep frame has no atom periods for the atom layer (render it with options.atom).");
    colour_frame_deep(frame.mu.data(), view.colouring.distance_estimation ? frame.distance.data() : nullptr, width,
                      frame.height, palette, view, pixel_scale, rgba_out,
                      view.colouring.atom_domains ? frame.atom.data() : nullptr);
}

}  // namespace ms
