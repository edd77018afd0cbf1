// reference_pack.h: a reference orbit (compute/fractal/deep/deep_reference.h) as bytes and back,
// bit for bit: rank 0 computes the deep reference once and broadcasts it packed, and the other
// ranks render against the unpacked copy as against their own.
//
// What makes it compact: each Z_m is stored once. The orbit keeps it twice, rounded to double
// and to FloatExp, but the double copy is fe_to_double of the FloatExp one (run_orbit makes it
// so), so only the FloatExp copy travels and unpack rebuilds the doubles. A FloatExp whose value
// lies in double's normal range is that double exactly (a 53-bit mantissa times 2^e), so it
// travels as 8 bytes, and the few that do not (an orbit passing within 1e-308 of 0, an
// unnormalised value) travel whole in a list of exceptions. Z_m: 16 bytes, not the orbit's 48.
// An orbit whose double copy is not fe_to_double of its FloatExp copy (made by hand) sends both.
// Optionally the bytes go through zlib (ReferencePackOptions::compress). A deep orbit shadows
// the periodic cycles of the minibrots it passes, so its bytes repeat and compress several times
// over, the more so as byte planes; but deflating and inflating take longer than the bytes they
// save take over one hop of 10 Gb/s or faster, and the broadcast is small beside computing the
// orbit, so it is off by default (docs/scale.md#the-broadcast-of-the-reference has the figures).
//
// Layout (little-endian): "MSRO", version, flags; the texts (centre, Julia c), the formula, the
// counts and flags, nucleus_distance, min_abs, compute_ms; then each orbit (z, critical_z) as a
// count, its exceptions and its values. Compressed, the 12-byte header is followed by the body's
// length (8 bytes) and zlib's stream of the body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_reference.h"

namespace ms {

struct ReferencePackOptions {
    bool compress = false;  // zlib over the body (see the header comment)
    int zlib_level = 1;     // 1 (fastest) .. 9, when compressing
    // When compressing: the values' bytes as planes (all first bytes, then all second bytes, ...)
    // before zlib, so that the sign-and-exponent bytes sit together and zlib finds their repeats.
    bool shuffle = true;
};

std::vector<uint8_t> pack_reference_orbit(const ReferenceOrbit& orbit, const ReferencePackOptions& options = {});

// Empty string on success, else one sentence (not a packed orbit, another version, cut short,
// a count that does not fit the bytes).
std::string unpack_reference_orbit(const uint8_t* data, size_t size, ReferenceOrbit* out);

// Whether two orbits are equal in every field, the numbers bit for bit (NaN equals the same NaN;
// +0 and -0 differ).
bool reference_orbits_identical(const ReferenceOrbit& a, const ReferenceOrbit& b);

}  // namespace ms
