// formula_step-inl.h: one step z <- f(z) + c of every formula (see formula_math.h), for any V with
// + - * (float, double, a Highway vector). No include guard and no includes of its own, on
// purpose: formula_math.h includes it inside namespace ms (scalar code: the reference, CUDA), and
// direct_cpu.cpp once more inside each SIMD target's namespace, where Highway's vector
// operators (always-inline, compiled for one target) can be inlined into it.

namespace formula_detail {

template <class V>
MS_HD inline void square(V& ar, V& ai) {
    const V r = ar * ar - ai * ai;
    ai = (ar + ar) * ai;
    ar = r;
}

template <class V>
MS_HD inline void multiply(V& ar, V& ai, const V& br, const V& bi) {
    const V r = ar * br - ai * bi;
    ai = ar * bi + ai * br;
    ar = r;
}

// (pr, pi) = z^D for D >= 2, given z and z^2 = (sr, si).
template <int D, class V>
MS_HD inline void power(const V& zr, const V& zi, const V& sr, const V& si, V& pr, V& pi) {
    if constexpr (D == 2) {
        pr = sr;
        pi = si;
    } else if constexpr (D % 2 == 1) {
        power<D - 1>(zr, zi, sr, si, pr, pi);
        multiply(pr, pi, zr, zi);
    } else {
        power<D / 2>(zr, zi, sr, si, pr, pi);
        square(pr, pi);
    }
}

}  // namespace formula_detail

// One step z <- f(z) + c. zr2, zi2 are zr * zr and zi * zi of the z passed in (the loop keeps
// them for |z|^2). abs_of makes |x| for V.
template <Formula F, class V, class Abs>
MS_HD inline void formula_step(V& zr, V& zi, const V& zr2, const V& zi2, const V& cr, const V& ci, Abs abs_of) {
    if constexpr (formula_degree(F) == 2) {
        const V t = (zr + zr) * zi;
        zr = (zr2 - zi2) + cr;
        if constexpr (F == Formula::BurningShip) zi = abs_of(t) + ci;
        else if constexpr (F == Formula::Tricorn) zi = ci - t;
        else zi = t + ci;
    } else {
        const V sr = zr2 - zi2, si = (zr + zr) * zi;
        V pr, pi;
        formula_detail::power<formula_degree(F)>(zr, zi, sr, si, pr, pi);
        zr = pr + cr;
        zi = pi + ci;
    }
}

// formula_step's bits for the quadratic formulas in one instruction less, the CUDA kernels' form:
// (zr + zr) zi + ci rounds as 2 (zr zi) + ci, doubling being exact, which one FMA adds (ops.fma;
// the Burning Ship's |.| and the Tricorn's sign on its operand). zr2 and zi2 hold zr^2 and zi^2,
// and again after the step (each made as soon as its part is: the smooth kernels' order).
// Scalar code: the smooth kernels' step (direct_cuda_kernels-inl.h) and the escaped pass's
// BlockedOrbit::advance (orbit_features.h).
template <Formula F, class V, class Ops, class Abs>
MS_HD inline void quadratic_step_fused(V& zr, V& zi, V& zr2, V& zi2, const V& cr, const V& ci, Ops ops, Abs abs_of) {
    static_assert(formula_degree(F) == 2, "the quadratic formulas only");
    const V t = zr * zi;
    zr = (zr2 - zi2) + cr;
    zr2 = zr * zr;
    if constexpr (F == Formula::BurningShip) zi = ops.fma(V(2), abs_of(t), ci);
    else if constexpr (F == Formula::Tricorn) zi = ops.fma(V(-2), t, ci);
    else zi = ops.fma(V(2), t, ci);
    zi2 = zi * zi;
}

