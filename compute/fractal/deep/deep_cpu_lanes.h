// deep_cpu_lanes.h: deep_cpu's row loop for double deltas (every formula, its parameter plane and
// Julia set, rebasing, BLA, with or without the distance estimate and the atom period), with one
// pixel per SIMD lane (Highway; AVX-512 runs 8 doubles a vector, for the Mandelbrot set's
// parameter plane) and four vectors in flight.
//
// Why: deep_iterate_pixel (deep_perturbation.h) is one pixel at a time, and each perturbation
// step waits on the one before (add, multiply, subtract, add: four latencies in a row), so a
// core sits mostly idle. Lanes are independent pixels: while one vector's
// multiply waits, the other's runs, and each instruction does 8 pixels' work.
//
// Same escape counts and smooth values as deep_iterate_pixel, bit for bit: every lane performs
// that loop's sequence of IEEE operations (this library is built with -ffp-contract=off), takes
// the BLA skip bla_lookup picks (the lookup itself runs per lane, scalar, from the lanes whose
// level-0 entry is valid; the skip's A z + B dc is then computed in the vector in the same
// order), and rebases under the same conditions. With the distance estimate each lane carries the
// derivative D as deep_iterate_pixel's kDistance loop does (deep_derivative.h: the step's
// 2 w D + spacing, the skip's A D + B spacing, the same products and sums; the Burning Ship's and
// the Tricorn's 2x2 Jacobian, J_f(w) D + spacing I and A D + B spacing) and writes the same
// estimate; with the atom period, its smallest |Z_m + z|^2 and that n, as the kAtom loop tests
// them (deep_atom.h). Lanes that finish a pixel take the row's next one. tests/fractal/deep/test_deep_lanes.cpp
// holds the two loops to each other.
// On x86 CPUs with AVX-512, deep_cpu_lanes_avx512.cpp runs the same loop from the BLA table's lane
// layout (BlaTable::lane_points, lane_chain): the reference points as one load a lane, the skip's
// level found by one vector compare, the lanes' state in registers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/deep_perturbation.h"

