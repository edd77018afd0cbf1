// deep_cpu_lanes.cpp: deep_cpu's row loop with one pixel per SIMD lane (see deep_cpu_lanes.h).
// Compiled once per SIMD target (Highway's foreach_target.h re-includes this file); the target
// is picked at run time.
//
// Per iteration of a vector of lanes, each lane doing what one pass of deep_iterate_pixel's loop
// does:
//   1. BLA: level 0's radius is loaded for every lane (entry m - 1, from the compact radii); the
//      lanes where it holds ask deep_lanes_lookup (scalar; bla_lookup's choice) for their
//      longest skip, whose A, B and length fill the lane's slots; those lanes take
//      z = A z + B dc, the others the perturbation step z = (2 Z_m + z) z + dc (both are
//      computed; a blend picks), with deep_perturbation.h's fused multiply-adds: Highway's
//      MulAdd where the target has FMA, std::fma lane by lane where it has not (SSE4 and
//      older), so that every target computes the same bits.
//   2. m and n advance; Z_m is loaded; the escape and rebase tests as in the scalar loop.
//   3. Lanes that escaped or reached the iteration limit are written out and take the next
//      pixel (scalar, rare: once per pixel against thousands of iterations).
// A Julia set's lanes (kJulia) start at z = dc, add no dc a step, and a lane's first rebase moves
// it onto the critical orbit W and its table for good, as deep_iterate_pixel's do.
// With the distance estimate (kDistance) the lanes' derivatives D step beside z: 2 w D + spacing
// with w = Z_m + z before the step, A D + B spacing where a lane skips (deep_derivative.h). With
// the atom period (kAtom) each lane keeps its smallest |Z_m + z|^2 and that n, tested after every
// step and skip, a skip's atom step first (deep_atom.h).
// Four vectors are advanced in turn: their dependency chains are independent, so one's
// latencies hide the other's.
// Per-lane loads are scalar loads into an aligned array and one vector load, not gathers: an
// 8-lane vgatherqpd takes tens of cycles even from L1, and three per iteration would make the
// lanes slower than the one-pixel loop.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/deep/deep_cpu_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "compute/fractal/deep/deep_cpu_lanes.h"

