// deep_reference.h: the reference orbit of perturbation, in MPFR, and its cache.
//
// The reference is one point C (by default the view centre) iterated in full precision,
// Z_0 = 0, Z_{m+1} = Z_m^2 + C, until |Z_m| > kBailoutRadius or max_iterations. Every pixel then
// iterates only its small difference from this orbit (deep_cpu.h). Its precision follows the
// depth (deep_reference_precision_bits): log2(zoom) + log2(height) bits place a pixel, and a
// margin of 64 bits absorbs the orbit's own rounding over long orbits.
// Each Z_m is stored twice, rounded to double and to FloatExp: the double copy feeds the
// double-delta path (while it fits: min_abs tells), the FloatExp copy the deep path.
//
// The formula is a compile-time parameter of the loop (formula.h: each step in MPFR as
// formula_step does it in hardware floats; the bailout is formula_bailout_radius). A Julia set
// (z_0 = pixel, c fixed) takes two orbits of its fixed c (Heiland-Allen, "Deep zoom theory and
// practice (again)", 2022: one reference per critical point, plus the one pixels start from):
//   z       the view centre's orbit, Z_0 = C (the point), Z_{m+1} = f(Z_m) + c: pixels start
//           on it with their offset from C;
//   critical_z  the critical point's orbit, W_0 = 0, W_{m+1} = f(W_m) + c: where a pixel
//           rebases to (deep_perturbation.h), as Mandelbrot's pixels rebase to Z_0 = 0.
//
// Cost: three squarings and five adds per iteration at the working precision (the same count
// as a bare MPFR loop; bench: deep_reference_bench), plus two roundings to store Z_m. The three
// squarings are independent: deep enough, two helper threads take two of them
// (ReferenceControl::threads), and every thread makes the next Z from the three squares itself,
// with the same MPFR operations, so the same orbit bit for bit and one hand-over an iteration.
//
// The cache keeps recent orbits keyed on (reference point text, map, precision, iterations). A frame
// reuses an orbit of its own map whose point lies inside its image (panning), whose precision is at least what
// its depth needs (same or shallower depth) and that ran at least as many iterations (or
// escaped before them, or stopped at a period whose nucleus is within the frame's half
// diagonal of its point). A cancelled computation returns null and never reaches the cache.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/numbers/floatexp.h"

namespace ms {

// The map an orbit iterates: the formula, and for a Julia set its c (text, as DeepLocation).
struct OrbitMap {
    Formula formula = Formula::Mandelbrot;
    bool julia = false;
    std::string julia_re = "0";
    std::string julia_im = "0";
};
OrbitMap orbit_map(const DeepLocation& location);
bool operator==(const OrbitMap& a, const OrbitMap& b);

struct ReferenceOrbit {
    std::string center_re;  // the reference point C, as text
    std::string center_im;
    OrbitMap map;
    int64_t precision_bits = 0;
    int64_t max_iterations = 0;  // what it was asked to run
    bool escaped = false;        // Z_{size-1} escaped; else it ran max_iterations or stopped at period
    // > 0: the orbit stopped at Z_period, the first Z_n with a nucleus of period n (Z_n(c) = 0)
    // within ReferenceControl::nucleus_radius of C; nucleus_distance is Newton's step to it,
    // |(dZ_n/dc)^-1 Z_n|. Every pixel rebases when the reference ends (deep_perturbation.h), so
    // the orbit serves any iteration count, for frames whose half diagonal reaches the nucleus.
    int64_t period = 0;
    FloatExp nucleus_distance;
    std::vector<DeepComplex<double>> z;       // Z_0 .. Z_last, rounded to double
    std::vector<DeepComplex<FloatExp>> z_fe;  // the same in FloatExp
    // Julia sets only (empty otherwise): the critical orbit W_0 = 0, W_{m+1} = f(W_m) + c.
    std::vector<DeepComplex<double>> critical_z;
    std::vector<DeepComplex<FloatExp>> critical_z_fe;
    bool critical_escaped = false;
    FloatExp min_abs;  // smallest |Z_m| over m >= 1, and |W_m| (0 if one is 0)
    double compute_ms = 0.0;

