// deep_atom.h: the atom-domain period on the deep path (colouring.h's atom layer): the n >= 1
// at which the pixel's full value |Z_m + z| is smallest, as orbit_features.h's direct paths
// take it, through the perturbation loop of deep_perturbation.h (kAtom).
//
// The loop sees the full value after every step and every BLA skip, and tests it. A skip of
// length l from m also covers the values at m + 1 .. m + l - 1, which it never forms. Inside a
// skip |z| << |Z| at every iteration (deep_bla.h: the radius, or the error budget, keeps each
// dropped term's relative error under l epsilon), so there |Z + z|^2 = |Z|^2 (1 + O(l epsilon)):
// the skip's smallest value is its reference's. So every BLA entry gets, beside it, the smallest
// |Z_i|^2 strictly inside its steps and that i's place (DeepAtomStep), and the loop tests a skip
// by that entry before the value it lands on. The period differs from an exact orbit's only
// where two of its returns towards 0 lie within that relative error of each other.
//
// The table has the BLA table's layout entry for entry (level k entry j covers the steps from
// m = j 2^k + 1; an odd last entry is copied up), so a skip's entry index finds its atom step.
// It depends on the orbit and the layout alone (not on the radii), is built on the host when a
// frame asks for the atom layer (deep_cpu; deep_cuda copies it to the device), and costs the
// frames without the layer nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/numbers/floatexp.h"

namespace ms {

template <typename T>
struct DeepAtomStep {
    T norm{};            // the smallest |Z_i|^2 for m < i < m + length (the first on a tie)
    int64_t offset = 0;  // its i - m; 0: the entry has no inside (a single step)
};

// What deep_iterate_pixel's kAtom loop reads and writes.
template <typename T>
struct DeepAtomOutput {
    const DeepAtomStep<T>* steps = nullptr;    // beside the orbit's BLA table (null with BLA off)
    const DeepAtomStep<T>* steps_w = nullptr;  // beside a Julia set's critical table
    float* period = nullptr;                   // the pixel's atom period
};

// The atom steps for the orbit z (Z_0 .. its last index) and a BLA table of `levels` levels
// with these offsets and sizes (BlaView's level_offset, level_size). OpenMP over each level.
template <typename T>
std::vector<DeepAtomStep<T>> build_deep_atom_steps(const DeepComplex<T>* z, int levels, const int64_t* level_offset,
                                                   const int64_t* level_size);

template <typename T, typename L>
std::vector<DeepAtomStep<T>> build_deep_atom_steps(const DeepComplex<T>* z, const BlaView<T, L>& bla) {
    if (bla.levels == 0) return {};
    return build_deep_atom_steps(z, bla.levels, bla.level_offset, bla.level_size);
}

}  // namespace ms
