// mask_bits-inl.h: a Highway mask as the bits of an integer (lane i at bit i), for the SIMD loops
// that walk the lanes a mask holds with ctz. No include guard and no includes of its own, on
// purpose (as fused_lanes-inl.h): a file compiled once per SIMD target (foreach_target.h)
// includes it inside its per-target namespace, after `namespace hn = hwy::HWY_NAMESPACE;`.

template <class D>
HWY_INLINE uint64_t MaskBits(D d, hn::Mask<D> mask) {
    uint8_t bytes[8] = {};
    hn::StoreMaskBits(d, mask, bytes);
    uint64_t bits = 0;
    for (size_t i = 0; i < (hn::Lanes(d) + 7) / 8; ++i) bits |= uint64_t(bytes[i]) << (8 * i);
    return bits;
}
