// colouring.cpp: the colouring settings' names and checks, histogram equalisation's pass and
// the CPU colour pass (colouring.h).
#include "compute/fractal/colouring.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compute/fractal/colouring_math.h"
#include "compute/fractal/orbit_features.h"
#include "compute/fractal/view.h"

namespace ms {

namespace {

const char* base_name(ColourBase base) {
    switch (base) {
        case ColourBase::Smooth: return "smooth";
        case ColourBase::Histogram: return "histogram";
        case ColourBase::Stripe: return "stripe";
    }
    return "?";
}

std::string shown(const std::string& text) { return text.size() > 40 ? text.substr(0, 40) + "..." : text; }

}  // namespace

std::string colouring_methods_text(const Colouring& colouring) {
    std::string text = base_name(colouring.base);
    if (colouring.distance_estimation) text += ",de";
    if (colouring.slopes) text += ",slope";
    return text;
}

std::string parse_colouring_methods(const std::string& text, Colouring* colouring) {
    Colouring parsed = *colouring;
    parsed.base = ColourBase::Smooth;
    parsed.distance_estimation = parsed.slopes = false;
    int bases = 0;
    std::istringstream in(text);
    std::string item;
    int items = 0;
    while (std::getline(in, item, ',')) {
        ++items;
        if (item == "smooth" || item == "histogram" || item == "stripe") {
            if (++bases > 1)
                return "the colouring '" + shown(text) +
                       "' names more than one base (smooth, histogram and stripe exclude each other)";
            parsed.base = item == "smooth" ? ColourBase::Smooth : item == "histogram" ? ColourBase::Histogram : ColourBase::Stripe;
        } else if (item == "de") {
            if (parsed.distance_estimation) return "the colouring '" + shown(text) + "' names de twice";
            parsed.distance_estimation = true;
        } else if (item == "slope") {
            if (parsed.slopes) return "the colouring '" + shown(text) + "' names slope twice";
            parsed.slopes = true;
        } else {
            return "unknown colouring method '" + shown(item) +
                   "' (known: smooth, histogram, stripe, de, slope; combine them with commas, e.g. histogram,de,slope)";
        }
    }
    if (items == 0 || text.back() == ',') return "the colouring '" + shown(text) + "' has an empty method";
    *colouring = parsed;
    return {};
}

const char* interior_colour_name(InteriorColour interior) {
    return interior == InteriorColour::Period ? "period" : "flat";
}

std::string parse_interior_colour(const std::string& text, InteriorColour* interior) {
    if (text == "flat") *interior = InteriorColour::Flat;
    else if (text == "period") *interior = InteriorColour::Period;
    else return "unknown interior colouring '" + shown(text) + "' (known: flat, period)";
    return {};
}

std::string validate_colouring(const Colouring& c) {
    if (c.stripe_density < 1 || c.stripe_density > kMaxStripeDensity)
        return "the stripe density must be a whole number from 1 to " + std::to_string(kMaxStripeDensity) +
               " (got " + std::to_string(c.stripe_density) + ")";
    if (!(c.de_band_px > 0.0 && c.de_band_px <= kMaxDeBandPx))
        return "the distance-estimation band must be more than 0 and at most " + std::to_string(int(kMaxDeBandPx)) +
               " pixels";
    if (!(c.slope_strength >= 0.0 && c.slope_strength <= kMaxSlopeStrength))
        return "the slope strength must be from 0 to " + std::to_string(int(kMaxSlopeStrength));
    if (!std::isfinite(c.slope_angle_deg) || std::fabs(c.slope_angle_deg) > 3600.0)
        return "the slope angle must be a number of degrees from -3600 to 3600";
    return {};
}

bool colouring_is_plain(const Colouring& c) {
    return c.base == ColourBase::Smooth && !c.distance_estimation && !c.slopes && c.interior == InteriorColour::Flat;
}

unsigned colouring_orbit_features(const Colouring& c) {
    return (c.distance_estimation ? kFeatureDistance : 0u) | (c.base == ColourBase::Stripe ? kFeatureStripe : 0u) |
           (c.interior == InteriorColour::Period ? kFeaturePeriod : 0u);
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
                                  features.period ? features.period[i] : 0.0f);
        }
    }
}

}  // namespace

void colorize_parallel(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                       uint8_t* rgba_out) {
    constexpr int64_t kChunk = 1 << 16;
    const int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t begin = c * kChunk, n = std::min(kChunk, count - begin);
        colorize(mu + begin, n, palette, view, rgba_out + begin * 4);
    }
}

void colour_frame(const float* mu, const FrameFeatures& features, int width, int height, const PaletteTable& palette,
                  const View& view, double pixel_scale, uint8_t* rgba_out) {
    const int64_t count = int64_t(width) * height;
    if (colouring_is_plain(view.colouring)) {
        colorize_parallel(mu, count, palette, view, rgba_out);
        return;
    }
    colour_layers(mu, features, width, height, palette, view, pixel_scale, 0.0, rgba_out);
}

std::string deep_colouring_problem(const Colouring& c) {
    if (c.base == ColourBase::Stripe)
        return "the stripe colouring averages every iteration of the orbit, which the deep-zoom path skips "
               "(BLA), so it is not available past FP64: use smooth or histogram there, with de and slope";
    if (c.interior == InteriorColour::Period)
        return "the period interior needs each interior orbit's iterations, which the deep-zoom path skips (BLA), "
               "so it is not available past FP64: use --interior=flat there";
    return {};
}

bool drop_deep_unavailable_colouring(Colouring* c) {
    const bool dropped = !deep_colouring_problem(*c).empty();
    if (c->base == ColourBase::Stripe) c->base = ColourBase::Smooth;
    c->interior = InteriorColour::Flat;
    return dropped;
}

double deep_mu_origin(const double* mu, int64_t count) {
    double lowest = -1.0;
    for (int64_t i = 0; i < count; ++i)
        if (mu[i] >= 0.0 && (lowest < 0.0 || mu[i] < lowest)) lowest = mu[i];
    return lowest > 0.0 ? std::floor(lowest) : 0.0;
}

void colour_frame_deep(const double* mu, const float* distance, int width, int height, const PaletteTable& palette,
                       const View& view, double pixel_scale, uint8_t* rgba_out) {
    const int64_t count = int64_t(width) * height;
    const double origin = deep_mu_origin(mu, count);
    std::vector<float> relative(static_cast<size_t>(count));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) relative[size_t(i)] = mu[i] >= 0.0 ? float(mu[i] - origin) : -1.0f;
    colour_layers(relative.data(), FrameFeatures{distance, nullptr, nullptr}, width, height, palette, view,
                  pixel_scale, origin, rgba_out);
}

}  // namespace ms