namespace ms {

struct DeepLanesRow {
    // A formula the lanes take (deep_lanes_take); the AVX-512 loop takes the Mandelbrot set's
    // parameter plane, the Highway loop every one.
    Formula formula = Formula::Mandelbrot;
    const DeepComplex<double>* orbit = nullptr;  // Z_0 .. Z_last (Z_0 = 0)
    int64_t last_index = 0;
    // The table (no levels: BLA off): bla for the formulas whose linear maps are complex numbers,
    // bla_matrix for the Burning Ship and the Tricorn (deep_formula_bla_is_matrix).
    const BlaView<double, DeepComplex<double>>* bla = nullptr;
    const BlaView<double, DeepMatrix<double>>* bla_matrix = nullptr;
    const double* bla_r2 = nullptr;  // the table's compact radii (BlaTable::r2); null with BLA off
    // The table's lane layout (BlaTable::lane_points, lane_chain); null: the Highway loop below
    // runs instead of the AVX-512 one (deep_cpu_lanes_avx512.cpp).
    const BlaLanePoint<double>* lane_points = nullptr;
    const double* lane_chain = nullptr;
    const double* dc_re = nullptr;  // per pixel: its offset from the reference point
    const double* dc_im = nullptr;
    int count = 0;  // pixels
    int64_t max_iterations = 0;
    int64_t* escape_count = nullptr;  // out, per pixel: as deep_iterate_pixel returns
    double* mu = nullptr;             // out, per pixel
    // The distance estimate (deep_perturbation.h's DeepDistanceOutput): the derivative's unit,
    // and per pixel the estimate out; null: none.
    double spacing = 0.0;
    float* distance = nullptr;
    // The atom period (deep_atom.h): the table's atom steps (entry for entry) and per pixel the
    // period out; null: none.
    const DeepAtomStep<double>* atom_steps = nullptr;
    float* atom_period = nullptr;
    // A Julia set of the formula (the Highway loop): dc is the pixel's offset from Z_0, and a
    // lane's first rebase moves it onto the critical orbit W (W_0 = 0) and W's table.
    bool julia = false;
    const DeepComplex<double>* orbit_w = nullptr;
    int64_t last_index_w = 0;
    const BlaView<double, DeepComplex<double>>* bla_w = nullptr;
    const BlaView<double, DeepMatrix<double>>* bla_matrix_w = nullptr;
    const double* bla_r2_w = nullptr;
    const DeepAtomStep<double>* atom_steps_w = nullptr;
};

// The formulas whose rows the lanes take, double (here) and FloatExp (deep_cpu_lanes_floatexp.h),
// with the distance estimate or without:
// the Mandelbrot set and the Multibrots (z^d + c; the Highway loop writes their step in Horner
// form), and the Burning Ship and the Tricorn (their folded steps, skips by real 2x2 matrices, and
// the estimate's 2x2 Jacobian). A new formula runs the one-pixel loop until the lanes learn its
// step.
constexpr bool deep_lanes_take(Formula formula) {
    switch (formula) {
    case Formula::Mandelbrot:
    case Formula::Multibrot3:
    case Formula::Multibrot4:
    case Formula::Multibrot5:
    case Formula::Multibrot6:
    case Formula::Multibrot7:
    case Formula::Multibrot8:
    case Formula::BurningShip:
    case Formula::Tricorn: return true;
    default: return false;
    }
}

// The row's table, of the formula's linear maps L (complex or matrix).
template <class L>
void deep_lanes_set_table(const BlaView<double, L>* bla, DeepLanesRow* row) {
    if constexpr (std::is_same_v<L, DeepMatrix<double>>) row->bla_matrix = bla;
    else row->bla = bla;
}
template <class L>
const BlaView<double, L>* deep_lanes_table(const DeepLanesRow& row, bool critical) {
    if constexpr (std::is_same_v<L, DeepMatrix<double>>) return critical ? row.bla_matrix_w : row.bla_matrix;
    else return critical ? row.bla_w : row.bla;
}

// A row over an orbit and its table (null: BLA off; bla is its view), with the table's lane
// layout where it has one; the caller sets the pixels, their outputs and the estimate's fields.
template <class L>
DeepLanesRow deep_lanes_job(const DeepComplex<double>* orbit, int64_t last_index, const BlaView<double, L>& bla,
                            const BlaTable<double, L>* table, int64_t max_iterations) {
    DeepLanesRow job;
    job.orbit = orbit;
    job.last_index = last_index;
    deep_lanes_set_table(&bla, &job);
    job.bla_r2 = table ? table->r2.data() : nullptr;
    if (table && !table->lane_points.empty()) {
        job.lane_points = table->lane_points.data();
        job.lane_chain = table->lane_chain.data();
    }
    job.max_iterations = max_iterations;
    return job;
}

// A Julia set's row: its critical orbit W (Z_0 .. last), W's table (bla, the view of critical).
template <class L>
void deep_lanes_julia(const DeepComplex<double>* W, int64_t last, const BlaView<double, L>& bla,
                      const BlaTable<double, L>& critical, DeepLanesRow* job) {
    job->julia = true;
    job->orbit_w = W;
    job->last_index_w = last;
    if constexpr (std::is_same_v<L, DeepMatrix<double>>) job->bla_matrix_w = &bla;
    else job->bla_w = &bla;
    job->bla_r2_w = critical.r2.data();
}

// bla_lookup's choice (the same entry or null), reading the radii from r2 (BlaTable::r2) and
// an entry's length only where its level's 2^k exceeds max_length.
template <class L>
const BlaStep<double, L>* deep_lanes_lookup(const BlaView<double, L>& bla, const double* r2, int64_t m, double z2,
                                            int64_t max_length) {
    if (bla.levels == 0 || m < 1 || m > bla.level_size[0]) return nullptr;
    int64_t best = -1, ix = m - 1;
    for (int level = 0; level < bla.levels; ++level) {
        if ((ix << level) != m - 1 || ix >= bla.level_size[level]) break;
        const int64_t i = bla.level_offset[level] + ix;
        if (!(z2 < r2[i])) break;
        if ((level >= 62 || (int64_t(1) << level) > max_length) && bla.entries[i].length > max_length) break;
        best = i;
        ix >>= 1;
    }
    return best < 0 ? nullptr : bla.entries + best;
}

// A lanes row's pixels (DeepLanesRow or DeepLanesRowFloatExp): count of them, written to
// escape_count and mu, and with a distance array (null: none) the estimate in units of spacing.
template <class Job, typename T>
void deep_lanes_outputs(int count, int64_t* escape_count, double* mu, T spacing, float* distance, Job* job) {
    job->count = count;
    job->escape_count = escape_count;
    job->mu = mu;
    job->spacing = spacing;
    job->distance = distance;
}

// Pixel q of a lanes row (DeepLanesRow or DeepLanesRowFloatExp) ends inside, at the iteration
// limit or with no iteration to run, as deep_iterate_pixel leaves it: no escape count, no smooth
// value, an estimate of 0, and atom_n as its atom period (where the row has those outputs).
template <class Job>
void deep_lanes_inside(const Job& row, int q, int64_t atom_n) {
    row.escape_count[q] = -1;
    row.mu[q] = -1.0;
    if (row.distance) row.distance[q] = 0.0f;
    if (row.atom_period) row.atom_period[q] = float(atom_n);
}

// Iterates the row's pixels; adds to counters as deep_iterate_pixel does. With the lane layout
// (row.lane_points) on a CPU with AVX-512, deep_lanes_row_avx512 runs; else the Highway loop.
void deep_lanes_row(const DeepLanesRow& row, DeepPixelCounters* counters);

// deep_cpu_lanes_avx512.cpp: false (nothing done) where the CPU or the build has no AVX-512.
bool deep_lanes_row_avx512(const DeepLanesRow& row, DeepPixelCounters* counters);

// The SIMD target Highway picked at run time ("AVX3", "AVX2", ...).
const char* deep_lanes_target();

}  // namespace ms
