// deep_pan.h: a deep frame panned by whole pixels, from the pixels of the frame before it.
//
// A drag moves the view by whole pixels (a cursor's positions are integers) and keeps the
// reference orbit (its point stays inside the image, deep_reference.h), the zoom, the size and
// the iterations. Then every pixel still on screen samples exactly the point it sampled before
// (its dc = centre offset + its place times the spacing, up to the rounding of the centre's text
// to a ten-thousandth of a pixel, deep_navigation.h), so its escape count and mu can be taken as
// they are, and only the newly exposed strips need computing: at most two rectangles, an L
// (XaoS's idea, exact here because the old pixels are not approximations of the new ones).
//   deep_pan_shift   whether two places are a whole-pixel pan apart, and by how much
//   deep_pan_strips  the exposed rectangles of a pan
//   deep_pan_move    the old frame's pixels to their new places (in place)
//   deep_pan_place   a region's render (deep_cpu/deep_cuda with options.region) into the frame
// The window's deep worker (render/frame/deep_render_worker.h) keeps its last complete frame and
// uses these; a test holds the assembled frame to a full render of the panned view.
#pragma once

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/view/deep_location.h"

namespace ms {

// How far from a whole number of pixels a pan may be and still reuse pixels: the centres are
// rounded to 1e-4 pixel, so a whole-pixel drag lands within 5e-5 of one; a pan by any fraction a
// hand or a wheel makes is far outside.
inline constexpr double kDeepPanTolerancePixels = 1e-3;

// True when `to` looks at the same map, zoom and iterations as `from` and its centre is `from`'s
// moved by whole pixels (within kDeepPanTolerancePixels, computed exactly on the decimal texts)
// at this size: then to's pixel (x, y) is from's pixel (x + *shift_x, y + *shift_y). The shift
// may exceed the image (nothing overlaps then). Throws std::invalid_argument on a malformed
// centre text.
bool deep_pan_shift(const DeepLocation& from, const DeepLocation& to, int width, int height, int* shift_x,
                    int* shift_y);

// The rectangles of a width x height frame panned by (shift_x, shift_y) that the old frame does
// not cover: none (no shift), one (a pan along one axis) or two (the L of a diagonal pan: the
// exposed columns over the full height, and the exposed rows beside them); the whole frame when
// the shift is the image's size or more. Returns how many it wrote to strips.
int deep_pan_strips(int width, int height, int shift_x, int shift_y, DeepPixelRect strips[2]);

// Moves a whole frame's pixels in place to where the pan puts them,
// frame(x, y) = old frame(x + shift_x, y + shift_y) where the old frame covers (x, y); the exposed
// pixels become -1 (deep_pan_place fills them). No allocation: a drag's views move the same
// buffers. A frame without escape counts (empty: a window colours from mu alone) moves its mu
// only. Returns the number of pixels kept.
int64_t deep_pan_move(DeepFrame* frame, int shift_x, int shift_y);

// Copies a region's render (its region says where it lies) into the whole frame `to` (its mu
// only when `to` keeps no escape counts).
void deep_pan_place(const DeepFrame& region, DeepFrame* to);

// The same move for an RGBA8 frame, in place; the exposed pixels keep whatever they held.
void deep_pan_move_rgba(uint8_t* rgba, int width, int height, int shift_x, int shift_y);

}  // namespace ms