    int64_t last_index() const { return int64_t(z.size()) - 1; }
    int64_t critical_last_index() const { return int64_t(critical_z.size()) - 1; }
    // Every nonzero Z_m is a normal double (>= 1e-300): the double path may use z.
    bool fits_double() const;
};

// Progress is called from the computing thread with (iterations done, iterations asked).
// threads: how many threads share each iteration's three squarings (degree-2 formulas: Mandelbrot,
// the Burning Ship, the Tricorn; the Multibrots always run on one): 1 the calling thread alone;
// 2 the calling thread and a helper ((x + y)^2 on the helper); 3 or more the calling thread and
// two helpers (one squaring each). 0 picks (reference_threads): three from
// kReferenceThreeThreadMinBits where the machine has 3 or more hardware threads, two from
// kReferenceTwoThreadMinBits where it has 2, else one; and with helpers it times blocks of
// iterations with and without them and runs the faster. The orbit is the same bit for bit
// either way; the helpers live only while the orbit runs.
// nucleus_radius > 0: the parameter plane's orbit stops at the first period whose nucleus lies
// within that distance of C (ReferenceOrbit::period). Zero (the default): compute_reference_orbit
// runs the orbit until it escapes or reaches max_iterations, and reference_for, while
// stop_at_nucleus holds, passes the frame's half diagonal. stop_at_nucleus false: reference_for
// neither stops the orbit nor takes a stopped one from the cache (perturbation without rebasing
// needs the whole orbit; benches compare the two).
struct ReferenceControl {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(int64_t, int64_t)> progress;
    int threads = 0;
    FloatExp nucleus_radius{};
    bool stop_at_nucleus = true;
};
// Below these precisions a squaring takes too little time for the threads to meet every
// iteration and still gain: each meeting passes the threads' squares between cores, which costs
// about as much as a squaring of a few thousand bits. From them the automatic choice
// starts the helpers and then keeps timing the orbit with and without them (its guard), so a
// machine whose cores are busy falls back to one thread. From kReferenceThreeThreadMinBits the
// Mandelbrot set's orbit also makes its next x + y from the squares, which lets each of three
// threads make one part of the next Z (deep_reference_orbit.cpp). Measured by
// DeepBench.ReferenceThreads (1e1086 and e10000 orbits) and DeepBench.ReferenceTeamByPrecision;
// see docs/performance.md.
inline constexpr int64_t kReferenceThreeThreadMinBits = 3072;
inline constexpr int64_t kReferenceTwoThreadMinBits = 3072;
// The threads an orbit of formula `formula` at `bits` runs on under ReferenceControl::threads
// `threads` (1, 2 or 3).
int reference_threads(Formula formula, int64_t bits, int threads);

int64_t deep_reference_precision_bits(DeepZoom zoom, int height);

// Null when cancelled. Throws std::runtime_error with a sentence when memory runs out.
std::shared_ptr<const ReferenceOrbit> compute_reference_orbit(const std::string& center_re,
                                                              const std::string& center_im, int64_t precision_bits,
                                                              int64_t max_iterations,
                                                              const ReferenceControl& control = {},
                                                              const OrbitMap& map = {});

// The same loop without storing anything: three squarings and the adds per iteration, the
// yardstick compute_reference_orbit is measured against. Returns the iterations run.
int64_t bare_mpfr_orbit(const std::string& center_re, const std::string& center_im, int64_t precision_bits,
                        int64_t max_iterations);

// (view centre - reference point), exact to the reference's precision, in FloatExp.
DeepComplex<FloatExp> deep_center_offset(const DeepLocation& location, const ReferenceOrbit& orbit);

// A BLA table (deep_bla.h) kept with the orbit it was built from. A table built for frames whose
// |dc| <= max_dc is valid for every frame with a smaller largest |dc| (its radii only shrink as
// max_dc grows), so a frame reuses one built for up to kBlaReuseSlack times its own max_dc:
// panning back, zooming out a little, a smaller image, the same view again (another colouring,
// Compare, an export at the window's size). Its radii are then a little smaller than the frame's
// own table's would be: the same accuracy, a few fewer skips.
inline constexpr double kBlaReuseSlack = 1.5;
struct BlaCacheEntry {
    std::shared_ptr<const ReferenceOrbit> orbit;
    std::string kind;  // the table's type and which orbit of the reference
    double epsilon = 0.0;
    FloatExp max_dc;                    // the frames' largest |dc| it was built for
    std::shared_ptr<const void> table;  // a BlaTable<T, L> of that kind
};

struct ReferenceCache {
    size_t capacity = 4;  // orbits kept, most recently used first
    // BLA tables kept (one can take 100 MB at 1e1086): host tables (deep_cpu) and device tables
    // (deep_cuda) alike, so Compare keeps a Julia set's two of each.
    size_t bla_capacity = 4;

