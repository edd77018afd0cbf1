// deep_cpu_lanes_avx512.cpp: deep_cpu_lanes.h's row loop written for AVX-512 (8 doubles a
// vector), which the x86 CPUs that have it run instead of the Highway loop (deep_cpu_lanes.cpp).
// Same IEEE operations in the same order, so the same escape counts and smooth values bit for
// bit (tests/fractal/deep/test_deep_lanes.cpp holds it to the one-pixel loop).
//
// What keeps the lanes busy:
//   - The lanes' state lives in vectors, not arrays: kGroups vectors of 8 pixels advance in turn,
//     their dependency chains independent, and an iteration of a vector is a perturbation step
//     for every lane, one load of the reference point for every lane, the escape, rebase and
//     limit tests (one compare against the lane's stop for the limit and the orbit's end).
//   - The reference point (Z_m and level 0's radius, BlaTable::lane_points) is one aligned
//     32-byte load a lane; eight of them are transposed into the vectors Z.re, Z.im and the radius
//     (an 8x4 transpose, 11 shuffles), cheaper than three gathers.
//   - A lane whose |z|^2 is below level 0's radius takes the BLA skip; its level is found by one
//     compare of |z|^2 against a vector of the walk's running minimum radii
//     (BlaTable::lane_chain) instead of bla_lookup_above_first's chain of dependent loads and
//     branches, and the skip's A, B and length go into the lane by masked broadcasts.
//   - Escapes, rebases and the iteration limit (a few per pixel against thousands of steps) leave
//     the vector loop for a scalar pass over the lanes concerned; a finished lane takes the row's
//     next pixel at once.
//   - With the distance estimate (kDistance) each lane also carries its derivative D, stepped in
//     the vector beside z (deep_derivative.h's step and skip, the same products and sums), and a
//     lane's estimate is computed in the scalar pass where it escapes.
//   - With the atom period (kAtom) each lane carries its smallest |Z_m + z|^2 and its n, tested
//     after every step and skip, and a skipping lane first tests the skip's atom step (deep_atom.h).
#include "compute/fractal/deep/deep_cpu_lanes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC's own AVX-512 intrinsics (insertf64x4, unpacklo_pd, the shifts) start from an "undefined"
// vector, which its -Wmaybe-uninitialized and -Wuninitialized report at every use (clang has no
// such warning).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <cpuid.h>
#include <immintrin.h>

#include <climits>
#include <cstdint>

#define MS_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,bmi,bmi2,lzcnt,popcnt,fma")))
#define MS_AVX512_INLINE MS_AVX512 inline __attribute__((always_inline))

