// deep_reference.cpp: the MPFR reference orbit, its yardstick loop and its cache
// (see deep_reference.h).
#include "compute/fractal/deep/deep_reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <stdexcept>

#include "compute/fractal/deep/deep_mpfr.h"
#include "compute/fractal/mandelbrot.h"

namespace ms {

namespace {

constexpr int64_t kProgressStride = 4096;  // iterations between progress calls / cancel polls

// The orbit's working set: Z = x + iy, C = cr + i ci, and the squarings' temporaries.
struct OrbitRegisters {
    MpfrNumber x, y, x2, y2, s, cr, ci;
    explicit OrbitRegisters(mpfr_prec_t bits)
        : x(bits), y(bits), x2(bits), y2(bits), s(bits), cr(bits), ci(bits) {}

    // Z := Z^2 + C with three squarings: x' = x^2 - y^2 + cr, y' = (x + y)^2 - x^2 - y^2 + ci.
    void step() {
        mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
        mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_sqr(s.get(), s.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), x2.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), y2.get(), MPFR_RNDN);
        mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
        mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
        mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
    }
};

}  // namespace

bool ReferenceOrbit::fits_double() const {
    // 1e-300 ~ 2^-997: well inside double's normal range, with room for the products of
    // perturbation (2 Z_m z) not to go subnormal while the deltas are above ~1e-290.
    return min_abs.mantissa == 0.0 || min_abs.exponent >= -997;
}

int64_t deep_reference_precision_bits(DeepZoom zoom, int height) {
    double bits = deep_zoom_log2(zoom) + std::log2(double(std::max(height, 1)));
    return std::max<int64_t>(64, int64_t(std::ceil(bits)) + 64);
}

std::shared_ptr<const ReferenceOrbit> compute_reference_orbit(const std::string& center_re,
                                                              const std::string& center_im,
                                                              int64_t precision_bits,
                                                              int64_t max_iterations,
                                                              const ReferenceControl& control) {
    auto start = std::chrono::steady_clock::now();
    auto orbit = std::make_shared<ReferenceOrbit>();
    orbit->center_re = center_re;
    orbit->center_im = center_im;
    orbit->precision_bits = precision_bits;
    orbit->max_iterations = max_iterations;

    OrbitRegisters r{mpfr_prec_t(precision_bits)};
    mpfr_set_decimal(r.cr.get(), center_re);
    mpfr_set_decimal(r.ci.get(), center_im);
    mpfr_set_zero(r.x.get(), 1);
    mpfr_set_zero(r.y.get(), 1);

    FloatExp min_norm{};
    double min_norm_d = 0.0;
    bool have_min = false;
    try {
        size_t reserve = size_t(std::min<int64_t>(max_iterations + 1, int64_t(1) << 20));
        orbit->z.reserve(reserve);
        orbit->z_fe.reserve(reserve);
        orbit->z.push_back({0.0, 0.0});
        orbit->z_fe.push_back({FloatExp{}, FloatExp{}});
        for (int64_t n = 1; n <= max_iterations; ++n) {
            r.step();
            DeepComplex<FloatExp> zf{floatexp_from_mpfr(r.x.get()), floatexp_from_mpfr(r.y.get())};
            DeepComplex<double> zd{fe_to_double(zf.re), fe_to_double(zf.im)};
            orbit->z.push_back(zd);
            orbit->z_fe.push_back(zf);
            // The smallest |Z_m|: in double while the square is a normal double (almost always),
            // in FloatExp where it is not.
            const double norm_d = zd.re * zd.re + zd.im * zd.im;
            if (!have_min || !(norm_d > 1e-300) || norm_d < min_norm_d) {
                FloatExp norm = norm_d > 1e-300 ? fe_from_double(norm_d) : deep_norm(zf);
                if (!have_min || norm < min_norm) {
                    min_norm = norm;
                    min_norm_d = fe_to_double(norm);
                    have_min = true;
                }
            }
            if (norm_d > kBailoutRadius * kBailoutRadius) {
                orbit->escaped = true;
                break;
            }
            if (n % kProgressStride == 0) {
                if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return nullptr;
                if (control.progress) control.progress(n, max_iterations);
            }
        }
    } catch (const std::bad_alloc&) {
        throw std::runtime_error("The reference orbit of " + std::to_string(max_iterations) +
                                 " iterations does not fit in memory.");
    }
    if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return nullptr;
    if (control.progress) control.progress(max_iterations, max_iterations);
    orbit->min_abs = fe_sqrt(min_norm);
    orbit->compute_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return orbit;
}

