// deep_atom.cpp: the atom steps beside a BLA table (deep_atom.h).
#include "compute/fractal/deep/deep_atom.h"

namespace ms {

template <typename T>
std::vector<DeepAtomStep<T>> build_deep_atom_steps(const DeepComplex<T>* z, int levels, const int64_t* level_offset,
                                                   const int64_t* level_size) {
    const int64_t total = level_offset[levels - 1] + level_size[levels - 1];
    std::vector<DeepAtomStep<T>> steps(static_cast<size_t>(total));  // level 0: single steps, no inside
    std::vector<int64_t> length(static_cast<size_t>(level_size[0]), 1), below;
    for (int level = 1; level < levels; ++level) {
        below.swap(length);
        const int64_t size = level_size[level], below_size = level_size[level - 1];
        const DeepAtomStep<T>* src = steps.data() + level_offset[level - 1];
        DeepAtomStep<T>* dst = steps.data() + level_offset[level];
        length.assign(static_cast<size_t>(size), 0);
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < size; ++j) {
            if (2 * j + 1 >= below_size) {  // the odd last entry, copied up as the BLA table does
                dst[j] = src[2 * j];
                length[size_t(j)] = below[size_t(2 * j)];
                continue;
            }
            // x then y: x's inside, the value x lands on (y's start), then y's inside.
            const DeepAtomStep<T>& x = src[2 * j];
            const DeepAtomStep<T>& y = src[2 * j + 1];
            const int64_t lx = below[size_t(2 * j)];
            const int64_t m = (2 * j) * (int64_t(1) << (level - 1)) + 1;  // x's first step
            DeepAtomStep<T> best = x;
            const T landing = deep_norm(z[m + lx]);
            if (best.offset == 0 || landing < best.norm) best = DeepAtomStep<T>{landing, lx};
            if (y.offset != 0 && y.norm < best.norm) best = DeepAtomStep<T>{y.norm, lx + y.offset};
            dst[j] = best;
            length[size_t(j)] = lx + below[size_t(2 * j + 1)];
        }
    }
    return steps;
}

template std::vector<DeepAtomStep<double>> build_deep_atom_steps(const DeepComplex<double>*, int, const int64_t*,
                                                                 const int64_t*);
template std::vector<DeepAtomStep<FloatExp>> build_deep_atom_steps(const DeepComplex<FloatExp>*, int, const int64_t*,
                                                                   const int64_t*);

}  // namespace ms