namespace ms {
namespace {

constexpr int kGroups = 4;  // vectors in flight

using Step = BlaStep<double, DeepComplex<double>>;

// kDistance: the lanes' derivatives D (deep_derivative.h, in pixels); nothing otherwise, so that
// the smooth loop holds no register for them.
template <bool kDistance>
struct Derivative {
    __m512d re, im;
};
template <>
struct Derivative<false> {};

// kAtom: the lanes' atom period so far (deep_atom.h): the smallest |Z_m + z|^2 and its n (0: none
// yet), and the lane's n at m = 0 (GroupSide's base), which turns m into n.
template <bool kAtom>
struct AtomState {
    __m512d norm;
    __m512i n, base;
};
template <>
struct AtomState<false> {};

// What the lanes carry beside z: the derivative, the atom period.
template <bool kDistanceV, bool kAtomV>
struct Variant {
    static constexpr bool kDistance = kDistanceV, kAtom = kAtomV;
};

// One vector of 8 lanes, each a pixel or idle. m is the lane's orbit index times the size of a
// point (the byte offset of its point), so that it addresses the point as it stands. stop is the
// lesser of the pixel's iteration limit and the orbit's last index, in the same units: one
// compare finds either. An idle lane's z is NaN (no test but stop passes on NaN, and no skip
// starts) with dc = 0; it runs through the orbit and at stop goes back to its start.
template <class V>
struct Group {
    __m512d zr, zi, dcr, dci, Zr, Zi, r0;
    __m512i m, stop;
    __mmask8 skip;  // |z|^2 < level 0's radius: the next iteration skips
    [[no_unique_address]] Derivative<V::kDistance> d;
    [[no_unique_address]] AtomState<V::kAtom> atom;
};

constexpr int kPointShift = 5;  // log2(sizeof(BlaLanePoint<double>))
static_assert(sizeof(BlaLanePoint<double>) == size_t(1) << kPointShift);

// Per lane, what only the scalar passes read.
struct GroupSide {
    int64_t base[8];
    int64_t limit[8];  // the iterations left to the pixel past base (INT64_MAX idle)
    int pixel[8];      // -1: idle
};

struct Context {
    const DeepLanesRow* row;
    const BlaLanePoint<double>* points;
    const double* chain;
    const Step* entries;
    int64_t level_offset[kBlaMaxLevels];
    int64_t size0;
    int64_t last;
    int levels;
    double spacing;                          // the derivative's + spacing (kDistance)
    const DeepAtomStep<double>* atom_steps;  // beside the table's entries (kAtom)
    int next_pixel = 0;
    int alive = 0;  // lanes with a pixel
    DeepPixelCounters counters;
};

// The point at byte offset `at` from p.
MS_AVX512_INLINE __m256d point_at(const char* p, int64_t at) {
    return _mm256_load_pd(reinterpret_cast<const double*>(p + at));
}

// The points at the lanes' m (byte offsets, so that each address is the array's plus the lane's
// offset as it stands): Z.re, Z.im and level 0's radius.
MS_AVX512_INLINE void load_points(const BlaLanePoint<double>* points, __m512i m, __m512d* Zr, __m512d* Zi,
                                  __m512d* r0) {
    alignas(64) int64_t at[8];
    _mm512_store_si512(at, m);
    const char* p = reinterpret_cast<const char*>(points);
    const __m512d a0 = _mm512_insertf64x4(_mm512_zextpd256_pd512(point_at(p, at[0])), point_at(p, at[4]), 1);
    const __m512d a1 = _mm512_insertf64x4(_mm512_zextpd256_pd512(point_at(p, at[1])), point_at(p, at[5]), 1);
    const __m512d a2 = _mm512_insertf64x4(_mm512_zextpd256_pd512(point_at(p, at[2])), point_at(p, at[6]), 1);
    const __m512d a3 = _mm512_insertf64x4(_mm512_zextpd256_pd512(point_at(p, at[3])), point_at(p, at[7]), 1);
    // t0 = [re0 re1 r0_0 r0_1 | re4 re5 r0_4 r0_5], t1 the same of im; t2, t3 of lanes 2, 3, 6, 7.
    const __m512d t0 = _mm512_unpacklo_pd(a0, a1), t1 = _mm512_unpackhi_pd(a0, a1);
    const __m512d t2 = _mm512_unpacklo_pd(a2, a3), t3 = _mm512_unpackhi_pd(a2, a3);
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i second = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    *Zr = _mm512_permutex2var_pd(t0, first, t2);
    *Zi = _mm512_permutex2var_pd(t1, first, t3);
    *r0 = _mm512_permutex2var_pd(t0, second, t2);
}

// deep_fused_norm: fma(re, re, im im).
MS_AVX512_INLINE __m512d fused_norm(__m512d re, __m512d im) { return _mm512_fmadd_pd(re, re, _mm512_mul_pd(im, im)); }

// Gives `lane` the row's next pixel at the orbit's start, or idles it. Arrays: the group's vectors
// stored (FinishLanes' scratch).
struct Scratch {
    alignas(64) double zr[8], zi[8], dcr[8], dci[8], Zr[8], Zi[8], r0[8], fr[8], fi[8], fn[8], z2[8], dre[8], dim[8],
        atom_norm[8];
    alignas(64) int64_t m[8], stop[8], atom_n[8];  // m, stop as orbit indices (load_group scales them)
};

// The group's vectors from the scratch its lanes were set in and their bases (start_lane,
// finish_lanes).
template <class V>
MS_AVX512_INLINE void load_group(Group<V>& g, const Scratch& s, const GroupSide& side) {
    g.zr = _mm512_load_pd(s.zr);
    g.zi = _mm512_load_pd(s.zi);
    g.dcr = _mm512_load_pd(s.dcr);
    g.dci = _mm512_load_pd(s.dci);
    g.Zr = _mm512_load_pd(s.Zr);
    g.Zi = _mm512_load_pd(s.Zi);
    g.r0 = _mm512_load_pd(s.r0);
    g.m = _mm512_slli_epi64(_mm512_load_si512(s.m), kPointShift);
    g.stop = _mm512_slli_epi64(_mm512_load_si512(s.stop), kPointShift);
    if constexpr (V::kDistance) {
        g.d.re = _mm512_load_pd(s.dre);
        g.d.im = _mm512_load_pd(s.dim);
    }
    if constexpr (V::kAtom) {
        g.atom.norm = _mm512_load_pd(s.atom_norm);
        g.atom.n = _mm512_load_si512(s.atom_n);
        g.atom.base = _mm512_loadu_si512(side.base);
    }
}

// The lane at the orbit's start: m = 0 and Z_0's point.
void at_orbit_start(const Context& c, Scratch& s, int lane) {
    s.m[lane] = 0;
    s.Zr[lane] = c.points[0].re;
    s.Zi[lane] = c.points[0].im;
    s.r0[lane] = c.points[0].r0;
}

// The lane's stop for `limit` iterations left: the limit, or the orbit's last index if sooner.
int64_t lane_stop(const Context& c, int64_t limit) { return limit < c.last ? limit : c.last; }

// A lane without a pixel, at the orbit's start.
void idle_lane(const Context& c, GroupSide& side, Scratch& s, int lane) {
    s.zr[lane] = s.zi[lane] = __builtin_nan("");
    at_orbit_start(c, s, lane);
    s.dcr[lane] = s.dci[lane] = 0.0;
    s.dre[lane] = s.dim[lane] = 0.0;
    s.atom_norm[lane] = 0.0;
    s.atom_n[lane] = 0;
    side.pixel[lane] = -1;
    side.base[lane] = 0;
    side.limit[lane] = INT64_MAX;
    s.stop[lane] = lane_stop(c, INT64_MAX);
}

void start_lane(Context& c, GroupSide& side, Scratch& s, int lane) {
    const DeepLanesRow& row = *c.row;
    for (;;) {
        if (c.next_pixel >= row.count) {
            idle_lane(c, side, s, lane);
            --c.alive;
            return;
        }
        const int q = c.next_pixel++;
        s.zr[lane] = s.zi[lane] = 0.0;
        s.dre[lane] = s.dim[lane] = 0.0;  // D_0 = 0 on the parameter plane
        s.atom_norm[lane] = 0.0;
        s.atom_n[lane] = 0;
        at_orbit_start(c, s, lane);
        side.base[lane] = 0;
        side.pixel[lane] = q;
        s.dcr[lane] = row.dc_re[q];
        s.dci[lane] = row.dc_im[q];
        side.limit[lane] = row.max_iterations;
        s.stop[lane] = lane_stop(c, row.max_iterations);
        if (row.max_iterations > 0) return;
        deep_lanes_inside(row, q, 0);  // no iteration to run: inside at once
        c.counters.iterations += uint64_t(row.max_iterations);
    }
}

// The scalar pass over the lanes in `events` (escaped, rebasing, or at the iteration limit), in
// deep_iterate_pixel's order: the escape, then the rebase, then the limit.
template <class V>
MS_AVX512 __attribute__((noinline)) void finish_lanes(Context& c, Group<V>& g, GroupSide& side, __mmask8 events) {
    const DeepLanesRow& row = *c.row;
    // The full value and the norms as the iteration computed them (the same operations).
    const __m512d fr = _mm512_add_pd(g.Zr, g.zr), fi = _mm512_add_pd(g.Zi, g.zi);
    const __m512d fn = fused_norm(fr, fi), z2 = fused_norm(g.zr, g.zi);
    Scratch s;
    _mm512_store_pd(s.zr, g.zr);
    _mm512_store_pd(s.zi, g.zi);
    _mm512_store_pd(s.dcr, g.dcr);
    _mm512_store_pd(s.dci, g.dci);
    _mm512_store_pd(s.Zr, g.Zr);
    _mm512_store_pd(s.Zi, g.Zi);
    _mm512_store_pd(s.r0, g.r0);
    _mm512_store_pd(s.fr, fr);
    _mm512_store_pd(s.fi, fi);
    _mm512_store_pd(s.fn, fn);
    _mm512_store_pd(s.z2, z2);
    if constexpr (V::kDistance) {
        _mm512_store_pd(s.dre, g.d.re);
        _mm512_store_pd(s.dim, g.d.im);
    }
    if constexpr (V::kAtom) {
        _mm512_store_pd(s.atom_norm, g.atom.norm);
        _mm512_store_si512(s.atom_n, g.atom.n);
    }
    _mm512_store_si512(s.m, _mm512_srli_epi64(g.m, kPointShift));
    _mm512_store_si512(s.stop, _mm512_srli_epi64(g.stop, kPointShift));
    for (unsigned bits = events; bits; bits &= bits - 1) {
        const int lane = __builtin_ctz(bits);
        const int p = side.pixel[lane];
        if (p < 0) {
            idle_lane(c, side, s, lane);
            continue;
        }
        if (s.fn[lane] > kDeepBailoutSquared) {
            const int64_t n = side.base[lane] + s.m[lane];
            row.escape_count[p] = n;
            row.mu[p] = deep_smooth_mu<Formula::Mandelbrot>(n, s.fn[lane]);
            if constexpr (V::kDistance)
                row.distance[p] = deep_distance_estimate<Formula::Mandelbrot>(
                    DeepComplex<double>{s.fr[lane], s.fi[lane]}, s.fn[lane],
                    DeepComplex<double>{s.dre[lane], s.dim[lane]});
            if constexpr (V::kAtom) row.atom_period[p] = float(s.atom_n[lane]);
            c.counters.iterations += uint64_t(n);
            ++c.counters.escaped;
            start_lane(c, side, s, lane);
            continue;
        }
        if (s.fn[lane] < s.z2[lane] || s.m[lane] == row.last_index) {
            s.zr[lane] = s.fr[lane];
            s.zi[lane] = s.fi[lane];
            side.base[lane] += s.m[lane];
            side.limit[lane] = row.max_iterations - side.base[lane];
            s.stop[lane] = lane_stop(c, side.limit[lane]);
            at_orbit_start(c, s, lane);
            ++c.counters.rebases;
        }
        if (!(s.m[lane] < side.limit[lane])) {
            deep_lanes_inside(row, p, s.atom_n[lane]);
            c.counters.iterations += uint64_t(row.max_iterations);
            start_lane(c, side, s, lane);
        }
    }
    load_group(g, s, side);
    // A rebased lane's |z|^2 is its |full|^2 (the same fused norm); a new pixel's is 0.
    g.skip = _mm512_cmp_pd_mask(fused_norm(g.zr, g.zi), g.r0, _CMP_LT_OQ);
}

// An iteration's values before they replace the group's: the new z, m and the point at m (and D).
template <class V>
struct Next {
    __m512d zr, zi, Zr, Zi, r0;
    __m512i m;
    [[no_unique_address]] Derivative<V::kDistance> d;
};

// The complex product a b, unfused (DeepComplex's operator*: this file is built without
// contraction, so each product and sum rounds as there).
MS_AVX512_INLINE void complex_product(__m512d ar, __m512d ai, __m512d br, __m512d bi, __m512d* re, __m512d* im) {
    *re = _mm512_sub_pd(_mm512_mul_pd(ar, br), _mm512_mul_pd(ai, bi));
    *im = _mm512_add_pd(_mm512_mul_pd(ar, bi), _mm512_mul_pd(ai, br));
}

// The perturbation step (Z + (Z + z)) z + dc, fused, for every lane, and the point at m + 1 (m + 0
// for an idle lane). Nothing here waits on the skip test: the loads go out at once.
// kDistance: D <- 2 w D + spacing with w = Z + z, the pixel's full value before the step
// (deep_derivative_step; after a rebase Z_0 + z differs from the loop's w at most in the sign of
// a zero, which the sum with spacing removes).
template <class V>
MS_AVX512_INLINE Next<V> step(const Context& c, const Group<V>& g) {
    Next<V> n;
    const __m512d tr = _mm512_add_pd(g.Zr, _mm512_add_pd(g.Zr, g.zr));
    const __m512d ti = _mm512_add_pd(g.Zi, _mm512_add_pd(g.Zi, g.zi));
    n.zr = _mm512_fmadd_pd(tr, g.zr, _mm512_fnmadd_pd(ti, g.zi, g.dcr));
    n.zi = _mm512_fmadd_pd(tr, g.zi, _mm512_fmadd_pd(ti, g.zr, g.dci));
    if constexpr (V::kDistance) {
        __m512d pr, pi;
        complex_product(_mm512_add_pd(g.Zr, g.zr), _mm512_add_pd(g.Zi, g.zi), g.d.re, g.d.im, &pr, &pi);
        n.d.re = _mm512_add_pd(_mm512_add_pd(pr, pr), _mm512_set1_pd(c.spacing));
        n.d.im = _mm512_add_pd(pi, pi);
    }
    n.m = _mm512_add_epi64(g.m, _mm512_set1_epi64(int64_t(1) << kPointShift));
    load_points(c.points, n.m, &n.Zr, &n.Zi, &n.r0);
    return n;
}

// The skips of the lanes in g.skip (bla_lookup_above_first's choice each): z = A z + B dc, m + the
// skip's length and the point there replace the step's in those lanes.
// kDistance: D <- A D + B spacing in those lanes (deep_derivative_skip). kAtom: each skip's atom
// step (its smallest |Z|^2 inside) is tested before the value it lands on.
template <class V>
MS_AVX512_INLINE void take_skips(Context& c, Group<V>& g, const GroupSide& side, Next<V>* n) {
    alignas(64) int64_t m[8];
    alignas(64) double z2[8];
    _mm512_store_si512(m, _mm512_srli_epi64(g.m, kPointShift));
    _mm512_store_pd(z2, fused_norm(g.zr, g.zi));
    // Each skipping lane takes its entry's A, B and length and the point it lands on, level 0's
    // entry (the single step A = 2 Z_m, B = 1, bla_single_step) as the others: one masked
    // broadcast from memory a value, with no test of the level.
    __m512d ar = _mm512_setzero_pd(), ai = _mm512_setzero_pd(), br = _mm512_setzero_pd(), bi = _mm512_setzero_pd();
    __m512i new_m = n->m;
    __m512d Zr = n->Zr, Zi = n->Zi, r0 = n->r0;
    // kAtom: the lanes whose skip has an inside, its smallest |Z|^2 and that value's m.
    [[maybe_unused]] __mmask8 inside = 0;
    [[maybe_unused]] __m512d inside_norm = _mm512_setzero_pd();
    [[maybe_unused]] __m512i inside_m = _mm512_setzero_si512();
    // Per lane without a branch on the level (a mispredicted branch here flushes the other
    // lanes' and groups' loads in flight): the walk's levels 1 .. top are one masked load and
    // compare (levels 9 and up, rare, in a second round).
    c.counters.bla_skips += uint64_t(__builtin_popcount(g.skip));
    for (unsigned bits = g.skip; bits; bits &= bits - 1) {
        const int lane = __builtin_ctz(bits);
        const int64_t j = m[lane] - 1;  // level 0's entry (1 <= m <= size0: its radius held)
        int top = j == 0 ? c.levels - 1 : __builtin_ctzll(uint64_t(j));
        // No level whose entry is longer than the iterations left: lengths grow with the level
        // (min(2^l, size0 - j)), so the cap is the largest 2^l that fits where size0 - j does not.
        const int64_t max_length = side.limit[lane] - m[lane];
        const int cap = 63 - __builtin_clzll(uint64_t(max_length));
        top = max_length < c.size0 - j && cap < top ? cap : top;
        const double* run = c.chain + bla_lane_chain_offset(c.levels, j);
        const __m512d z2v = _mm512_set1_pd(z2[lane]);
        const int count = top < 8 ? top : 8;
        const __mmask8 valid = __mmask8((1u << count) - 1u);
        const unsigned held = _mm512_mask_cmp_pd_mask(valid, z2v, _mm512_maskz_loadu_pd(valid, run), _CMP_LT_OQ);
        int level = __builtin_ctz(~held);  // the levels held in a row from level 1, at most count
        if (__builtin_expect(level == 8 && top > 8, 0)) {
            for (int first = 8; first < top; first += 8) {
                const int more = top - first < 8 ? top - first : 8;
                const __mmask8 more_valid = __mmask8((1u << more) - 1u);
                const unsigned more_held = _mm512_mask_cmp_pd_mask(
                    more_valid, z2v, _mm512_maskz_loadu_pd(more_valid, run + first), _CMP_LT_OQ);
                const int passed = __builtin_ctz(~more_held);
                level += passed;
                if (passed < more) break;
            }
        }
        // The entry's length, min(2^level, size0 - j) (the odd last entry of a level is shorter).
        const int64_t whole = int64_t(1) << level, rest = c.size0 - j;
        const int64_t length = whole < rest ? whole : rest;
        const int64_t landing = m[lane] + length;
        const Step* entry = c.entries + c.level_offset[level] + (j >> level);
        const BlaLanePoint<double>& point = c.points[landing];
        const __mmask8 one = __mmask8(1u << lane);
        ar = _mm512_mask_broadcastsd_pd(ar, one, _mm_load_sd(&entry->a.re));
        ai = _mm512_mask_broadcastsd_pd(ai, one, _mm_load_sd(&entry->a.im));
        br = _mm512_mask_broadcastsd_pd(br, one, _mm_load_sd(&entry->b.re));
        bi = _mm512_mask_broadcastsd_pd(bi, one, _mm_load_sd(&entry->b.im));
        Zr = _mm512_mask_broadcastsd_pd(Zr, one, _mm_load_sd(&point.re));
        Zi = _mm512_mask_broadcastsd_pd(Zi, one, _mm_load_sd(&point.im));
        r0 = _mm512_mask_broadcastsd_pd(r0, one, _mm_load_sd(&point.r0));
        new_m = _mm512_mask_set1_epi64(new_m, one, landing << kPointShift);
        c.counters.bla_iterations += uint64_t(length);
        if constexpr (V::kAtom) {
            const DeepAtomStep<double>& atom = c.atom_steps[entry - c.entries];
            if (atom.offset != 0) {
                inside |= one;
                inside_norm = _mm512_mask_broadcastsd_pd(inside_norm, one, _mm_load_sd(&atom.norm));
                inside_m = _mm512_mask_set1_epi64(inside_m, one, m[lane] + atom.offset);
            }
        }
    }
    if constexpr (V::kAtom) {
        const __mmask8 smaller = inside & (_mm512_cmpeq_epi64_mask(g.atom.n, _mm512_setzero_si512()) |
                                           _mm512_cmp_pd_mask(inside_norm, g.atom.norm, _CMP_LT_OQ));
        g.atom.norm = _mm512_mask_blend_pd(smaller, g.atom.norm, inside_norm);
        g.atom.n = _mm512_mask_blend_epi64(smaller, g.atom.n, _mm512_add_epi64(g.atom.base, inside_m));
    }
    // deep_fused_mul_add(A, z, bla_apply(B, dc)), deep_perturbation.h's order.
    const __m512d bdr = _mm512_sub_pd(_mm512_mul_pd(br, g.dcr), _mm512_mul_pd(bi, g.dci));
    const __m512d bdi = _mm512_add_pd(_mm512_mul_pd(br, g.dci), _mm512_mul_pd(bi, g.dcr));
    const __m512d kr = _mm512_fmadd_pd(ar, g.zr, _mm512_fnmadd_pd(ai, g.zi, bdr));
    const __m512d ki = _mm512_fmadd_pd(ar, g.zi, _mm512_fmadd_pd(ai, g.zr, bdi));
    n->zr = _mm512_mask_blend_pd(g.skip, n->zr, kr);
    n->zi = _mm512_mask_blend_pd(g.skip, n->zi, ki);
    if constexpr (V::kDistance) {
        __m512d qr, qi;
        complex_product(ar, ai, g.d.re, g.d.im, &qr, &qi);
        const __m512d spacing = _mm512_set1_pd(c.spacing);
        n->d.re = _mm512_mask_blend_pd(g.skip, n->d.re, _mm512_add_pd(qr, _mm512_mul_pd(br, spacing)));
        n->d.im = _mm512_mask_blend_pd(g.skip, n->d.im, _mm512_add_pd(qi, _mm512_mul_pd(bi, spacing)));
    }
    n->m = new_m;
    n->Zr = Zr;
    n->Zi = Zi;
    n->r0 = r0;
}

// The iteration's values into the group; the escape, rebase and limit tests (deep_iterate_pixel's)
// and the next skip test. Returns the lanes with an event.
template <class V>
MS_AVX512_INLINE __mmask8 land(Group<V>& g, const Next<V>& n, __m512d bailout) {
    g.zr = n.zr;
    g.zi = n.zi;
    g.m = n.m;
    g.Zr = n.Zr;
    g.Zi = n.Zi;
    g.r0 = n.r0;
    g.d = n.d;
    const __m512d fr = _mm512_add_pd(g.Zr, g.zr), fi = _mm512_add_pd(g.Zi, g.zi);
    const __m512d fn = fused_norm(fr, fi);
    const __m512d z2 = fused_norm(g.zr, g.zi);
    g.skip = _mm512_cmp_pd_mask(z2, g.r0, _CMP_LT_OQ);
    if constexpr (V::kAtom) {  // the value landed on: the period's n where it is the smallest yet
        const __mmask8 smaller = _mm512_cmpeq_epi64_mask(g.atom.n, _mm512_setzero_si512()) |
                                 _mm512_cmp_pd_mask(fn, g.atom.norm, _CMP_LT_OQ);
        g.atom.norm = _mm512_mask_blend_pd(smaller, g.atom.norm, fn);
        g.atom.n = _mm512_mask_blend_epi64(smaller, g.atom.n,
                                           _mm512_add_epi64(g.atom.base, _mm512_srli_epi64(g.m, kPointShift)));
    }
    return _mm512_cmp_pd_mask(fn, bailout, _CMP_GT_OQ) | _mm512_cmp_pd_mask(fn, z2, _CMP_LT_OQ) |
           _mm512_cmpge_epi64_mask(g.m, g.stop);
}

// finish_lanes on a copy, so that g itself stays in registers.
template <class V>
MS_AVX512_INLINE void finish(Context& c, Group<V>& g, GroupSide& side, __mmask8 events) {
    if (!events) return;
    Group<V> copy = g;
    finish_lanes(c, copy, side, events);
    g = copy;
}

template <class V>
MS_AVX512 void lanes_row(const DeepLanesRow& row, DeepPixelCounters* counters) {
    Context c;
    c.row = &row;
    c.points = row.lane_points;
    c.chain = row.lane_chain;
    const BlaView<double, DeepComplex<double>>& bla = *row.bla;
    c.entries = bla.entries;
    for (int l = 0; l < kBlaMaxLevels; ++l) c.level_offset[l] = bla.level_offset[l];
    c.size0 = bla.level_size[0];
    c.last = row.last_index;
    c.levels = bla.levels;
    c.spacing = row.spacing;
    c.atom_steps = row.atom_steps;
    Group<V> groups[kGroups];
    GroupSide sides[kGroups];
    for (int k = 0; k < kGroups; ++k) {
        Scratch s;
        c.alive += 8;
        for (int lane = 0; lane < 8; ++lane) start_lane(c, sides[k], s, lane);
        Group<V>& g = groups[k];
        load_group(g, s, sides[k]);
        g.skip = 0;
    }
    const __m512d bailout = _mm512_set1_pd(kDeepBailoutSquared);
    // The groups as locals of their own (not an array), so that they live in registers.
    static_assert(kGroups == 4);
    Group<V> g0 = groups[0], g1 = groups[1], g2 = groups[2], g3 = groups[3];
    // A branch a group for its skips, taken in about one pass in six at e50 (one branch for all
    // four would be taken in about half the passes, unpredictably; the branch a group measured
    // faster), and one branch a pass for the events, rarely taken.
    while (c.alive > 0) {
        auto n0 = step(c, g0), n1 = step(c, g1), n2 = step(c, g2), n3 = step(c, g3);
        if (g0.skip) take_skips(c, g0, sides[0], &n0);
        if (g1.skip) take_skips(c, g1, sides[1], &n1);
        if (g2.skip) take_skips(c, g2, sides[2], &n2);
        if (g3.skip) take_skips(c, g3, sides[3], &n3);
        const __mmask8 e0 = land(g0, n0, bailout), e1 = land(g1, n1, bailout), e2 = land(g2, n2, bailout),
                       e3 = land(g3, n3, bailout);
        if (__builtin_expect((e0 | e1 | e2 | e3) != 0, 0)) {
            finish(c, g0, sides[0], e0);
            finish(c, g1, sides[1], e1);
            finish(c, g2, sides[2], e2);
            finish(c, g3, sides[3], e3);
        }
    }
    c.counters.steps = c.counters.iterations - c.counters.bla_iterations;
    counters->iterations += c.counters.iterations;
    counters->bla_iterations += c.counters.bla_iterations;
    counters->bla_skips += c.counters.bla_skips;
    counters->steps += c.counters.steps;
    counters->rebases += c.counters.rebases;
    counters->escaped += c.counters.escaped;
}

}  // namespace

namespace {

// LZCNT (CPUID 0x80000001, ECX bit 5): clang's __builtin_cpu_supports has no name for it.
bool cpu_has_lzcnt() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(0x80000001, &a, &b, &c, &d) != 0 && (c & (1u << 5)) != 0;
}

}  // namespace

bool deep_lanes_row_avx512(const DeepLanesRow& row, DeepPixelCounters* counters) {
    static const bool supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                  __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                                  __builtin_cpu_supports("bmi2") && cpu_has_lzcnt();
    if (!supported || !row.lane_points || !row.lane_chain) return false;
    if (row.distance) {
        if (row.atom_period) lanes_row<Variant<true, true>>(row, counters);
        else lanes_row<Variant<true, false>>(row, counters);
    } else {
        if (row.atom_period) lanes_row<Variant<false, true>>(row, counters);
        else lanes_row<Variant<false, false>>(row, counters);
    }
    return true;
}

}  // namespace ms

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else

namespace ms {
bool deep_lanes_row_avx512(const DeepLanesRow&, DeepPixelCounters*) { return false; }
}  // namespace ms

#endif