// One step of the derivative that the distance estimate carries, taken with z_k before the step
// z_k -> z_{k+1} (orbit_features.h): D_{k+1} = J_f(z_k) D_k + add, where D is dz_k/dc on the
// parameter plane (D_0 = 0, add = the identity) and dz_k/dz_0 on a Julia set (D_0 = the identity,
// add = 0; `one` is then 0, so the same operations run on both).
//   holomorphic maps: D is the complex (dzr, dzi) and J_f = f'(z) = d z^(d-1):
//       D <- d z^(d-1) D + 1   (d z^(d-1) D as degree * (z^(d-1) D))
//   Burning Ship, Tricorn: D is the real 2x2 matrix of the columns (dzr, dzi) = dz/d(Re c) and
//       (dxr, dxi) = dz/d(Im c); f(x + iy) = (x^2 - y^2, s 2xy) with s = sign(xy) for the Burning
//       Ship (the sign of (x + x) y, as formula_step takes its |.|) and s = -1 for the Tricorn,
//       so J_f = [[2x, -2y], [s 2y, s 2x]] and each column (a, b) becomes
//       (2x a - 2y b, s (2y a + 2x b)), plus (1, 0) and (0, 1) on the parameter plane.
// Unlike z's step, the derivative rounds with fused multiply-adds, written out (ops.fma: fma() on
// CUDA, std::fma on the CPU, FusedMulAdd on Highway vectors), so every path still computes the
// same bits: a product p r - q s is fma(p, r, -(q s)), and the sum that follows a product folds
// into it, degree * re + 1 as fma(degree, re, 1). That is 6 operations for Mandelbrot's step
// instead of 9, and 4 in the CUDA kernels' scaled form: on the GPU the distance frame is bound by
// instruction issue, and its cost over the smooth frame is this count. z itself keeps the
// reference's separate roundings, so mu and the escape counts are the smooth frame's.
// ops.neg(v) is -v, ops.neg_if_negative(t, v) is t < 0 ? -v : v, ops.fma(a, b, c) is a b + c
// rounded once, for V.
template <Formula F, class V, class Ops>
MS_HD inline void formula_derivative_step(const V& zr, const V& zi, V& dzr, V& dzi, V& dxr, V& dxi, const V& one,
                                          const V& degree, Ops ops) {
    if constexpr (formula_is_holomorphic(F) && formula_degree(F) == 2) {
        // Mandelbrot: D <- 2 z D + 1 as (2 zr) D + (2 zi) i D + 1, the doublings exact, each part
        // one product fused into the next. The CUDA kernels compute the same bits with the
        // derivative scaled by 2^-j within a block of steps (direct_cuda_kernels-inl.h), where
        // the doublings drop out.
        (void)dxr, (void)dxi, (void)degree;
        const V x2 = zr + zr, y2 = zi + zi;
        const V re = ops.fma(x2, dzr, ops.fma(ops.neg(y2), dzi, one));
        dzi = ops.fma(x2, dzi, y2 * dzr);
        dzr = re;
    } else if constexpr (formula_is_holomorphic(F)) {
        (void)dxr, (void)dxi;
        V pr = zr, pi = zi;  // z^(d-1)
        if constexpr (formula_degree(F) >= 3) {
            const V sr = zr * zr - zi * zi, si = (zr + zr) * zi;
            formula_detail::power<formula_degree(F) - 1>(zr, zi, sr, si, pr, pi);
        }
        const V re = ops.fma(pr, dzr, ops.neg(pi * dzi));
        const V im = ops.fma(pr, dzi, pi * dzr);
        dzr = ops.fma(degree, re, one);
        dzi = degree * im;
    } else {
        (void)degree;
        const V x2 = zr + zr, y2 = zi + zi;
        const V b = ops.fma(y2, dzr, x2 * dzi);
        const V e = ops.fma(y2, dxr, x2 * dxi);
        // 2x a - 2y b (+ 1): the addend first, then both products fused into it.
        dzr = ops.fma(x2, dzr, ops.fma(ops.neg(y2), dzi, one));
        dxr = ops.fma(x2, dxr, ops.neg(y2 * dxi));
        if constexpr (F == Formula::BurningShip) {
            const V t = x2 * zi;  // formula_step's (zr + zr) zi, whose |.| the step takes
            dzi = ops.neg_if_negative(t, b);
            dxi = ops.neg_if_negative(t, e) + one;
        } else {
            dzi = ops.neg(b);
            dxi = ops.neg(e) + one;
        }
    }
}

// Mandelbrot's derivative step scaled (the CUDA kernels' blocks of steps): with E = D / 2^j after
// j steps of a block, E <- z E + h, h = 2^-(j+1) on the parameter plane and 0 on a Julia set. The
// doublings of formula_derivative_step drop out: 4 operations. Every rounding is the plain step's
// scaled by 2^(j+1), so E 2^(j+1) after it has the plain step's bits while E stays a normal number
// (test_colouring's ScaledMandelbrotDerivativeHasThePlainStepsBits checks this over whole orbits).
template <class V, class Ops>
MS_HD inline void mandelbrot_scaled_derivative_step(const V& zr, const V& zi, V& er, V& ei, const V& h, Ops ops) {
    const V re = ops.fma(zr, er, ops.fma(ops.neg(zi), ei, h));
    ei = ops.fma(zr, ei, zi * er);
    er = re;
}
