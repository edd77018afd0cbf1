// deep_reference.cpp: the reference orbit's precision, its offset from the view centre and its
// cache (see deep_reference.h); the orbit itself is computed in deep_reference_orbit.cpp.
#include "compute/fractal/deep/deep_reference.h"

#include <algorithm>
#include <cmath>

#include "compute/fractal/numbers/mpfr.h"

namespace ms {

bool ReferenceOrbit::fits_double() const {
    // 1e-300 ~ 2^-997: well inside double's normal range, with room for the products of
    // perturbation (2 Z_m z) not to go subnormal while the deltas are above ~1e-290.
    return min_abs.mantissa == 0.0 || min_abs.exponent >= -997;
}

int64_t deep_reference_precision_bits(DeepZoom zoom, int height) {
    double bits = deep_zoom_log2(zoom) + std::log2(double(std::max(height, 1)));
    return std::max<int64_t>(64, int64_t(std::ceil(bits)) + 64);
}

OrbitMap orbit_map(const DeepLocation& location) {
    OrbitMap map;
    map.formula = location.formula;
    map.julia = location.julia;
    if (location.julia) {
        map.julia_re = location.julia_re;
        map.julia_im = location.julia_im;
    }
    return map;
}

bool operator==(const OrbitMap& a, const OrbitMap& b) {
    return a.formula == b.formula && a.julia == b.julia &&
           (!a.julia || (a.julia_re == b.julia_re && a.julia_im == b.julia_im));
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

std::shared_ptr<const ReferenceOrbit> ReferenceCache::find(const DeepLocation& location, int width, int height,
                                                           bool stopped) {
    const int64_t bits = deep_reference_precision_bits(location.zoom, height);
    const FloatExp spacing = deep_pixel_spacing(location.zoom, height);
    const FloatExp half_width = spacing * fe_from_double(0.5 * width);
    const FloatExp half_height = spacing * fe_from_double(0.5 * height);
    const FloatExp half_diagonal = deep_half_diagonal(location.zoom, width, height);
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < orbits.size(); ++i) {
        const ReferenceOrbit& orbit = *orbits[i];
        if (orbit.precision_bits < bits) continue;
        if (!(orbit.map == orbit_map(location))) continue;
        // A stopped orbit: pixels this frame's size away from the nucleus rebase at the period
        // within the rounding NucleusProbe bounds; farther ones would not.
        if (orbit.period > 0 && (!stopped || orbit.nucleus_distance > half_diagonal)) continue;
        if (orbit.max_iterations < location.max_iterations && orbit.period == 0 &&
            (!orbit.escaped || (orbit.map.julia && !orbit.critical_escaped)))
            continue;
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
    bla.clear();
}

std::shared_ptr<const void> ReferenceCache::find_bla(const ReferenceOrbit* orbit, const std::string& kind,
                                                     double epsilon, FloatExp needed, FloatExp wanted) {
    const FloatExp most = (wanted > needed ? wanted : needed) * fe_from_double(kBlaReuseSlack);
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < bla.size(); ++i) {
        const BlaCacheEntry& e = bla[i];
        if (e.orbit.get() != orbit || e.kind != kind || e.epsilon != epsilon) continue;
        if (e.max_dc < needed || e.max_dc > most) continue;
        BlaCacheEntry found = bla[i];
        bla.erase(bla.begin() + long(i));
        bla.insert(bla.begin(), found);
        return found.table;
    }
    return nullptr;
}

void ReferenceCache::insert_bla(BlaCacheEntry entry) {
    std::lock_guard<std::mutex> lock(mutex);
    bla.insert(bla.begin(), std::move(entry));
    if (bla.size() > bla_capacity) bla.resize(bla_capacity);
}

std::shared_ptr<const ReferenceOrbit> reference_for(ReferenceCache* cache, const DeepLocation& location, int width,
                                                    int height, const ReferenceControl& control, bool* cached) {
    if (cache) {
        if (auto found = cache->find(location, width, height, control.stop_at_nucleus)) {
            if (cached) *cached = true;
            return found;
        }
    }
    if (cached) *cached = false;
    ReferenceControl stop = control;
    if (stop.stop_at_nucleus && stop.nucleus_radius.mantissa == 0.0)
        stop.nucleus_radius = deep_half_diagonal(location.zoom, width, height);
    auto orbit = compute_reference_orbit(location.center_re, location.center_im,
                                         deep_reference_precision_bits(location.zoom, height), location.max_iterations,
                                         stop, orbit_map(location));
    if (orbit && cache) cache->insert(orbit);
    return orbit;
}

ReferencePrefetch::ReferencePrefetch(ReferenceCache* cache, const DeepLocation& location, int width, int height,
                                     ReferenceControl control) {
    control.cancel = &cancel_;
    thread_ = std::thread([this, cache, location, width, height, control] {
        try {
            orbit_ = reference_for(cache, location, width, height, control, nullptr);
        } catch (...) {
            error_ = std::current_exception();
        }
    });
}

ReferencePrefetch::~ReferencePrefetch() {
    cancel_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const ReferenceOrbit> ReferencePrefetch::wait() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    return orbit_;
}

}  // namespace ms
