// pixel_colour.h: one pixel's colour from its smooth value, its neighbours' and its orbit
// features, for every layer of colouring.h. Host and device (MS_HD): the CPU colour pass
// (colouring.cpp) and the CUDA colour kernel (direct_cuda_features.cu) call the same
// functions, so both paths colour alike.
#pragma once

#include <cmath>
#include <cstdint>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/colour/palette.h"

namespace ms {

// What the colour pass needs per frame, as plain values and pointers (copied to the device
// by value).
struct ColourParams {
    const uint32_t* table = nullptr;  // kPaletteTableSize entries (make_palette_table)
    uint32_t interior_rgba = 0xff000000u;
    int base = 0;                // ColourBase as int
    double mu_scale = 0.0;       // smooth base: table entries per unit of mu
    double cycle_scale = 0.0;    // histogram and stripe bases: table entries per unit (density cycles)
    double offset = 0.0;         // table entries
    const float* cdf = nullptr;  // histogram base: kHistogramBins + 1 entries
    float bins_per_log2 = 0.0f;
    bool distance = false;                 // DE layer
    float de_band = 1.0f;                  // band width in this frame's pixels
    bool slopes = false;                   // slope layer
    float light_x = 0.0f, light_y = 0.0f;  // light direction in image coordinates (y down), times cos(elevation)
    float light_z = 1.0f;                  // sin(elevation)
    float slope_strength = 0.0f;
    bool interior_period = false;
    bool atom = false;           // atom-domain layer
    float atom_strength = 0.0f;  // its hue's share of the colour, 0 ... 1
};

// The table colour at `position` (table entries, wraps), linearly interpolated: the same
// arithmetic as palette_lookup() (palette.h), callable on the device too.
MS_HD inline uint32_t colour_lookup(const uint32_t* table, double position) {
    double wrapped = position - kPaletteTableSize * palette_floor(position / kPaletteTableSize);
    int i = int(wrapped);
    if (i >= kPaletteTableSize) i = 0;
    int j = i + 1 == kPaletteTableSize ? 0 : i + 1;
    float f = float(wrapped - i);
    uint32_t a = table[i], b = table[j], out = 0xff000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        float ca = float((a >> shift) & 0xff), cb = float((b >> shift) & 0xff);
        out |= uint32_t(ca + f * (cb - ca) + 0.5f) << shift;
    }
    return out;
}

// Each channel times `factor` (>= 0), rounded and clamped to 255.
MS_HD inline uint32_t scale_rgb(uint32_t c, float factor) {
    uint32_t out = 0xff000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        float v = float((c >> shift) & 0xff) * factor + 0.5f;
        v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
        out |= uint32_t(v) << shift;
    }
    return out;
}

// mu's gradient at (x, y) in units of mu per pixel, from the neighbours that escaped: central
// differences where both neighbours along an axis escaped, one-sided where one did, 0 where
// neither did (or at the frame's edge).
MS_HD inline void mu_gradient(const float* mu, int width, int height, int x, int y, float* gx, float* gy) {
    const float c = mu[size_t(y) * width + x];
    const float l = x > 0 ? mu[size_t(y) * width + x - 1] : -1.0f;
    const float r = x + 1 < width ? mu[size_t(y) * width + x + 1] : -1.0f;
    const float u = y > 0 ? mu[size_t(y - 1) * width + x] : -1.0f;
    const float d = y + 1 < height ? mu[size_t(y + 1) * width + x] : -1.0f;
    *gx = l >= 0.0f && r >= 0.0f ? 0.5f * (r - l) : r >= 0.0f ? r - c : l >= 0.0f ? c - l : 0.0f;
    *gy = u >= 0.0f && d >= 0.0f ? 0.5f * (d - u) : d >= 0.0f ? d - c : u >= 0.0f ? c - u : 0.0f;
}

// The histogram base's rank of mu in [0, 1]: the CDF interpolated within mu's bin.
MS_HD inline float histogram_rank(const float* cdf, float bins_per_log2, float mu) {
    const float at = log2f(1.0f + mu) * bins_per_log2;
    if (!(at > 0.0f)) return 0.0f;
    if (at >= float(kHistogramBins)) return 1.0f;
    const int bin = int(at);
    const float f = at - float(bin);
    return cdf[bin] + f * (cdf[bin + 1] - cdf[bin]);
}

