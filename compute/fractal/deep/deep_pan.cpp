// deep_pan.cpp: whole-pixel pans of deep frames (see deep_pan.h).
#include "compute/fractal/deep/deep_pan.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compute/fractal/view/deep_navigation.h"

namespace ms {

namespace {

// The overlap of a shift along one axis of `size` pixels: new [begin, end) <- old [begin + shift, ...).
void overlap(int size, int shift, int* begin, int* end) {
    *begin = std::max(0, -shift);
    *end = std::min(size, size - shift);
    if (*end < *begin) *end = *begin;
}

// data(x, y) = old data(x + shift_x, y + shift_y) where covered, in place; with `fill` the rest
// becomes fill_value. Rows are visited in the order that reads each source row before it is
// overwritten (ascending when the sources lie below, descending when above); memmove handles a
// row moving within itself. Returns the pixels kept.
template <typename T>
int64_t move_in_place(T* data, int width, int height, int shift_x, int shift_y, bool fill, T fill_value) {
    int x0, x1, y0, y1;
    overlap(width, shift_x, &x0, &x1);
    overlap(height, shift_y, &y0, &y1);
    const size_t w = size_t(width);
    if (x1 <= x0 || y1 <= y0) {
        if (fill) std::fill(data, data + w * height, fill_value);
        return 0;
    }
    const size_t run = size_t(x1 - x0);
    auto move_row = [&](int y) {
        T* row = data + size_t(y) * w;
        std::memmove(row + x0, data + size_t(y + shift_y) * w + size_t(x0 + shift_x), run * sizeof(T));
        if (fill) {
            std::fill(row, row + x0, fill_value);
            std::fill(row + x1, row + w, fill_value);
        }
    };
    if (shift_x == 0) {
        // A vertical pan moves one contiguous block of whole rows: one memmove (the exposed rows
        // are filled below).
        std::memmove(data + size_t(y0) * w, data + size_t(y0 + shift_y) * w, size_t(y1 - y0) * w * sizeof(T));
    } else if (shift_y == 0) {
        // Each row moves within itself: the rows are independent, shared among a few cores (a
        // 1080p frame's mu is 16 MB). Memory-bound, so four threads; a team of every core
        // stalls at its barrier whenever the UI or the X server takes one of its cores (see
        // docs/performance.md).
#pragma omp parallel for schedule(static) num_threads(4) if (w * size_t(height) >= (size_t(1) << 18))
        for (int y = y0; y < y1; ++y) move_row(y);
    } else if (shift_y > 0)
        for (int y = y0; y < y1; ++y) move_row(y);
    else
        for (int y = y1 - 1; y >= y0; --y) move_row(y);
    if (fill) {
        std::fill(data, data + size_t(y0) * w, fill_value);
        std::fill(data + size_t(y1) * w, data + w * height, fill_value);
    }
    return int64_t(run) * (y1 - y0);
}

}  // namespace

bool deep_pan_shift(const DeepLocation& from, const DeepLocation& to, int width, int height, int* shift_x,
                    int* shift_y) {
    if (!(from.zoom == to.zoom) || from.max_iterations != to.max_iterations || from.formula != to.formula ||
        from.julia != to.julia || (to.julia && (from.julia_re != to.julia_re || from.julia_im != to.julia_im)))
        return false;
    if (width < 1 || height < 1) return false;
    // The centres' differences in pixels, exact in decimal before the one rounding to double.
    const double re = deep_decimal_difference_pixels(to.center_re, from.center_re, to.zoom, height);
    const double im = deep_decimal_difference_pixels(to.center_im, from.center_im, to.zoom, height);
    if (!std::isfinite(re) || !std::isfinite(im)) return false;
    const double whole_re = std::nearbyint(re), whole_im = std::nearbyint(im);
    if (std::fabs(re - whole_re) > kDeepPanTolerancePixels || std::fabs(im - whole_im) > kDeepPanTolerancePixels)
        return false;
    // Beyond the image nothing overlaps; clamp so that the int holds it.
    const double limit_x = 2.0 * width, limit_y = 2.0 * height;
    // x grows with re; y grows downwards while im grows upwards.
    *shift_x = int(std::clamp(whole_re, -limit_x, limit_x));
    *shift_y = int(std::clamp(-whole_im, -limit_y, limit_y));
    return true;
}

int deep_pan_strips(int width, int height, int shift_x, int shift_y, DeepPixelRect strips[2]) {
    int x0, x1, y0, y1;
    overlap(width, shift_x, &x0, &x1);
    overlap(height, shift_y, &y0, &y1);
    if (x1 <= x0 || y1 <= y0) {  // nothing overlaps
        strips[0] = {0, 0, width, height};
        return 1;
    }
    int n = 0;
    // The exposed columns, full height.
    if (x0 > 0) strips[n++] = {0, 0, x0, height};
    if (x1 < width) strips[n++] = {x1, 0, width - x1, height};
    // The exposed rows, over the columns the old frame covers.
    if (y0 > 0) strips[n++] = {x0, 0, x1 - x0, y0};
    if (y1 < height) strips[n++] = {x0, y1, x1 - x0, height - y1};
    return n;  // at most one column strip and one row strip: a shift has one sign per axis
}

int64_t deep_pan_move(DeepFrame* frame, int shift_x, int shift_y) {
    if (!frame->escape_count.empty())
        move_in_place(frame->escape_count.data(), frame->width, frame->height, shift_x, shift_y, true, int64_t(-1));
    return move_in_place(frame->mu.data(), frame->width, frame->height, shift_x, shift_y, true, -1.0);
}

void deep_pan_place(const DeepFrame& region, DeepFrame* to) {
    const DeepPixelRect r = region.region;
    for (int row = 0; row < r.height; ++row) {
        const size_t src = size_t(row) * r.width;
        const size_t dst = size_t(r.y + row) * to->width + size_t(r.x);
        if (!to->escape_count.empty())
            std::memcpy(&to->escape_count[dst], &region.escape_count[src], size_t(r.width) * sizeof(int64_t));
        std::memcpy(&to->mu[dst], &region.mu[src], size_t(r.width) * sizeof(double));
    }
}

void deep_pan_move_rgba(uint8_t* rgba, int width, int height, int shift_x, int shift_y) {
    static_assert(sizeof(uint32_t) == 4);
    // Four bytes a pixel, moved as one uint32_t (memmove: no alignment or aliasing assumed).
    struct Pixel {
        uint8_t bytes[4];
    };
    move_in_place(reinterpret_cast<Pixel*>(rgba), width, height, shift_x, shift_y, false, Pixel{});
}

}  // namespace ms
