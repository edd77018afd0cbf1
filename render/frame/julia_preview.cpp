// julia_preview.cpp: the Julia preview inset's picture (julia_preview.h).
#include "render/frame/julia_preview.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "render/frame/view_math.h"

namespace ms {

View julia_view_at(const View& main_view, glm::dvec2 pixel, int width, int height) {
    const glm::dvec2 offset = pixel_to_plane_offset(main_view, pixel);
    const int digits = center_fraction_digits(main_view);
    View julia = main_view;
    julia.julia = true;
    julia.julia_re = add_to_decimal(main_view.center_re, offset.x, digits);
    julia.julia_im = add_to_decimal(main_view.center_im, offset.y, digits);
    const FormulaFrame frame = formula_default_frame(main_view.formula, true);
    julia.center_re = frame.center_re;
    julia.center_im = frame.center_im;
    julia.zoom = frame.zoom;
    julia.width = width;
    julia.height = height;
    // Julia sets of points near the boundary need iterations, but the inset must stay quick.
    julia.max_iterations = std::min<int64_t>(main_view.max_iterations, 500);
    return julia;
}

void update_julia_preview(JuliaPreview& p, const View& julia, const PaletteTable& palette, bool use_cuda) {
    const View& s = p.shown;
    if (p.texture != 0 && s.julia && s.julia_re == julia.julia_re && s.julia_im == julia.julia_im &&
        s.formula == julia.formula && s.max_iterations == julia.max_iterations && s.palette == julia.palette &&
        s.palette_offset == julia.palette_offset && s.palette_density == julia.palette_density &&
        s.width == julia.width && s.height == julia.height && p.cuda == use_cuda)
        return;
    const size_t pixels = size_t(julia.width) * size_t(julia.height);
    p.rgba.resize(pixels * 4);
    p.mu.resize(pixels);
    const auto start = std::chrono::steady_clock::now();
    p.cuda = false;
    if (use_cuda) {
        try {
            direct_cuda_to_host(julia, Precision::Auto, Shortcuts{}, palette, {}, p.rgba.data(), nullptr);
            p.cuda = true;
        } catch (const std::exception&) {
            // The main view reports CUDA's failure; the inset quietly uses the CPU.
        }
    }
    if (!p.cuda) {
        direct_cpu(julia, Precision::Auto, Shortcuts{}, {}, p.mu.data());
        colourize(p.mu.data(), int64_t(pixels), palette, julia, p.rgba.data());
    }
    p.render_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (p.texture == 0) {
        GL_CHECK(glGenTextures(1, &p.texture));
        GL_CHECK(glBindTexture(GL_TEXTURE_2D, p.texture));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
        GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
    }
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, p.texture));
    GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
    GL_CHECK(glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, julia.width, julia.height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                          p.rgba.data()));
    p.shown = julia;
}

void destroy_julia_preview(JuliaPreview& p) {
    if (p.texture) glDeleteTextures(1, &p.texture);
    p.texture = 0;
    p.shown = View{};
}

}  // namespace ms
