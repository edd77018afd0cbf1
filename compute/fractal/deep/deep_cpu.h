// deep_cpu.h: deep-zoom frames on the CPU, two siblings computing the same picture:
//   deep_cpu_reference  brute force: every pixel iterated in MPFR at a given precision
//                       (slow; the truth the tests hold the fast path to)
//   deep_cpu            MPFR reference orbit (deep_reference.h), then per pixel perturbation
//                       with rebasing and BLA skips (deep_bla.h), OpenMP over rows
//
// Both produce per pixel the escape count k (int64; -1 inside) and the smooth value
// mu = k + 1 - log2(ln|z_k|) in double (exact fractions at counts past 2^24), with the
// conventions of compute/fractal/direct/direct.h (bailout 256, z_0 = 0, escape at the first k with
// |z_k| > 256, interior mu = -1). Pixel sampling is View's (deep_location.h).
// Every formula of formula.h and the Julia set of each go through the same pipeline, with
// formula_math.h's conventions (bailout 64 and log_d in mu for the Multibrots; a Julia pixel
// starts at z_0 = pixel with c fixed); deep_perturbation.h has each formula's step.
//
// Perturbation: with the reference Z_m and a pixel's dc = c - C, the pixel's z_n = Z_m + z:
//     z <- 2 Z_m z + z^2 + dc,   m <- m + 1
// Rebasing (Zhuoran, 2021): when |Z_m + z| < |z|, or m reaches the orbit's end, z <- Z_m + z and
// m <- 0; one reference serves the whole frame and no glitch detection is needed.
// Number type: double deltas while the pixel spacing is above 1e-290 and the orbit fits double
// (ReferenceOrbit::fits_double); FloatExp past that. One template runs both.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/colour/palette.h"