int64_t bare_mpfr_orbit(const std::string& center_re, const std::string& center_im,
                        int64_t precision_bits, int64_t max_iterations) {
    OrbitRegisters r{mpfr_prec_t(precision_bits)};
    mpfr_set_decimal(r.cr.get(), center_re);
    mpfr_set_decimal(r.ci.get(), center_im);
    mpfr_set_zero(r.x.get(), 1);
    mpfr_set_zero(r.y.get(), 1);
    int64_t n = 1;
    for (; n <= max_iterations; ++n) {
        r.step();
        // The escape test any orbit loop needs, on the squares it already has (one iteration late).
        if (mpfr_cmp_ui(r.x2.get(), 65536) > 0 || mpfr_cmp_ui(r.y2.get(), 65536) > 0) break;
    }
    return std::min(n, max_iterations);
}

DeepComplex<FloatExp> deep_center_offset(const DeepLocation& location, const ReferenceOrbit& orbit) {
    mpfr_prec_t bits = mpfr_prec_t(orbit.precision_bits + 64);
    MpfrNumber a(bits), b(bits);
    DeepComplex<FloatExp> out;
    mpfr_set_decimal(a.get(), location.center_re);
    mpfr_set_decimal(b.get(), orbit.center_re);
    mpfr_sub(a.get(), a.get(), b.get(), MPFR_RNDN);
    out.re = floatexp_from_mpfr(a.get());
    mpfr_set_decimal(a.get(), location.center_im);
    mpfr_set_decimal(b.get(), orbit.center_im);
    mpfr_sub(a.get(), a.get(), b.get(), MPFR_RNDN);
    out.im = floatexp_from_mpfr(a.get());
    return out;
}

std::shared_ptr<const ReferenceOrbit> ReferenceCache::find(const DeepLocation& location, int width,
                                                           int height) {
    const int64_t bits = deep_reference_precision_bits(location.zoom, height);
    const FloatExp spacing = deep_pixel_spacing(location.zoom, height);
    const FloatExp half_width = spacing * fe_from_double(0.5 * width);
    const FloatExp half_height = spacing * fe_from_double(0.5 * height);
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < orbits.size(); ++i) {
        const ReferenceOrbit& orbit = *orbits[i];
        if (orbit.precision_bits < bits) continue;
        if (!orbit.escaped && orbit.max_iterations < location.max_iterations) continue;
        bool same_point = orbit.center_re == location.center_re && orbit.center_im == location.center_im;
        if (!same_point) {
            DeepComplex<FloatExp> offset = deep_center_offset(location, orbit);
            if (fe_abs(offset.re) > half_width || fe_abs(offset.im) > half_height) continue;
        }
        auto found = orbits[i];
        orbits.erase(orbits.begin() + long(i));
        orbits.insert(orbits.begin(), found);
        return found;
    }
    return nullptr;
}

void ReferenceCache::insert(std::shared_ptr<const ReferenceOrbit> orbit) {
    std::lock_guard<std::mutex> lock(mutex);
    orbits.insert(orbits.begin(), std::move(orbit));
    if (orbits.size() > capacity) orbits.resize(capacity);
}

size_t ReferenceCache::size() {
    std::lock_guard<std::mutex> lock(mutex);
    return orbits.size();
}

void ReferenceCache::clear() {
    std::lock_guard<std::mutex> lock(mutex);
    orbits.clear();
}

std::shared_ptr<const ReferenceOrbit> reference_for(ReferenceCache* cache,
                                                    const DeepLocation& location, int width,
                                                    int height, const ReferenceControl& control,
                                                    bool* cached) {
    if (cache) {
        if (auto found = cache->find(location, width, height)) {
            if (cached) *cached = true;
            return found;
        }
    }
    if (cached) *cached = false;
    auto orbit = compute_reference_orbit(location.center_re, location.center_im,
                                         deep_reference_precision_bits(location.zoom, height),
                                         location.max_iterations, control);
    if (orbit && cache) cache->insert(orbit);
    return orbit;
}

}  // namespace ms
