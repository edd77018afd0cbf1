// colour_pass.cpp: histogram equalisation's pass and the CPU colour pass (colour_pass.h).
#include "compute/fractal/colour/colour_pass.h"

#include <algorithm>
#include <cmath>

#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/maths/orbit_features.h"
#include "compute/fractal/view/view.h"

namespace ms {

unsigned colouring_orbit_features(const Colouring& c) {
    return (c.distance_estimation ? kFeatureDistance : 0u) | (c.base == ColourBase::Stripe ? kFeatureStripe : 0u) |
           (c.interior == InteriorColour::Period ? kFeaturePeriod : 0u) | (c.atom_domains ? kFeatureAtom : 0u);
}

double histogram_bins_per_log2(int64_t max_iterations) {
    // mu <= max_iterations + 1, so log2(1 + mu) < log2(2 + max_iterations).
    return kHistogramBins / std::log2(2.0 + double(max_iterations));
}

HistogramCdf histogram_cdf_from_counts(const std::vector<uint64_t>& counts, int64_t max_iterations) {
    HistogramCdf h;
    h.bins_per_log2 = float(histogram_bins_per_log2(max_iterations));
    h.cdf.assign(kHistogramBins + 1, 0.0f);
    uint64_t total = 0;
    for (uint64_t n : counts) total += n;
    if (total == 0) return h;
    uint64_t below = 0;
    for (int i = 0; i < kHistogramBins; ++i) {
        h.cdf[i] = float(double(below) / double(total));
        below += i < int(counts.size()) ? counts[i] : 0;
    }
    h.cdf[kHistogramBins] = 1.0f;
    return h;
}

HistogramCdf histogram_cdf(const float* mu, int64_t count, int64_t max_iterations) {
    const float bins_per_log2 = float(histogram_bins_per_log2(max_iterations));
    std::vector<uint64_t> counts(kHistogramBins, 0);
#pragma omp parallel
    {
        std::vector<uint64_t> mine(kHistogramBins, 0);
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < count; ++i) {
            if (!(mu[i] >= 0.0f)) continue;
            // The bin colour_pixel() reads (histogram_rank): the same float arithmetic.
            const float at = log2f(1.0f + mu[i]) * bins_per_log2;
            mine[std::clamp(int(at), 0, kHistogramBins - 1)]++;
        }
#pragma omp critical
        for (int i = 0; i < kHistogramBins; ++i) counts[i] += mine[i];
    }
    return histogram_cdf_from_counts(counts, max_iterations);
}

ColourParams make_colour_params(const View& view, double pixel_scale) {
    const Colouring& c = view.colouring;
    ColourParams p;
    p.base = int(c.base);
    p.mu_scale = view.palette_density / 100.0 * kPaletteTableSize;
    p.cycle_scale = view.palette_density * kPaletteTableSize;
    p.offset = view.palette_offset * kPaletteTableSize;
    p.distance = c.distance_estimation;
    p.de_band = float(c.de_band_px / pixel_scale);
    p.slopes = c.slopes;
    // Light from slope_angle_deg (counterclockwise from the right, in the picture) at 45 degrees
    // of elevation; image y points down, hence the minus.
    const double angle = c.slope_angle_deg * M_PI / 180.0, elevation = M_PI / 4.0;
    p.light_x = float(std::cos(angle) * std::cos(elevation));
    p.light_y = float(-std::sin(angle) * std::cos(elevation));
    p.light_z = float(std::sin(elevation));
    // mu's gradient is per frame pixel; a sample of a supersampled frame is 1/K of an image
    // pixel, so the same relief needs K times the strength.
    p.slope_strength = float(c.slope_strength / pixel_scale);
    p.interior_period = c.interior == InteriorColour::Period;
    p.atom = c.atom_domains;
    p.atom_strength = float(c.atom_strength);
    return p;
}

namespace {

// The layered colour pass over mu measured from mu_origin (the smooth value that mu = 0 stands
// for; colour_frame_deep's): the smooth base's palette position moves by the origin, and the
// histogram and the slopes see only differences, which the origin does not change.
void colour_layers(const float* mu, const FrameFeatures& features, int width, int height, const PaletteTable& palette,
                   const View& view, double pixel_scale, double mu_origin, uint8_t* rgba_out) {
    const int64_t count = int64_t(width) * height;
    ColourParams p = make_colour_params(view, pixel_scale);
    if (mu_origin != 0.0) p.offset += std::fmod(mu_origin * p.mu_scale, double(kPaletteTableSize));
    p.table = palette.rgba.data();
    p.interior_rgba = palette.interior_rgba;
    HistogramCdf histogram;
    if (view.colouring.base == ColourBase::Histogram) {
        histogram = histogram_cdf(mu, count, view.max_iterations);
        p.cdf = histogram.cdf.data();
        p.bins_per_log2 = histogram.bins_per_log2;
    }
    uint32_t* out = reinterpret_cast<uint32_t*>(rgba_out);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const size_t i = size_t(y) * width + x;
            float gx = 0.0f, gy = 0.0f;
            if (p.slopes && mu[i] >= 0.0f) mu_gradient(mu, width, height, x, y, &gx, &gy);
            out[i] = colour_pixel(p, mu[i], gx, gy, features.distance ? features.distance[i] : 0.0f,
                                  features.stripe ? features.stripe[i] : 0.0f,
                                  features.period ? features.period[i] : 0.0f, features.atom ? features.atom[i] : 0.0f);
        }
    }
}

}  // namespace

void colourize_parallel(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                        uint8_t* rgba_out) {
    constexpr int64_t kChunk = 1 << 16;
    const int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t begin = c * kChunk, n = std::min(kChunk, count - begin);
        colourize(mu + begin, n, palette, view, rgba_out + begin * 4);
    }
}

void colour_frame(const float* mu, const FrameFeatures& features, int width, int height, const PaletteTable& palette,
                  const View& view, double pixel_scale, uint8_t* rgba_out) {
    const int64_t count = int64_t(width) * height;
    if (colouring_is_plain(view.colouring)) {
        colourize_parallel(mu, count, palette, view, rgba_out);
        return;
    }
    colour_layers(mu, features, width, height, palette, view, pixel_scale, 0.0, rgba_out);
}

double deep_mu_origin(const double* mu, int64_t count) {
    double lowest = -1.0;
    for (int64_t i = 0; i < count; ++i)
        if (mu[i] >= 0.0 && (lowest < 0.0 || mu[i] < lowest)) lowest = mu[i];
    return lowest > 0.0 ? std::floor(lowest) : 0.0;
}

void colour_frame_deep(const double* mu, const float* distance, int width, int height, const PaletteTable& palette,
                       const View& view, double pixel_scale, uint8_t* rgba_out, const float* atom) {
    const int64_t count = int64_t(width) * height;
    const double origin = deep_mu_origin(mu, count);
    std::vector<float> relative(static_cast<size_t>(count));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) relative[size_t(i)] = mu[i] >= 0.0 ? float(mu[i] - origin) : -1.0f;
    colour_layers(relative.data(), FrameFeatures{distance, nullptr, nullptr, atom}, width, height, palette, view,
                  pixel_scale, origin, rgba_out);
}

}  // namespace ms