namespace ms {

struct DeepDeviceFrame;  // deep_device_frame.h

enum class DeepNumberType { Auto, Double, FloatExp };
const char* deep_number_type_name(DeepNumberType type);  // "auto", "double", "floatexp"

// A rectangle of pixels of a frame: columns [x, x + width), rows [y, y + height), row 0 on top.
struct DeepPixelRect {
    int x = 0, y = 0;
    int width = 0, height = 0;  // 0 x 0: the whole frame
    bool empty() const { return width <= 0 || height <= 0; }
};

struct DeepRenderOptions {
    bool use_bla = true;
    // false: plain perturbation, rebasing only where the orbit ends (the way renderers without
    // glitch detection go wrong; tests show the difference at a location that glitches).
    // Mandelbrot's parameter plane only (a test of it; others throw std::invalid_argument).
    bool rebase = true;
    // The reference stops at the first period whose nucleus is in the frame (ReferenceOrbit::period);
    // false: it runs in full (so does it without rebasing).
    bool stop_reference_at_period = true;
    double bla_epsilon = 0.0;  // 0: kBlaDefaultEpsilon
    DeepNumberType number_type = DeepNumberType::Auto;
    // Also the exterior distance estimate (DeepFrame::distance; deep_perturbation.h's
    // kDistance loop, deep_derivative.h), for the DE colouring layer: every formula and Julia set.
    bool distance = false;
    // Also the atom-domain period (DeepFrame::atom; deep_atom.h, deep_perturbation.h's kAtom
    // loop), for the atom colouring layer: every formula and Julia set.
    bool atom = false;
    int threads = 0;                  // 0: all cores
    ReferenceCache* cache = nullptr;  // null: compute the reference for this frame only
    // Only this part of the width x height frame (a pan's newly exposed strips); empty: all of
    // it. The outputs are the region's size, and each pixel is the full frame's bit for bit: its
    // dc comes from its place in the whole frame, and the BLA table is the whole frame's.
    DeepPixelRect region;
    // BLA headroom (the window's drags): build the table for a largest |dc| of at least this many
    // pixel spacings, and reuse a kept one built for up to kBlaReuseSlack times that (0: the
    // frame's own largest |dc|, as render and bench do). See deep_frame_bla.
    double bla_min_radius_pixels = 0.0;
    // deep_cuda only: build the BLA tables on the GPU (deep_bla_cuda.h; equal bit for bit to the
    // CPU's, and never copied); false: on the CPU and copied to the device (the benchmark's
    // baseline, deep_bench_bla). deep_cpu always builds its own on the CPU.
    bool bla_on_device = true;
    // deep_cuda only: the CUDA stream (a cudaStream_t, deep_cuda.h's DeepCudaStream) its copies
    // and kernel run on; null: the default stream.
    void* cuda_stream = nullptr;
    // deep_cuda only: the CUDA device (an index of cudaGetDeviceCount's) the frame runs on, with
    // that device's own copy of the orbit and BLA tables; -1: the calling thread's current device.
    // A cuda_stream given with it must belong to that device.
    int device = -1;
    // deep_cuda only: the frame in passes (deep_cuda.cu) where cuda_pass_steps > 0: at most that
    // many perturbation steps a pixel a pass, the pixels still running packed into the next
    // pass's warps, and a last pass without a budget once no more than cuda_pass_final_pixels
    // are left (0: 65536; one pass for a frame no larger). 0 steps: one pass, the default (the
    // faster, deep_bench_cuda_passes shows; see deep_cuda.cu). Tests make them small.
    int64_t cuda_pass_steps = 0;
    int64_t cuda_pass_final_pixels = 0;
    // deep_cuda only: also leave the frame's mu and distance estimate in this device memory
    // (deep_device_frame.h), for colouring on the device; null: the device copies are freed.
    DeepDeviceFrame* device_frame = nullptr;
    // deep_cuda only, with a device_frame: false leaves the host frame's outputs empty (nothing
    // copied back; its stats are filled), for a caller that only colours on the device (a frame
    // spread over devices, deep_multi_gpu.h).
    bool host_outputs = true;
    const std::atomic<bool>* cancel = nullptr;                 // polled between rows and in the reference
    std::function<void(int64_t, int64_t)> reference_progress;  // (done, total)
    std::function<void(int, int)> row_progress;                // (rows done, rows), thread-safe
    // deep_cpu only: called with each finished row (y, its escape counts, its mu), from the
    // OpenMP thread that computed it, so a window can show rows as they come.
    std::function<void(int, const int64_t*, const double*)> row_done;
    // deep_cpu only: compute only the rows y with y % row_stride == row_offset (the others keep
    // -1), with the whole frame's reference, BLA table and pixel grid: a benchmark's sample of
    // the frame (deep_bench_plain). 1: every row.
    int row_stride = 1;
    int row_offset = 0;
};

struct DeepFrameStats {
    uint64_t iterations = 0;          // sum over pixels of the iterations they ran (k or max)
    uint64_t bla_iterations = 0;      // of those, covered by BLA skips
    uint64_t bla_skips = 0;           // BLA steps taken
    uint64_t perturbation_steps = 0;  // ordinary perturbation steps
    uint64_t rebases = 0;
    uint64_t escaped_pixels = 0;
    int64_t reference_iterations = 0;  // the orbit's last index
    int64_t reference_period = 0;      // > 0: the orbit stopped at this period (ReferenceOrbit::period)
    int64_t precision_bits = 0;        // the reference's
    bool reference_cached = false;
    bool bla_cached = false;     // the BLA table(s) came from the cache, not built
    bool bla_on_device = false;  // the table(s) were built on the GPU (deep_cuda), not the CPU
    int bla_levels = 0;
    DeepNumberType number_type = DeepNumberType::Double;  // what ran
    double reference_ms = 0.0;                            // 0 when cached
    double bla_ms = 0.0;
    double pixels_ms = 0.0;  // the per-pixel loop alone
    double frame_ms = 0.0;   // all of it, reference and BLA included
    bool cancelled = false;
    // Set by the window's worker on a whole-pixel pan (deep_pan.h): the pixels taken from the
    // frame before instead of computed, and the pan; the counts above are then the strips'.
    uint64_t reused_pixels = 0;
    int pan_x = 0, pan_y = 0;
    // And where the pan's time went (frame_ms is all of it): the strips' frames (kernel, copies),
    // moving the last frame's values and colours, colouring the strips, and the display's copy.
    double pan_strips_ms = 0.0, pan_move_ms = 0.0, pan_colour_ms = 0.0, pan_copy_ms = 0.0;
    // deep_cuda: bytes of the orbit and the BLA tables copied to the device for this frame (0 when
    // the device still held them from an earlier frame).
    uint64_t device_bytes_copied = 0;
};

struct DeepFrame {
    int width = 0;  // of the outputs: the region's (options.region) or the frame's
    int height = 0;
    DeepPixelRect region;               // where the outputs lie in the frame (all of it without a region)
    std::vector<int64_t> escape_count;  // row-major; -1 inside
    std::vector<double> mu;             // row-major; -1 inside
    // With options.distance: |z| ln|z| / |dz/dc| at the escape (dz/dz_0 on a Julia set;
    // |z|^2 ln|z| / |J^T z| for the Burning Ship and the Tricorn), in pixels of this frame
    // (colouring.h's DE layer); 0 inside. Empty otherwise.
    std::vector<float> distance;
    // With options.atom: the n >= 1 of the smallest |z_n| over the orbit (escaped or not), as a
    // float. Empty otherwise.
    std::vector<float> atom;
    DeepFrameStats stats;
    std::shared_ptr<const ReferenceOrbit> reference;  // the orbit the pixels ran against (null: cancelled)
};

// The number type the frame would run in (Auto resolved) for a given orbit.
DeepNumberType deep_resolve_number_type(DeepZoom zoom, int height, const ReferenceOrbit& orbit,
                                        DeepNumberType requested);

// Throws std::invalid_argument with the sentence of validate_deep_location on a bad location.
DeepFrame deep_cpu(const DeepLocation& location, int width, int height, const DeepRenderOptions& options = {});

// Brute force at `precision_bits` (0: deep_reference_precision_bits + 32). OpenMP over pixels.
// distance: also the derivative in MPFR (dz/dc, dz/dz_0 on a Julia set, the 2x2 Jacobian for the
// Burning Ship and the Tricorn) and the distance estimate from it (frame.distance, as deep_cpu's).
// atom: also the atom period of every orbit value, none skipped (frame.atom).
DeepFrame deep_cpu_reference(const DeepLocation& location, int width, int height, int64_t precision_bits = 0,
                             bool distance = false, bool atom = false);

// --- shared by deep_cpu and deep_cuda --------------------------------------------------------
// What a frame computes before its pixels: checks, output buffers (frame, the region's size), the reference
// (cached or new; null when cancelled, with stats.cancelled set), the reference's offset from the
// view centre, the pixel spacing and the largest |dc|. Throws std::invalid_argument with one
// sentence on a bad location or size.
struct DeepFrameSetup {
    std::shared_ptr<const ReferenceOrbit> orbit;
    OrbitMap map;                  // the formula, Julia or not
    DeepComplex<FloatExp> offset;  // view centre - reference point
    FloatExp spacing;
    FloatExp max_dc;
    DeepPixelRect region;  // options.region, or the whole frame
    int frame_width = 0;   // the whole frame's size (pixel dc's are placed in it)
    int frame_height = 0;
};
// How a frame's reference orbit is computed under `options` (deep_frame_setup's, and a command's
// ReferencePrefetch for the same frame).
ReferenceControl deep_reference_control(const DeepRenderOptions& options);
// outputs false: the frame's vectors are left empty for the caller to size (deep_frame_outputs), as
// deep_cuda does while its kernel runs.
DeepFrameSetup deep_frame_setup(const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                                DeepFrame* frame, bool outputs = true);
// Sizes the frame's outputs for its region: counts and mu -1 (inside), the distance and the atom
// period 0 where options ask for them; nothing where they already have that size.
void deep_frame_outputs(const DeepRenderOptions& options, DeepFrame* frame);
// Builds the BLA table (when options.use_bla) for the frame, and for a Julia set the critical
// orbit's (critical_table); false when cancelled. L: DeepBlaLinear of the frame's formula
// (deep_perturbation.h): complex for the Mandelbrot and the Multibrots, 2x2 matrices for the
// Tricorn and the Burning Ship.
// With options.cache, a table kept there for the same orbit is reused when it was built for a
// largest |dc| of at most kBlaReuseSlack times the frame's (deep_reference.h), and a new one is
// kept; stats->bla_cached says which, and bla_ms is 0 when both tables came from the cache.
// options.bla_min_radius_pixels raises the |dc| a new table is built for and the most a kept
// one may have been built for: a window frame panned away from its reference still finds it.
// The tables are null with BLA off (bla_view gives no levels then).
// What a frame's BLA tables are looked up and built with (deep_frame_bla, and deep_cuda's
// device tables under the same cache rules): the epsilon, the |dc| a kept table must hold
// (needed: the frame's largest) and the |dc| a new one is built for (build: with the headroom).
struct DeepBlaRequest {
    double epsilon = 0.0;
    FloatExp needed_dc;
    FloatExp build_dc;
};
DeepBlaRequest deep_bla_request(const DeepFrameSetup& setup, const DeepRenderOptions& options);

// The rules deep_frame_bla and deep_cuda's device tables share: each table (the orbit's, and a
// Julia set's critical orbit's) is taken from options.cache under `kind` + " reference" or
// " critical", else made by build(critical, request) (a shared_ptr<Table>, null when cancelled)
// and kept there; stats' BLA fields are set (on_device: where `build` builds). False when
// cancelled (both tables null, stats->cancelled). Table: BlaTable or DeviceBlaTable (a view and
// build_ms). Null tables with BLA off.
template <class Table, class Build>
bool deep_frame_tables(const DeepFrameSetup& setup, const DeepRenderOptions& options, const std::string& kind,
                       bool on_device, Build&& build, std::shared_ptr<const Table>* table,
                       std::shared_ptr<const Table>* critical_table, DeepFrameStats* stats) {
    table->reset();
    critical_table->reset();
    if (!options.use_bla) return true;
    const DeepBlaRequest request = deep_bla_request(setup, options);
    bool all_cached = true;
    double build_ms = 0.0;
    auto get = [&](bool critical, std::shared_ptr<const Table>* out) {
        const std::string key = kind + (critical ? " critical" : " reference");
        if (options.cache) {
            if (auto kept = options.cache->find_bla(setup.orbit.get(), key, request.epsilon, request.needed_dc,
                                                    request.build_dc)) {
                *out = std::static_pointer_cast<const Table>(kept);
                return true;
            }
        }
        all_cached = false;
        std::shared_ptr<Table> built = build(critical, request);
        if (!built) return false;
        build_ms += built->build_ms;
        if (options.cache) options.cache->insert_bla({setup.orbit, key, request.epsilon, request.build_dc, built});
        *out = std::move(built);
        return true;
    };
    if (!get(false, table) || (setup.map.julia && !get(true, critical_table))) {
        table->reset();
        critical_table->reset();
        stats->cancelled = true;
        return false;
    }
    stats->bla_ms = build_ms;
    stats->bla_cached = all_cached;
    stats->bla_on_device = on_device;
    stats->bla_levels = (*table)->view.levels;
    return true;
}
template <typename T, typename L>
bool deep_frame_bla(const DeepFrameSetup& setup, const DeepRenderOptions& options,
                    std::shared_ptr<const BlaTable<T, L>>* table, std::shared_ptr<const BlaTable<T, L>>* critical_table,
                    DeepFrameStats* stats);

template <typename T>
const DeepComplex<T>* deep_orbit_data(const ReferenceOrbit& orbit);
template <>
inline const DeepComplex<double>* deep_orbit_data<double>(const ReferenceOrbit& orbit) {
    return orbit.z.data();
}
template <>
inline const DeepComplex<FloatExp>* deep_orbit_data<FloatExp>(const ReferenceOrbit& orbit) {
    return orbit.z_fe.data();
}
// A Julia set's critical orbit (null elsewhere).
template <typename T>
const DeepComplex<T>* deep_critical_data(const ReferenceOrbit& orbit);
template <>
inline const DeepComplex<double>* deep_critical_data<double>(const ReferenceOrbit& orbit) {
    return orbit.critical_z.empty() ? nullptr : orbit.critical_z.data();
}
template <>
inline const DeepComplex<FloatExp>* deep_critical_data<FloatExp>(const ReferenceOrbit& orbit) {
    return orbit.critical_z_fe.empty() ? nullptr : orbit.critical_z_fe.data();
}

// Calls fn.template operator()<F, kJulia>() for the formula and plane of `map`: the one runtime
// choice of a frame, made before its pixels (each instantiation is its own loop).
template <typename Fn>
decltype(auto) deep_dispatch_formula(const OrbitMap& map, Fn&& fn) {
#define MS_DEEP_FORMULA_CASE(F) \
    case F: return map.julia ? fn.template operator()<F, true>() : fn.template operator()<F, false>();
    switch (map.formula) {
        MS_DEEP_FORMULA_CASE(Formula::Multibrot3)
        MS_DEEP_FORMULA_CASE(Formula::Multibrot4)
        MS_DEEP_FORMULA_CASE(Formula::Multibrot5)
        MS_DEEP_FORMULA_CASE(Formula::Multibrot6)
        MS_DEEP_FORMULA_CASE(Formula::Multibrot7)
        MS_DEEP_FORMULA_CASE(Formula::Multibrot8)
        MS_DEEP_FORMULA_CASE(Formula::BurningShip)
        MS_DEEP_FORMULA_CASE(Formula::Tricorn)
    default: break;
    }
#undef MS_DEEP_FORMULA_CASE
    return map.julia ? fn.template operator()<Formula::Mandelbrot, true>()
                     : fn.template operator()<Formula::Mandelbrot, false>();
}
template <typename T>
T deep_from_floatexp(FloatExp x);
template <>
inline double deep_from_floatexp<double>(FloatExp x) {
    return fe_to_double(x);
}
template <>
inline FloatExp deep_from_floatexp<FloatExp>(FloatExp x) {
    return x;
}

// Smooth values (deep_cpu's mu) to RGBA8 through a palette, as colourize() does for View, in
// double all the way: position = mu * density/100 * table size + offset * table size.
void colourize_deep(const double* mu, int64_t count, const PaletteTable& palette, double palette_density,
                    double palette_offset, uint8_t* rgba_out);

}  // namespace ms