    // An orbit usable for `location` at `height` pixels (see the header comment), or null.
    // stopped: whether an orbit that stopped at a period may serve.
    std::shared_ptr<const ReferenceOrbit> find(const DeepLocation& location, int width, int height,
                                               bool stopped = true);
    void insert(std::shared_ptr<const ReferenceOrbit> orbit);
    size_t size();
    void clear();
    // A table of `kind` for `orbit` built for a max_dc in [needed, kBlaReuseSlack x max(needed,
    // wanted)], or null. wanted: the |dc| the caller would build a new table for (its headroom).
    std::shared_ptr<const void> find_bla(const ReferenceOrbit* orbit, const std::string& kind, double epsilon,
                                         FloatExp needed, FloatExp wanted = {});
    void insert_bla(BlaCacheEntry entry);

    std::mutex mutex;
    std::vector<std::shared_ptr<const ReferenceOrbit>> orbits;
    std::vector<BlaCacheEntry> bla;
};

// One orbit for several renderers that each keep a ReferenceCache of their own (a video's frame
// sources, one a device: compute/video/video_job.h): the first that needs it computes it with
// the lock held, the others wait and then take that one.
struct SharedOrbit {
    std::mutex mutex;
    std::shared_ptr<const ReferenceOrbit> orbit;
};

// A frame's orbit computed on a thread of its own from the moment a command knows its view, while
// the command goes on with what does not need it: the CUDA driver's start (a few hundred
// milliseconds a device), the device checks, the contexts. The orbit goes into `cache`, where the
// frame's own reference_for finds it. `control` is the frame's (its cancel is replaced by the
// prefetch's own). Destroyed before wait(): cancelled and joined.
class ReferencePrefetch {
public:
    ReferencePrefetch(ReferenceCache* cache, const DeepLocation& location, int width, int height,
                      ReferenceControl control);
    ~ReferencePrefetch();
    ReferencePrefetch(const ReferencePrefetch&) = delete;
    ReferencePrefetch& operator=(const ReferencePrefetch&) = delete;

    // Waits for the orbit; rethrows the computation's exception. Null only if cancelled.
    std::shared_ptr<const ReferenceOrbit> wait();

private:
    std::atomic<bool> cancel_{false};
    std::shared_ptr<const ReferenceOrbit> orbit_;
    std::exception_ptr error_;
    std::thread thread_;
};

// find(), else compute at the view centre and insert (unless cancelled: then null).
// *cached says which. The orbit stops at a period whose nucleus is within the frame's half
// diagonal of the centre (control.nucleus_radius, when it is 0).
std::shared_ptr<const ReferenceOrbit> reference_for(ReferenceCache* cache, const DeepLocation& location, int width,
                                                    int height, const ReferenceControl& control, bool* cached);

}  // namespace ms