// The atom-domain layer's colour for a period n >= 1: a fully saturated hue that turns by the
// golden angle (1 - 1/phi of a turn) per period, so that neighbouring periods, and a domain and
// its satellites, never share a hue.
MS_HD inline uint32_t atom_domain_rgb(float period) {
    const double turns = double(period) * 0.3819660112501051;
    const float h = float(turns - palette_floor(turns)) * 6.0f;  // 0 ... 6, the hue's sextant
    const int sextant = int(h) % 6;
    const float f = h - float(int(h));
    // HSV with s = 0.85 and v = 1 (0.15 white), so that the hues stay apart from the palette's blacks.
    const float lo = 0.15f, up = lo + (1.0f - lo) * f, down = 1.0f - (1.0f - lo) * f;
    float r = 1.0f, g = lo, b = lo;
    switch (sextant) {
    case 0: r = 1.0f, g = up, b = lo; break;
    case 1: r = down, g = 1.0f, b = lo; break;
    case 2: r = lo, g = 1.0f, b = up; break;
    case 3: r = lo, g = down, b = 1.0f; break;
    case 4: r = up, g = lo, b = 1.0f; break;
    default: r = 1.0f, g = lo, b = down; break;
    }
    return 0xff000000u | (uint32_t(b * 255.0f + 0.5f) << 16) | (uint32_t(g * 255.0f + 0.5f) << 8) |
           uint32_t(r * 255.0f + 0.5f);
}

// c moved towards `to` by t (0 ... 1) in each channel, rounded.
MS_HD inline uint32_t blend_rgb(uint32_t c, uint32_t to, float t) {
    uint32_t out = 0xff000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        const float a = float((c >> shift) & 0xff), b = float((to >> shift) & 0xff);
        out |= uint32_t(a + t * (b - a) + 0.5f) << shift;
    }
    return out;
}

// The atom layer over a pixel's colour c (its period 0: no orbit seen, c unchanged).
MS_HD inline uint32_t atom_layer(const ColourParams& p, uint32_t c, float atom) {
    return atom > 0.0f ? blend_rgb(c, atom_domain_rgb(atom), p.atom_strength) : c;
}

// One pixel. mu < 0 is interior. gx, gy: mu_gradient(); distance, stripe, period, atom: the orbit
// features (ignored where the layer is off). The atom layer blends into every pixel, interior
// too, before the exterior's brightness layers (so the DE and slope shading show through it).
MS_HD inline uint32_t colour_pixel(const ColourParams& p, float mu, float gx, float gy, float distance, float stripe,
                                   float period, float atom = 0.0f) {
    if (mu < 0.0f) {
        uint32_t inside = p.interior_rgba;
        if (p.interior_period && period > 0.0f) {  // 0: the orbit never settled
            // A palette colour per period, spread by the golden ratio's fraction so that nearby
            // periods differ, at 60% brightness so that the interior reads as interior.
            const double spread = double(period) * 0.6180339887498949;
            const double position = (spread - palette_floor(spread)) * kPaletteTableSize;
            inside = scale_rgb(colour_lookup(p.table, position), 0.6f);
        }
        return p.atom ? atom_layer(p, inside, atom) : inside;
    }
    double position = 0.0;
    if (p.base == int(ColourBase::Histogram))
        position = double(histogram_rank(p.cdf, p.bins_per_log2, mu)) * p.cycle_scale + p.offset;
    else if (p.base == int(ColourBase::Stripe)) position = double(stripe) * p.cycle_scale + p.offset;
    else position = double(mu) * p.mu_scale + p.offset;
    uint32_t c = colour_lookup(p.table, position);
    if (p.atom) c = atom_layer(p, c, atom);
    float brightness = 1.0f;
    if (p.distance) {
        // Dark within the band along the boundary, ramping up to full brightness at its edge.
        const float t = distance / p.de_band;
        brightness *= t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : sqrtf(t);
    }
    if (p.slopes) {
        // The surface h = strength * mu over the image plane: normal (-s gx, -s gy, 1) with y down.
        const float nx = -p.slope_strength * gx, ny = -p.slope_strength * gy;
        const float lambert = (nx * p.light_x + ny * p.light_y + p.light_z) / sqrtf(nx * nx + ny * ny + 1.0f);
        // Relative to a flat surface (lambert = light_z); 20% ambient so back slopes keep a hint of colour.
        const float shade = lambert / p.light_z;
        brightness *= 0.2f + 0.8f * (shade < 0.0f ? 0.0f : shade);
    }
    return brightness == 1.0f ? c : scale_rgb(c, brightness);
}

}  // namespace ms

namespace ms {

// The scalar fields of ColourParams for a view (base, scales, layers, light); the caller sets
// table, interior_rgba and cdf to memory the colour pass can read (host or device).
// pixel_scale: image pixels per pixel of the frame being coloured (1 / K with supersampling
// K), which turns de_band_px into the frame's pixels.
ColourParams make_colour_params(const View& view, double pixel_scale);

}  // namespace ms
