// deep_cpu_pixel-inl.h: one deep pixel on the CPU, deep_perturbation.h's loop as deep_cpu
// (deep_cpu.cpp) and deep_cpu_rings (deep_cpu_rings.cpp) call it.
//
// The Mandelbrot set's loop rounds with fused multiply-adds (deep_perturbation.h): std::fma is
// one instruction where the target has FMA, and a call into libm on the baseline x86-64 this
// library is built for, which would make a pixel about twice as slow as separate roundings. So
// its loop is also compiled for FMA (deep_iterate_pixel is always inlined and takes its
// caller's target), and a CPU that has FMA runs that one; the bits are the same.
#pragma once

#include <cstdint>
#include <utility>

#include "compute/fractal/deep/deep_perturbation.h"

namespace ms {
namespace deep_cpu_detail {

template <typename T, bool kRebase, Formula F, bool kJulia, bool kDistance, bool kAtom, typename... Args>
__attribute__((target("fma"))) int64_t iterate_pixel_fma(Args&&... args) {
    return deep_iterate_pixel<T, kRebase, F, kJulia, kDistance, false, false, false, kAtom>(
        std::forward<Args>(args)...);
}
// kAtom: the atom domain's period (deep_perturbation.h), which only deep_cpu's frames ask for.
template <typename T, bool kRebase, Formula F, bool kJulia, bool kDistance, bool kAtom = false, typename... Args>
int64_t iterate_pixel(Args&&... args) {
    static const bool fma = __builtin_cpu_supports("fma");
    if constexpr (F == Formula::Mandelbrot)
        if (fma) return iterate_pixel_fma<T, kRebase, F, kJulia, kDistance, kAtom>(std::forward<Args>(args)...);
    return deep_iterate_pixel<T, kRebase, F, kJulia, kDistance, false, false, false, kAtom>(
        std::forward<Args>(args)...);
}

}  // namespace deep_cpu_detail
}  // namespace ms
