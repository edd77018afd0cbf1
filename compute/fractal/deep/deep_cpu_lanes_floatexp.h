// deep_cpu_lanes_floatexp.h: deep_cpu's row loop for FloatExp deltas (zooms past 1e290) with one
// pixel per SIMD lane: every formula, its parameter plane and Julia set, rebasing and BLA: escape
// counts, smooth values and, where asked, the distance estimate and the atom period.
//
// Why: a FloatExp operation is a double operation plus the exponent's bookkeeping (fe_make's
// normalisation, the alignment of a sum, fe_fma's cases): a chain of dependent integer and
// floating-point instructions with branches, one pixel at a time. In lanes the bookkeeping runs
// without branches (each case computed, a blend picks) on 8 pixels an instruction with AVX-512
// (4 with AVX2), about 2x the one-pixel loop's speed at 4e533 and 1e1086 (docs/performance.md).
//
// Same escape counts and smooth values as deep_iterate_pixel<FloatExp>, bit for bit: each vector
// operation is floatexp.h's, case for case (fe_make, operator+, operator*, fe_fma, operator<),
// each lane runs the one-pixel loop's sequence of them, a skip is the one
// bla_lookup_above_first picks, and escapes and rebases are decided as there. With the distance
// estimate each lane carries the derivative as the kDistance loop does (deep_derivative.h's
// DeepScaled: doubles under one exponent, normalised after every step and skip), the same
// products, alignments and normalisation. With the atom period each lane keeps its smallest
// |Z_m + z|^2 and its n, and tests a skip's atom step before the value it lands on, with
// floatexp.h's ordering. A Multibrot's step is deep_perturbation_step's Horner form and its skip
// A z + B dc, unfused, and its derivative d w^(d-1) D, as the one-pixel loop computes them. On a
// Julia set a lane starts at z = dc and its steps add no dc; its first rebase moves it onto the
// critical orbit W and W's table for good, as the one-pixel loop's does. The Burning Ship's and the
// Tricorn's step is deep_perturbation_step's (diffabs by its cases, the Tricorn's conjugate) and
// their skip the table's real 2x2 matrices, A z + B dc, unfused; their derivative is the 2x2
// Jacobian (deep_derivative.h's DeepScaled<DeepMatrix>: four doubles under one exponent), J_f(w) D
// + spacing I a step and A D + B spacing a skip, J_f's second row negated by the Tricorn and by
// the Burning Ship where w's coordinates have opposite signs.
// tests/fractal/deep/test_deep_lanes.cpp holds the two loops to each other.
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "compute/fractal/deep/deep_atom.h"
#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/deep_cpu_lanes.h"
#include "compute/fractal/deep/deep_perturbation.h"

namespace ms {

struct DeepLanesRowFloatExp {
    Formula formula = Formula::Mandelbrot;         // one that deep_lanes_take takes
    const DeepComplex<FloatExp>* orbit = nullptr;  // Z_0 .. Z_last (Z_0 = 0)
    int64_t last_index = 0;
    // The table (no levels: BLA off): bla for the formulas whose linear maps are complex numbers,
    // bla_matrix for the Burning Ship and the Tricorn (deep_formula_bla_is_matrix).
    const BlaView<FloatExp, DeepComplex<FloatExp>>* bla = nullptr;
    const BlaView<FloatExp, DeepMatrix<FloatExp>>* bla_matrix = nullptr;
    const FloatExp* bla_r2 = nullptr;           // the table's compact radii (BlaTable::r2); null with BLA off
    const DeepComplex<FloatExp>* dc = nullptr;  // per pixel: its offset from the reference point
    int count = 0;                              // pixels
    int64_t max_iterations = 0;
    int64_t* escape_count = nullptr;  // out, per pixel: as deep_iterate_pixel returns
    double* mu = nullptr;             // out, per pixel
    // The distance estimate (deep_perturbation.h's DeepDistanceOutput): the derivative's unit,
    // and per pixel the estimate out; null: none.
    FloatExp spacing{};
    float* distance = nullptr;
    // The atom period (deep_atom.h): the table's atom steps (null with BLA off), and per pixel the
    // period out; null: none.
    const DeepAtomStep<FloatExp>* atom_steps = nullptr;
    float* atom_period = nullptr;
    // A Julia set (julia): its critical orbit W_0 .. W_last_index_w (W_0 = 0), W's table and its
    // compact radii (deep_lanes_floatexp_julia sets those), and with the atom period W's atom steps.
    bool julia = false;
    const DeepComplex<FloatExp>* orbit_w = nullptr;
    int64_t last_index_w = 0;
    const BlaView<FloatExp, DeepComplex<FloatExp>>* bla_w = nullptr;
    const BlaView<FloatExp, DeepMatrix<FloatExp>>* bla_matrix_w = nullptr;
    const FloatExp* bla_r2_w = nullptr;
    const DeepAtomStep<FloatExp>* atom_steps_w = nullptr;
};

// A row over an orbit and its table (null: BLA off; bla is its view, of the formula's linear maps
// L); the caller sets the pixels and their outputs.
template <class L>
DeepLanesRowFloatExp deep_lanes_floatexp_job(const DeepComplex<FloatExp>* orbit, int64_t last_index,
                                             const BlaView<FloatExp, L>& bla, const BlaTable<FloatExp, L>* table,
                                             int64_t max_iterations) {
    DeepLanesRowFloatExp job;
    job.orbit = orbit;
    job.last_index = last_index;
    if constexpr (std::is_same_v<L, DeepMatrix<FloatExp>>) job.bla_matrix = &bla;
    else job.bla = &bla;
    job.bla_r2 = table ? table->r2.data() : nullptr;
    job.max_iterations = max_iterations;
    return job;
}

// A Julia set's row: its critical orbit W (W_0 .. last), W's table (bla, the view of critical).
template <class L>
void deep_lanes_floatexp_julia(const DeepComplex<FloatExp>* W, int64_t last, const BlaView<FloatExp, L>& bla,
                               const BlaTable<FloatExp, L>& critical, DeepLanesRowFloatExp* job) {
    job->julia = true;
    job->orbit_w = W;
    job->last_index_w = last;
    if constexpr (std::is_same_v<L, DeepMatrix<FloatExp>>) job->bla_matrix_w = &bla;
    else job->bla_w = &bla;
    job->bla_r2_w = critical.r2.data();
}

// Iterates the row's pixels; adds to counters as deep_iterate_pixel does. A formula the lanes do
// not take (deep_lanes_take) is refused with std::invalid_argument.
void deep_lanes_row_floatexp(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters);

// floatexp.h's operations as the lanes compute them, over arrays of n operands (the tests hold
// each to the scalar operation on operands that reach every case): out[i] = a[i] + b[i], a[i] b[i],
// fe_fma(a[i], b[i], c[i]), or for Less 1 where a[i] < b[i] and 0 elsewhere (as FloatExp).
enum class DeepFloatExpLaneOp { Add, Mul, Fma, Less };
void deep_floatexp_lanes_apply(DeepFloatExpLaneOp op, const FloatExp* a, const FloatExp* b, const FloatExp* c,
                               FloatExp* out, size_t n);

}  // namespace ms