HWY_BEFORE_NAMESPACE();
namespace ms::deep_lanes {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(double);
constexpr int kGroups = 4;  // vectors in flight (4 a little faster than 2)

using D = hn::ScalableTag<double>;
using DI = hn::RebindToSigned<D>;
using VD = hn::Vec<D>;
using VI = hn::Vec<DI>;

// One vector of lanes: each lane a pixel (or idle, alive 0, once the row has no pixel left).
struct Group {
    VD zr, zi, z2, dcr, dci, Zr, Zi, alive;
    VD Dr, Di;     // kDistance: the derivative (deep_derivative.h, in pixels); a Jacobian's xx, xy
    VD Dyx, Dyy;   // kDistance, the Burning Ship and the Tricorn: the Jacobian's yx, yy
    VD atom_norm;  // kAtom: the smallest |Z_m + z|^2 so far and its n (0: none yet)
    VI atom_n;
    VI m, n;
    VI on_w, last;  // kJulia: 1 once on the critical orbit W; the lane's orbit's last index
    int pixel[kMaxLanes];
};

// An orbit the lanes iterate against, with its table of linear maps L (complex numbers, or the
// Burning Ship's and the Tricorn's real 2x2 matrices): the row's Z, and a Julia set's W.
template <class L>
struct LaneOrbit {
    const DeepComplex<double>* z;
    int64_t last;
    const BlaView<double, L>* bla;
    const double* r2;  // level 0's radii (the compact copy; a dummy 0 with BLA off)
    const DeepAtomStep<double>* atom_steps;
};

template <class L>
struct RowState {
    const DeepLanesRow* row;
    LaneOrbit<L> orbit[2];  // Z; a Julia set's W
    int next_pixel = 0;
    DeepPixelCounters* counters;
};

// |a|^2 as the one-pixel loop rounds it, for one lane (Norm below, in a vector).
template <Formula F>
double NormOf(double re, double im) {
    const DeepComplex<double> a{re, im};
    return F == Formula::Mandelbrot ? deep_fused_norm(a) : deep_norm(a);
}

// Gives `lane` the row's next pixel (its dc, alive) at the orbit's start Z_0, or idles it where
// the row has none left: the lanes' arrays as FinishLanes and the first fill hold them.
template <class L>
void StartLane(RowState<L>& s, Group& g, size_t lane, double* dcr, double* dci, double* Zr, double* Zi, double* alive) {
    const DeepLanesRow& row = *s.row;
    Zr[lane] = row.orbit[0].re;
    Zi[lane] = row.orbit[0].im;
    if (s.next_pixel < row.count) {
        const int q = s.next_pixel++;
        g.pixel[lane] = q;
        dcr[lane] = row.dc_re[q];
        dci[lane] = row.dc_im[q];
        alive[lane] = 1.0;
    } else {
        g.pixel[lane] = -1;
        dcr[lane] = dci[lane] = 0.0;
        alive[lane] = 0.0;
    }
}

// Writes out the lanes in `done` (escaped: `escaped`; `norm` their |z|^2, fr + i fi their full
// value) and gives each the row's next pixel, or idles it.
template <Formula F, bool kJulia, bool kDistance, bool kAtom>
HWY_NOINLINE void FinishLanes(RowState<DeepBlaLinear<F, double>>& s, Group& g, uint64_t done, uint64_t escaped, VD norm,
                              VD fr, VD fi) {
    const D d;
    const DI di;
    HWY_ALIGN double zr[kMaxLanes], zi[kMaxLanes], z2[kMaxLanes], dcr[kMaxLanes], dci[kMaxLanes], Zr[kMaxLanes],
        Zi[kMaxLanes], alive[kMaxLanes], fn[kMaxLanes], full_re[kMaxLanes], full_im[kMaxLanes], Dr[kMaxLanes],
        Di[kMaxLanes], Dyx[kMaxLanes], Dyy[kMaxLanes], atom_norm[kMaxLanes];
    HWY_ALIGN int64_t m[kMaxLanes], n[kMaxLanes], atom_n[kMaxLanes], on_w[kMaxLanes], last[kMaxLanes];
    constexpr bool kMatrix = deep_formula_bla_is_matrix(F);
    if constexpr (kJulia) {
        hn::Store(g.on_w, di, on_w);
        hn::Store(g.last, di, last);
    }
    hn::Store(g.zr, d, zr);
    hn::Store(g.zi, d, zi);
    hn::Store(g.z2, d, z2);
    hn::Store(g.dcr, d, dcr);
    hn::Store(g.dci, d, dci);
    hn::Store(g.Zr, d, Zr);
    hn::Store(g.Zi, d, Zi);
    hn::Store(g.alive, d, alive);
    hn::Store(norm, d, fn);
    if constexpr (kDistance) {
        hn::Store(fr, d, full_re);
        hn::Store(fi, d, full_im);
        hn::Store(g.Dr, d, Dr);
        hn::Store(g.Di, d, Di);
        if constexpr (kMatrix) {
            hn::Store(g.Dyx, d, Dyx);
            hn::Store(g.Dyy, d, Dyy);
        }
    }
    if constexpr (kAtom) {
        hn::Store(g.atom_norm, d, atom_norm);
        hn::Store(g.atom_n, di, atom_n);
    }
    hn::Store(g.m, di, m);
    hn::Store(g.n, di, n);
    const DeepLanesRow& row = *s.row;
    for (uint64_t bits = done; bits; bits &= bits - 1) {
        const int lane = __builtin_ctzll(bits);
        const int p = g.pixel[lane];
        if (escaped >> lane & 1) {
            row.escape_count[p] = n[lane];
            row.mu[p] = deep_smooth_mu<F>(n[lane], fn[lane]);
            if constexpr (kDistance) {
                const DeepComplex<double> full{full_re[lane], full_im[lane]};
                if constexpr (kMatrix)
                    row.distance[p] = deep_distance_estimate<F>(
                        full, fn[lane], DeepMatrix<double>{Dr[lane], Di[lane], Dyx[lane], Dyy[lane]});
                else
                    row.distance[p] = deep_distance_estimate<F>(full, fn[lane],
                                                                DeepComplex<double>{Dr[lane], Di[lane]});
            }
            if constexpr (kAtom) row.atom_period[p] = float(atom_n[lane]);
            s.counters->iterations += uint64_t(n[lane]);
            ++s.counters->escaped;
        } else {
            deep_lanes_inside(row, p, atom_n[lane]);
            s.counters->iterations += uint64_t(row.max_iterations);
        }
        zr[lane] = zi[lane] = z2[lane] = 0.0;
        Dr[lane] = Di[lane] = Dyx[lane] = Dyy[lane] = 0.0;  // D_0 = 0 on the parameter plane
        atom_norm[lane] = 0.0;
        atom_n[lane] = 0;
        m[lane] = n[lane] = 0;
        StartLane(s, g, size_t(lane), dcr, dci, Zr, Zi, alive);
        if constexpr (kJulia) {  // z_0 = dc, D_0 = spacing, on Z
            zr[lane] = dcr[lane];
            zi[lane] = dci[lane];
            z2[lane] = NormOf<F>(zr[lane], zi[lane]);
            Dr[lane] = s.row->spacing;
            if constexpr (kMatrix) Dyy[lane] = s.row->spacing;  // spacing I
            on_w[lane] = 0;
            last[lane] = s.orbit[0].last;
        }
    }
    if constexpr (kJulia) {
        g.on_w = hn::Load(di, on_w);
        g.last = hn::Load(di, last);
    }
    g.zr = hn::Load(d, zr);
    g.zi = hn::Load(d, zi);
    g.z2 = hn::Load(d, z2);
    g.dcr = hn::Load(d, dcr);
    g.dci = hn::Load(d, dci);
    g.Zr = hn::Load(d, Zr);
    g.Zi = hn::Load(d, Zi);
    g.alive = hn::Load(d, alive);
    if constexpr (kDistance) {
        g.Dr = hn::Load(d, Dr);
        g.Di = hn::Load(d, Di);
        if constexpr (kMatrix) {
            g.Dyx = hn::Load(d, Dyx);
            g.Dyy = hn::Load(d, Dyy);
        }
    }
    if constexpr (kAtom) {
        g.atom_norm = hn::Load(d, atom_norm);
        g.atom_n = hn::Load(di, atom_n);
    }
    g.m = hn::Load(di, m);
    g.n = hn::Load(di, n);
}

// a b + c rounded once (deep_fused_mul_add's fma): FusedMulAdd, FusedNegMulAdd.
#include "compute/fractal/maths/fused_lanes-inl.h"
// A mask's lanes as bits: MaskBits.
#include "compute/fractal/maths/mask_bits-inl.h"

// The complex product a b, unfused (DeepComplex's operator*: this file is built without
// contraction).
HWY_INLINE void ComplexProduct(VD ar, VD ai, VD br, VD bi, VD* re, VD* im) {
    *re = hn::Sub(hn::Mul(ar, br), hn::Mul(ai, bi));
    *im = hn::Add(hn::Mul(ar, bi), hn::Mul(ai, br));
}

// The Mandelbrot set's fused products (deep_perturbation.h): a z + c (deep_fused_mul_add) and a z
// (deep_fused_mul), the step's and the skip's alike.
HWY_INLINE void FusedProductAdd(VD ar, VD ai, VD zr, VD zi, VD cr, VD ci, VD* re, VD* im) {
    *re = FusedMulAdd(ar, zr, FusedNegMulAdd(ai, zi, cr));
    *im = FusedMulAdd(ar, zi, FusedMulAdd(ai, zr, ci));
}
HWY_INLINE void FusedProduct(VD ar, VD ai, VD zr, VD zi, VD* re, VD* im) {
    *re = FusedMulAdd(ar, zr, hn::Neg(hn::Mul(ai, zi)));
    *im = FusedMulAdd(ar, zi, hn::Mul(ai, zr));
}

// |a|^2 as the one-pixel loop rounds it: fused for the Mandelbrot set (deep_fused_norm), else
// deep_norm's separate products and sum.
template <Formula F>
HWY_INLINE VD Norm(VD re, VD im) {
    if constexpr (F == Formula::Mandelbrot) return FusedMulAdd(re, re, hn::Mul(im, im));
    else return hn::Add(hn::Mul(re, re), hn::Mul(im, im));
}

// A Multibrot's f(Z + z) - f(Z) (deep_perturbation_step's Horner form, the same products and
// sums in the same order).
template <Formula F>
HWY_INLINE void MultibrotStep(VD Zr, VD Zi, VD zr, VD zi, VD* out_re, VD* out_im) {
    const D d;
    constexpr int kDegree = formula_degree(F);
    VD pr[kDegree], pi[kDegree];  // Z^1 .. Z^(d-1)
    pr[1] = Zr;
    pi[1] = Zi;
    for (int j = 2; j < kDegree; ++j) ComplexProduct(pr[j - 1], pi[j - 1], Zr, Zi, &pr[j], &pi[j]);
    const VD degree = hn::Set(d, double(kDegree));
    VD ar = hn::Add(zr, hn::Mul(Zr, degree)), ai = hn::Add(zi, hn::Mul(Zi, degree));
    for (int k = kDegree - 2; k >= 1; --k) {
        const VD b = hn::Set(d, deep_binomial(kDegree, k));
        VD tr, ti;
        ComplexProduct(ar, ai, zr, zi, &tr, &ti);
        ar = hn::Add(tr, hn::Mul(pr[kDegree - k], b));
        ai = hn::Add(ti, hn::Mul(pi[kDegree - k], b));
    }
    ComplexProduct(ar, ai, zr, zi, out_re, out_im);
}

// deep_twice(c) + d and the Burning Ship's diffabs(c, d) = |c + d| - |c| by deep_diffabs's cases
// (deep_negative: below 0, so -0 counts as not negative).
HWY_INLINE VD Diffabs(VD c, VD d_) {
    const D d;
    const VD zero = hn::Zero(d);
    const VD twice_c_plus_d = hn::Add(hn::Add(c, c), d_);
    const hn::Mask<D> c_negative = c < zero, s_negative = hn::Add(c, d_) < zero;
    const VD if_c = hn::IfThenElse(s_negative, hn::Neg(twice_c_plus_d), d_);
    const VD if_not_c = hn::IfThenElse(s_negative, hn::Neg(d_), twice_c_plus_d);
    return hn::IfThenElse(c_negative, if_not_c, if_c);
}

// The Tricorn's and the Burning Ship's f(Z + z) - f(Z) (deep_perturbation_step's, the same
// products and sums in the same order).
template <Formula F>
HWY_INLINE void FoldStep(VD Zr, VD Zi, VD zr, VD zi, VD* out_re, VD* out_im) {
    const VD ar = hn::Add(hn::Add(Zr, Zr), zr), ai = hn::Add(hn::Add(Zi, Zi), zi);  // deep_twice(Z) + z
    if constexpr (F == Formula::Tricorn) {
        VD wr, wi;
        ComplexProduct(ar, ai, zr, zi, &wr, &wi);
        *out_re = wr;
        *out_im = hn::Neg(wi);
    } else {
        *out_re = hn::Sub(hn::Mul(ar, zr), hn::Mul(ai, zi));
        const VD c = hn::Mul(Zr, Zi), d_ = hn::Add(hn::Mul(Zr, zi), hn::Mul(zr, hn::Add(Zi, zi)));
        const VD diff = Diffabs(c, d_);
        *out_im = hn::Add(diff, diff);
    }
}

// A real 2x2 matrix times (re, im) (bla_apply's: xx re + xy im, yx re + yy im).
HWY_INLINE void MatrixProduct(VD xx, VD xy, VD yx, VD yy, VD re, VD im, VD* out_re, VD* out_im) {
    *out_re = hn::Add(hn::Mul(xx, re), hn::Mul(xy, im));
    *out_im = hn::Add(hn::Mul(yx, re), hn::Mul(yy, im));
}

// One pass of deep_iterate_pixel's loop for every lane of g.
template <Formula F, bool kJulia, bool kDistance, bool kAtom>
HWY_INLINE void Advance(RowState<DeepBlaLinear<F, double>>& s, Group& g) {
    using L = DeepBlaLinear<F, double>;
    constexpr bool kMatrix = deep_formula_bla_is_matrix(F);
    const D d;
    const DI di;
    const DeepLanesRow& row = *s.row;
    const VI zero_i = hn::Zero(di), one_i = hn::Set(di, 1);
    const hn::Mask<D> alive = g.alive > hn::Zero(d);
    // kJulia: each lane's orbit (0: Z, 1: W).
    [[maybe_unused]] HWY_ALIGN int64_t on_w[kMaxLanes];
    if constexpr (kJulia) hn::Store(g.on_w, di, on_w);
    auto orbit_of = [&](size_t lane) -> const LaneOrbit<L>& { return s.orbit[kJulia ? on_w[lane] : 0]; };

    // 1. BLA, level 0 first: valid where 1 <= m <= level_size[0] and |z|^2 < r2.
    HWY_ALIGN double lane_r2[kMaxLanes];
    hn::Mask<D> skip;
    if constexpr (kJulia) {
        HWY_ALIGN int64_t m[kMaxLanes];
        hn::Store(g.m, di, m);
        for (size_t lane = 0; lane < hn::Lanes(d); ++lane) {
            const LaneOrbit<L>& o = orbit_of(lane);
            const int64_t size0 = o.bla->levels > 0 ? o.bla->level_size[0] : 0;
            lane_r2[lane] = m[lane] >= 1 && m[lane] <= size0 ? o.r2[m[lane] - 1] : 0.0;
        }
        skip = hn::And(g.z2 < hn::Load(d, lane_r2), alive);
    } else {
        const BlaView<double, L>& bla = *s.orbit[0].bla;
        const VI level0_size = hn::Set(di, bla.levels > 0 ? bla.level_size[0] : 0);
        const hn::Mask<DI> in_range = hn::And(g.m > zero_i, hn::Not(g.m > level0_size));
        const VI index0 = hn::IfThenElseZero(in_range, hn::Sub(g.m, one_i));
        HWY_ALIGN int64_t lane_index[kMaxLanes];
        hn::Store(index0, di, lane_index);
        for (size_t lane = 0; lane < hn::Lanes(d); ++lane) lane_r2[lane] = s.orbit[0].r2[lane_index[lane]];
        const VD r2 = hn::Load(d, lane_r2);
        skip = hn::And(hn::And(hn::RebindMask(d, in_range), g.z2 < r2), alive);
    }

    // The perturbation step for every lane: the Mandelbrot set's (Z + (Z + z)) z + dc, fused
    // (deep_iterate_pixel's), another formula's f(Z + z) - f(Z) + dc; a Julia set's adds no dc
    // (deep_fused_mul for the Mandelbrot set's).
    VD zr, zi;
    if constexpr (F == Formula::Mandelbrot) {
        const VD tr = hn::Add(g.Zr, hn::Add(g.Zr, g.zr)), ti = hn::Add(g.Zi, hn::Add(g.Zi, g.zi));
        if constexpr (kJulia) FusedProduct(tr, ti, g.zr, g.zi, &zr, &zi);
        else FusedProductAdd(tr, ti, g.zr, g.zi, g.dcr, g.dci, &zr, &zi);
    } else {
        if constexpr (kMatrix) FoldStep<F>(g.Zr, g.Zi, g.zr, g.zi, &zr, &zi);
        else MultibrotStep<F>(g.Zr, g.Zi, g.zr, g.zi, &zr, &zi);
        if constexpr (!kJulia) {
            zr = hn::Add(zr, g.dcr);
            zi = hn::Add(zi, g.dci);
        }
    }
    // kDistance: D <- d w^(d-1) D + spacing (no + spacing on a Julia set), w = Z + z the full
    // value before the step (deep_derivative_step; the Mandelbrot set's deep_twice(w D) is the
    // product times 2, exactly; after a rebase Z_0 + z differs from the loop's w at most in the
    // sign of a zero, which leaves |D| as it is).
    [[maybe_unused]] VD Dr, Di, Dyx, Dyy;
    if constexpr (kDistance && kMatrix) {
        // The Jacobian: J_f(w) D + spacing I (deep_derivative_product's columns (x2 u - y2 v,
        // s (y2 u + x2 v)), s = -1 for the Tricorn and for the Burning Ship where w's coordinates
        // have opposite signs (a zero has neither sign).
        const VD zero = hn::Zero(d);
        const VD wr = hn::Add(g.Zr, g.zr), wi = hn::Add(g.Zi, g.zi);
        const VD x2 = hn::Add(wr, wr), y2 = hn::Add(wi, wi);
        hn::Mask<D> flip = zero == zero;  // the Tricorn: every lane
        if constexpr (F == Formula::BurningShip)
            flip = hn::Or(hn::And(wr<zero, wi> zero), hn::And(wr > zero, wi < zero));
        const VD yx = hn::Add(hn::Mul(y2, g.Dr), hn::Mul(x2, g.Dyx));
        const VD yy = hn::Add(hn::Mul(y2, g.Di), hn::Mul(x2, g.Dyy));
        Dr = hn::Sub(hn::Mul(x2, g.Dr), hn::Mul(y2, g.Dyx));
        Di = hn::Sub(hn::Mul(x2, g.Di), hn::Mul(y2, g.Dyy));
        Dyx = hn::IfThenElse(flip, hn::Neg(yx), yx);
        Dyy = hn::IfThenElse(flip, hn::Neg(yy), yy);
        if constexpr (!kJulia) {
            const VD spacing = hn::Set(d, s.row->spacing);
            Dr = hn::Add(Dr, spacing);
            Dyy = hn::Add(Dyy, spacing);
        }
    } else if constexpr (kDistance) {
        const VD wr = hn::Add(g.Zr, g.zr), wi = hn::Add(g.Zi, g.zi);
        VD qr = wr, qi = wi;  // w^(d-1)
        for (int j = 2; j < formula_degree(F); ++j) {
            VD tr, ti;
            ComplexProduct(qr, qi, wr, wi, &tr, &ti);
            qr = tr;
            qi = ti;
        }
        VD pr, pi;
        ComplexProduct(qr, qi, g.Dr, g.Di, &pr, &pi);
        const VD degree = hn::Set(d, double(formula_degree(F)));
        pr = hn::Mul(pr, degree);
        Di = hn::Mul(pi, degree);
        Dr = kJulia ? pr : hn::Add(pr, hn::Set(d, s.row->spacing));
    }
    VI length = one_i;
    const uint64_t skip_bits = MaskBits(d, skip);
    if (skip_bits) {
        // The longest valid skip of each such lane, as bla_lookup finds it; then A z + B dc.
        // A and B: a complex number's re and im in [0] and [1]; a matrix's xx, xy, yx, yy in [0 .. 3].
        HWY_ALIGN double z2[kMaxLanes], a[4][kMaxLanes] = {}, b[4][kMaxLanes] = {};
        HWY_ALIGN int64_t m[kMaxLanes], n[kMaxLanes], lengths[kMaxLanes] = {};
        hn::Store(g.z2, d, z2);
        hn::Store(g.m, di, m);
        hn::Store(g.n, di, n);
        // kAtom: each skip's atom step (its smallest |Z|^2 inside), tested before the value it
        // lands on.
        [[maybe_unused]] HWY_ALIGN double atom_norm[kMaxLanes];
        [[maybe_unused]] HWY_ALIGN int64_t atom_n[kMaxLanes];
        if constexpr (kAtom) {
            hn::Store(g.atom_norm, d, atom_norm);
            hn::Store(g.atom_n, di, atom_n);
        }
        for (uint64_t bits = skip_bits; bits; bits &= bits - 1) {
            const int lane = __builtin_ctzll(bits);
            const LaneOrbit<L>& o = orbit_of(size_t(lane));
            const BlaStep<double, L>* step = deep_lanes_lookup(*o.bla, o.r2, m[lane], z2[lane],
                                                               row.max_iterations - n[lane]);
            if constexpr (kMatrix) {
                a[0][lane] = step->a.xx;
                a[1][lane] = step->a.xy;
                a[2][lane] = step->a.yx;
                a[3][lane] = step->a.yy;
                b[0][lane] = step->b.xx;
                b[1][lane] = step->b.xy;
                b[2][lane] = step->b.yx;
                b[3][lane] = step->b.yy;
            } else {
                a[0][lane] = step->a.re;
                a[1][lane] = step->a.im;
                b[0][lane] = step->b.re;
                b[1][lane] = step->b.im;
            }
            lengths[lane] = step->length;
            s.counters->bla_iterations += uint64_t(step->length);
            ++s.counters->bla_skips;
            if constexpr (kAtom) {
                const DeepAtomStep<double>& atom = o.atom_steps[step - o.bla->entries];
                if (atom.offset != 0 && (atom_n[lane] == 0 || atom.norm < atom_norm[lane])) {
                    atom_norm[lane] = atom.norm;
                    atom_n[lane] = n[lane] + atom.offset;
                }
            }
        }
        if constexpr (kAtom) {
            g.atom_norm = hn::Load(d, atom_norm);
            g.atom_n = hn::Load(di, atom_n);
        }
        const VD ar = hn::Load(d, a[0]), ai = hn::Load(d, a[1]), br = hn::Load(d, b[0]), bi = hn::Load(d, b[1]);
        const VI skip_length = hn::Load(di, lengths);
        // deep_fused_mul_add(a, z, bla_apply(b, dc)) for the Mandelbrot set, bla_apply(a, z) +
        // bla_apply(b, dc) for the others, in deep_perturbation.h's order; a Julia set's skip
        // is A z alone (deep_fused_mul for the Mandelbrot set's).
        VD kr, ki;
        [[maybe_unused]] VD bdr, bdi;  // B dc (bla_apply), on a parameter plane
        if constexpr (!kJulia) {
            if constexpr (kMatrix)
                MatrixProduct(br, bi, hn::Load(d, b[2]), hn::Load(d, b[3]), g.dcr, g.dci, &bdr, &bdi);
            else ComplexProduct(br, bi, g.dcr, g.dci, &bdr, &bdi);
        }
        if constexpr (kMatrix) {
            MatrixProduct(ar, ai, hn::Load(d, a[2]), hn::Load(d, a[3]), g.zr, g.zi, &kr, &ki);
            if constexpr (!kJulia) {
                kr = hn::Add(kr, bdr);
                ki = hn::Add(ki, bdi);
            }
        } else if constexpr (F == Formula::Mandelbrot && kJulia) {
            FusedProduct(ar, ai, g.zr, g.zi, &kr, &ki);
        } else if constexpr (F == Formula::Mandelbrot) {
            FusedProductAdd(ar, ai, g.zr, g.zi, bdr, bdi, &kr, &ki);
        } else {
            ComplexProduct(ar, ai, g.zr, g.zi, &kr, &ki);
            if constexpr (!kJulia) {
                kr = hn::Add(kr, bdr);
                ki = hn::Add(ki, bdi);
            }
        }
        zr = hn::IfThenElse(skip, kr, zr);
        zi = hn::IfThenElse(skip, ki, zi);
        if constexpr (kDistance && kMatrix) {  // D <- A D + B spacing (bla_compose, bla_add), A D on a Julia set
            const VD ayx = hn::Load(d, a[2]), ayy = hn::Load(d, a[3]);
            VD qxx = hn::Add(hn::Mul(ar, g.Dr), hn::Mul(ai, g.Dyx)),
               qxy = hn::Add(hn::Mul(ar, g.Di), hn::Mul(ai, g.Dyy));
            VD qyx = hn::Add(hn::Mul(ayx, g.Dr), hn::Mul(ayy, g.Dyx)),
               qyy = hn::Add(hn::Mul(ayx, g.Di), hn::Mul(ayy, g.Dyy));
            if constexpr (!kJulia) {
                const VD spacing = hn::Set(d, s.row->spacing);
                qxx = hn::Add(qxx, hn::Mul(br, spacing));
                qxy = hn::Add(qxy, hn::Mul(bi, spacing));
                qyx = hn::Add(qyx, hn::Mul(hn::Load(d, b[2]), spacing));
                qyy = hn::Add(qyy, hn::Mul(hn::Load(d, b[3]), spacing));
            }
            Dr = hn::IfThenElse(skip, qxx, Dr);
            Di = hn::IfThenElse(skip, qxy, Di);
            Dyx = hn::IfThenElse(skip, qyx, Dyx);
            Dyy = hn::IfThenElse(skip, qyy, Dyy);
        } else if constexpr (kDistance) {  // D <- A D + B spacing, A D on a Julia set (deep_derivative_skip)
            VD qr, qi;
            ComplexProduct(ar, ai, g.Dr, g.Di, &qr, &qi);
            if constexpr (!kJulia) {
                const VD spacing = hn::Set(d, s.row->spacing);
                qr = hn::Add(qr, hn::Mul(br, spacing));
                qi = hn::Add(qi, hn::Mul(bi, spacing));
            }
            Dr = hn::IfThenElse(skip, qr, Dr);
            Di = hn::IfThenElse(skip, qi, Di);
        }
        length = hn::IfThenElse(hn::RebindMask(di, skip), skip_length, length);
    }
    s.counters->steps += hn::CountTrue(d, hn::AndNot(skip, alive));
    if constexpr (kDistance) {
        g.Dr = Dr;
        g.Di = Di;
        if constexpr (kMatrix) {
            g.Dyx = Dyx;
            g.Dyy = Dyy;
        }
    }
    g.m = hn::Add(g.m, length);
    g.n = hn::Add(g.n, length);

    // 2. The pixel's full value against the bailout, and Zhuoran's rebase.
    {
        HWY_ALIGN int64_t m[kMaxLanes];
        HWY_ALIGN double Zr[kMaxLanes], Zi[kMaxLanes];
        hn::Store(g.m, di, m);
        for (size_t lane = 0; lane < hn::Lanes(d); ++lane) {
            const DeepComplex<double>* z = orbit_of(lane).z;
            Zr[lane] = z[m[lane]].re;
            Zi[lane] = z[m[lane]].im;
        }
        g.Zr = hn::Load(d, Zr);
        g.Zi = hn::Load(d, Zi);
    }
    const VD fr = hn::Add(g.Zr, zr), fi = hn::Add(g.Zi, zi);
    const VD full_norm = Norm<F>(fr, fi);
    const VD z2 = Norm<F>(zr, zi);
    if constexpr (kAtom) {  // the value landed on: the period's n where it is the smallest yet
        const hn::Mask<D> smaller = hn::Or(hn::RebindMask(d, g.atom_n == zero_i), full_norm < g.atom_norm);
        g.atom_norm = hn::IfThenElse(smaller, full_norm, g.atom_norm);
        g.atom_n = hn::IfThenElse(hn::RebindMask(di, smaller), g.n, g.atom_n);
    }
    constexpr double kBailoutSquared = formula_bailout_radius(F) * formula_bailout_radius(F);
    const hn::Mask<D> escaped = hn::And(full_norm > hn::Set(d, kBailoutSquared), alive);
    const VI last = kJulia ? g.last : hn::Set(di, row.last_index);
    const hn::Mask<D> rebase = hn::Or(full_norm < z2, hn::RebindMask(d, g.m == last));
    g.zr = hn::IfThenElse(rebase, fr, zr);
    g.zi = hn::IfThenElse(rebase, fi, zi);
    g.z2 = hn::IfThenElse(rebase, full_norm, z2);  // |full|^2, computed as the norm of z would be
    g.m = hn::IfThenZeroElse(hn::RebindMask(di, rebase), g.m);
    // The orbit's start: Z_0, or a Julia set's W_0 (the lane then stays on W).
    const LaneOrbit<L>& restart = s.orbit[kJulia ? 1 : 0];
    g.Zr = hn::IfThenElse(rebase, hn::Set(d, restart.z[0].re), g.Zr);
    g.Zi = hn::IfThenElse(rebase, hn::Set(d, restart.z[0].im), g.Zi);
    if constexpr (kJulia) {
        g.on_w = hn::IfThenElse(hn::RebindMask(di, rebase), one_i, g.on_w);
        g.last = hn::IfThenElse(hn::RebindMask(di, rebase), hn::Set(di, restart.last), g.last);
    }
    s.counters->rebases += hn::CountTrue(d, hn::AndNot(escaped, hn::And(rebase, alive)));

    // 3. Finished lanes.
    const hn::Mask<D> limit = hn::And(hn::RebindMask(d, hn::Not(hn::Set(di, row.max_iterations) > g.n)), alive);
    const uint64_t done = MaskBits(d, hn::Or(escaped, limit));
    if (HWY_UNLIKELY(done))
        FinishLanes<F, kJulia, kDistance, kAtom>(s, g, done, MaskBits(d, escaped), full_norm, fr, fi);
}

template <Formula F, bool kJulia, bool kDistance, bool kAtom>
void LanesRowOf(const DeepLanesRow& row, DeepPixelCounters* counters) {
    using L = DeepBlaLinear<F, double>;
    const D d;
    const DI di;
    RowState<L> s;
    s.row = &row;
    s.counters = counters;
    static const double kNoRadius = 0.0;
    const BlaView<double, L>* bla = deep_lanes_table<L>(row, false);
    s.orbit[0] = {row.orbit, row.last_index, bla, row.bla_r2 && bla && bla->levels > 0 ? row.bla_r2 : &kNoRadius,
                  row.atom_steps};
    if constexpr (kJulia) {
        const BlaView<double, L>* bla_w = deep_lanes_table<L>(row, true);
        s.orbit[1] = {row.orbit_w, row.last_index_w, bla_w,
                      row.bla_r2_w && bla_w && bla_w->levels > 0 ? row.bla_r2_w : &kNoRadius, row.atom_steps_w};
    }
    Group groups[kGroups];
    for (Group& g : groups) {
        g.m = g.n = hn::Zero(di);
        for (int& p : g.pixel) p = -1;
        // The first pixels; lanes left without one stay idle (alive 0).
        HWY_ALIGN double zeros[kMaxLanes] = {}, dcr[kMaxLanes] = {}, dci[kMaxLanes] = {}, alive[kMaxLanes] = {},
                         Zr[kMaxLanes] = {}, Zi[kMaxLanes] = {};
        for (size_t lane = 0; lane < hn::Lanes(d); ++lane) StartLane(s, g, lane, dcr, dci, Zr, Zi, alive);
        g.zr = g.zi = g.z2 = g.Dr = g.Di = g.Dyx = g.Dyy = g.atom_norm = hn::Load(d, zeros);
        g.atom_n = hn::Zero(di);
        g.dcr = hn::Load(d, dcr);
        g.dci = hn::Load(d, dci);
        g.Zr = hn::Load(d, Zr);
        g.Zi = hn::Load(d, Zi);
        g.alive = hn::Load(d, alive);
        if constexpr (kJulia) {  // z_0 = dc, D_0 = spacing, on Z
            HWY_ALIGN double z2[kMaxLanes];
            for (size_t lane = 0; lane < hn::Lanes(d); ++lane) z2[lane] = NormOf<F>(dcr[lane], dci[lane]);
            g.zr = g.dcr;
            g.zi = g.dci;
            g.z2 = hn::Load(d, z2);
            g.Dr = hn::Set(d, row.spacing);
            if constexpr (deep_formula_bla_is_matrix(F)) g.Dyy = g.Dr;  // spacing I
            g.on_w = hn::Zero(di);
            g.last = hn::Set(di, row.last_index);
        }
    }
    for (;;) {
        bool any = false;
        for (Group& g : groups) {
            if (hn::AllFalse(d, g.alive > hn::Zero(d))) continue;
            any = true;
            Advance<F, kJulia, kDistance, kAtom>(s, g);
        }
        if (!any) break;
    }
}

template <Formula F, bool kJulia>
void LanesRowPlane(const DeepLanesRow& row, DeepPixelCounters* counters) {
    if (row.distance) {
        if (row.atom_period) LanesRowOf<F, kJulia, true, true>(row, counters);
        else LanesRowOf<F, kJulia, true, false>(row, counters);
    } else {
        if (row.atom_period) LanesRowOf<F, kJulia, false, true>(row, counters);
        else LanesRowOf<F, kJulia, false, false>(row, counters);
    }
}

template <Formula F>
void LanesRowFor(const DeepLanesRow& row, DeepPixelCounters* counters) {
    if (row.julia) LanesRowPlane<F, true>(row, counters);
    else LanesRowPlane<F, false>(row, counters);
}

void LanesRow(const DeepLanesRow& row, DeepPixelCounters* counters) {
    switch (row.formula) {
    case Formula::Multibrot3: LanesRowFor<Formula::Multibrot3>(row, counters); break;
    case Formula::Multibrot4: LanesRowFor<Formula::Multibrot4>(row, counters); break;
    case Formula::Multibrot5: LanesRowFor<Formula::Multibrot5>(row, counters); break;
    case Formula::Multibrot6: LanesRowFor<Formula::Multibrot6>(row, counters); break;
    case Formula::Multibrot7: LanesRowFor<Formula::Multibrot7>(row, counters); break;
    case Formula::Multibrot8: LanesRowFor<Formula::Multibrot8>(row, counters); break;
    case Formula::Mandelbrot: LanesRowFor<Formula::Mandelbrot>(row, counters); break;
    case Formula::BurningShip: LanesRowFor<Formula::BurningShip>(row, counters); break;
    case Formula::Tricorn: LanesRowFor<Formula::Tricorn>(row, counters); break;
    default: break;  // deep_lanes_row refuses the rest (deep_lanes_take)
    }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace ms::deep_lanes
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {
namespace deep_lanes {
HWY_EXPORT(LanesRow);
HWY_EXPORT(TargetName);
}  // namespace deep_lanes

void deep_lanes_row(const DeepLanesRow& row, DeepPixelCounters* counters) {
    if (!deep_lanes_take(row.formula))
        throw std::invalid_argument(std::string("the SIMD lanes do not take the formula ") + formula_name(row.formula));
    if (row.formula == Formula::Mandelbrot && !row.julia && row.lane_points && row.bla && row.bla->levels > 0 &&
        deep_lanes_row_avx512(row, counters))
        return;
    HWY_DYNAMIC_DISPATCH(deep_lanes::LanesRow)(row, counters);
}

const char* deep_lanes_target() { return HWY_DYNAMIC_DISPATCH(deep_lanes::TargetName)(); }

}  // namespace ms
#endif  // HWY_ONCE
