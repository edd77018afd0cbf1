// julia_preview.h: the Julia preview inset's picture (render/ui/panels.h draws it): the Julia set
// of the point under the mouse, as a small texture, rendered again whenever that point (or the
// formula, or the palette) changes. Small on purpose: 320x180 at up to 500 iterations is about a
// millisecond on CUDA and a few on the CPU, so it follows the mouse at frame rate. The main loop
// owns it; panels only get its texture name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "compute/fractal/direct/direct.h"
#include "render/platform/gl_check.h"

namespace ms {

struct JuliaPreview {
    GLuint texture = 0;
    int width = 320, height = 180;  // pixels
    View shown;                     // the Julia view in the texture (julia false: none yet)
    std::vector<uint8_t> rgba;
    std::vector<float> mu;
    bool cuda = false;  // what rendered it
    double render_ms = 0.0;
};

// The Julia view of main_view's formula whose c is the point under `pixel` (framebuffer
// coordinates of main_view), at the preview's size, on its formula's default Julia frame.
View julia_view_at(const View& main_view, glm::dvec2 pixel, int width, int height);

// Renders `julia` into the texture unless it shows it already (same c, formula, iterations and
// palette). CUDA when use_cuda (falls back to the CPU if it throws), else the CPU fast path.
// Throws std::runtime_error on a GL failure.
void update_julia_preview(JuliaPreview& preview, const View& julia, const PaletteTable& palette, bool use_cuda);
void destroy_julia_preview(JuliaPreview& preview);

}  // namespace ms
