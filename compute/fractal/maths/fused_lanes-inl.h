// fused_lanes-inl.h: a b + c rounded once, on Highway vectors of any lane type, for the SIMD paths
// that must give the scalar code's std::fma bits. No include guard and no includes of its own, on
// purpose (as formula_step-inl.h): a file compiled once per SIMD target (foreach_target.h) includes
// it inside its per-target namespace, after `namespace hn = hwy::HWY_NAMESPACE;`.
// Highway's MulAdd is fused only on targets with FMA (HWY_NATIVE_FMA); elsewhere (SSE4 and older)
// it would round twice, so std::fma runs on each lane.

template <class V>
HWY_INLINE V FusedMulAdd(V a, V b, V c) {
#if HWY_NATIVE_FMA
    return hn::MulAdd(a, b, c);
#else
    using T = hn::TFromV<V>;
    const hn::DFromV<V> d;
    constexpr size_t kLanes = HWY_MAX_BYTES / sizeof(T);
    HWY_ALIGN T x[kLanes], y[kLanes], w[kLanes];
    hn::Store(a, d, x);
    hn::Store(b, d, y);
    hn::Store(c, d, w);
    for (size_t lane = 0; lane < hn::Lanes(d); ++lane) w[lane] = std::fma(x[lane], y[lane], w[lane]);
    return hn::Load(d, w);
#endif
}

// c - a b rounded once: fma(-a, b, c).
template <class V>
HWY_INLINE V FusedNegMulAdd(V a, V b, V c) {
    return FusedMulAdd(hn::Neg(a), b, c);
}
