// test_reference_pack.cpp: compute/scale/reference_pack.h. A reference orbit packed and unpacked
// is the same orbit bit for bit (a shallow one, one at 1e1086, a Julia set's pair, a hand-made
// one with values outside double's range), plain and through zlib; a deep frame rendered from the
// unpacked orbit has the original's escape counts and mu to the bit; damaged bytes give a
// sentence, never a crash.
//
// Locations (public; assets/locations/README.md gives their sources): e50 and e1086, Kalles
// Fraktaler 2's benchmark locations "1e50" and "1e1086" (rust-fractal-core's locations/ folder).
// The orbits run a few thousand iterations (the packing does not depend on the count); the
// 1e1086 frame runs the location's own iterations on a 24x16 image.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/scale/reference_pack.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

std::shared_ptr<const ReferenceOrbit> orbit_at(const DeepLocation& location, int64_t iterations) {
    const int64_t bits = deep_reference_precision_bits(location.zoom, 1024);
    return compute_reference_orbit(location.center_re, location.center_im, bits, iterations, {}, orbit_map(location));
}

// Packs with `options`, unpacks, and expects the same orbit.
void expect_round_trip(const ReferenceOrbit& orbit, const ReferencePackOptions& options, const char* what) {
    const std::vector<uint8_t> bytes = pack_reference_orbit(orbit, options);
    ReferenceOrbit back;
    ASSERT_EQ(unpack_reference_orbit(bytes.data(), bytes.size(), &back), "") << what;
    EXPECT_TRUE(reference_orbits_identical(orbit, back)) << what;
}

void expect_round_trips(const ReferenceOrbit& orbit) {
    expect_round_trip(orbit, {}, "plain");
    expect_round_trip(orbit, {.compress = true}, "zlib 1, byte planes");
    expect_round_trip(orbit, {.compress = true, .zlib_level = 9, .shuffle = false}, "zlib 9");
}

}  // namespace

TEST(ReferencePack, ShallowOrbitRoundTrips) {
    const auto orbit = orbit_at(test::load_location("e50"), 5000);
    ASSERT_TRUE(orbit);
    ASSERT_EQ(orbit->last_index(), 5000);
    expect_round_trips(*orbit);
    // Each Z_m travels once, as two doubles: 16 bytes, not the orbit's 48 (plus the texts).
    const std::vector<uint8_t> bytes = pack_reference_orbit(*orbit);
    const size_t texts = orbit->center_re.size() + orbit->center_im.size();
    EXPECT_LE(bytes.size(), 16 * orbit->z.size() + texts + 128);
}

TEST(ReferencePack, DeepOrbitRoundTrips) {
    const DeepLocation location = test::load_location("e1086");
    const auto orbit = orbit_at(location, 5000);
    ASSERT_TRUE(orbit);
    EXPECT_GT(orbit->precision_bits, 3600);
    expect_round_trips(*orbit);
}

TEST(ReferencePack, JuliaOrbitsRoundTrip) {
    DeepLocation location;
    location.center_re = "0.1";
    location.center_im = "0.05";
    location.julia = true;
    location.julia_re = "-0.123";  // near the Douady rabbit: both orbits stay bounded
    location.julia_im = "0.745";
    const auto orbit = orbit_at(location, 3000);
    ASSERT_TRUE(orbit);
    EXPECT_EQ(orbit->z.size(), 3001u);
    EXPECT_EQ(orbit->critical_z.size(), 3001u);
    expect_round_trips(*orbit);
}

// Values a double cannot hold (1e-3000, an unnormalised mantissa, a NaN), zero of both signs, a
// double copy that is not the FloatExp copy rounded, a stopped orbit's period.
TEST(ReferencePack, HandMadeOrbitRoundTrips) {
    ReferenceOrbit orbit;
    orbit.center_re = "-1.5";
    orbit.center_im = "1e-3000";
    orbit.map.julia_re = "ignored by OrbitMap's == on the parameter plane, kept here";
    orbit.precision_bits = 10100;
    orbit.max_iterations = 7;
    orbit.period = 3;
    orbit.nucleus_distance = fe_make(1.25, -9000);
    orbit.min_abs = fe_make(1.5, -9966);
    orbit.compute_ms = 12.375;
    orbit.z_fe = {{FloatExp{}, FloatExp{-0.0, kFloatExpZeroExponent}},
                  {fe_make(1.5, -9966), fe_from_double(0.25)},
                  {FloatExp{3.0, 7}, FloatExp{std::numeric_limits<double>::quiet_NaN(), 0}},
                  {fe_make(1.75, 1023), fe_make(1.0, -1022)},
                  {fe_make(1.5, -1070), fe_make(-1.0, 1024)}};
    for (const auto& v : orbit.z_fe) orbit.z.push_back({fe_to_double(v.re), fe_to_double(v.im)});
    expect_round_trips(orbit);

    ReferenceOrbit odd = orbit;
    odd.z[1].im = 0.5;  // not fe_to_double of its FloatExp: both copies travel
    expect_round_trips(odd);
    odd.z.pop_back();
    expect_round_trips(odd);
}

TEST(ReferencePack, DamagedBytesGiveASentence) {
    const auto orbit = orbit_at(test::load_location("e50"), 200);
    ASSERT_TRUE(orbit);
    for (const ReferencePackOptions& options : {ReferencePackOptions{}, ReferencePackOptions{.compress = true}}) {
        std::vector<uint8_t> bytes = pack_reference_orbit(*orbit, options);
        ReferenceOrbit back;
        for (size_t size = 0; size < bytes.size(); ++size) {
            EXPECT_NE(unpack_reference_orbit(bytes.data(), size, &back), "") << "cut at " << size;
        }
        std::vector<uint8_t> longer = bytes;
        longer.push_back(0);
        if (!options.compress) {
            EXPECT_NE(unpack_reference_orbit(longer.data(), longer.size(), &back), "");
        }
        std::vector<uint8_t> version = bytes;
        version[4] = 99;
        EXPECT_NE(unpack_reference_orbit(version.data(), version.size(), &back), "");
        std::vector<uint8_t> magic = bytes;
        magic[0] = 'X';
        EXPECT_NE(unpack_reference_orbit(magic.data(), magic.size(), &back), "");
    }
}

// A frame at 1e1086 (FloatExp deltas, the location's 600,100 iterations) rendered against the
// unpacked orbit, as another rank renders it, equals the frame rendered against the original.
TEST(ReferencePack, DeepFrameFromUnpackedOrbitIsIdentical) {
    const DeepLocation location = test::load_location("e1086");
    const int width = 24, height = 16;
    ReferenceCache original_cache;
    DeepRenderOptions options;
    options.cache = &original_cache;
    const DeepFrame original = deep_cpu(location, width, height, options);
    ASSERT_TRUE(original.reference);
    EXPECT_EQ(original.stats.number_type, DeepNumberType::FloatExp);
    std::printf("1e1086 frame: reference to %lld (period %lld), %lld ms\n",
                (long long)original.reference->last_index(), (long long)original.reference->period,
                (long long)original.stats.frame_ms);

    const std::vector<uint8_t> bytes = pack_reference_orbit(*original.reference);
    auto unpacked = std::make_shared<ReferenceOrbit>();
    ASSERT_EQ(unpack_reference_orbit(bytes.data(), bytes.size(), unpacked.get()), "");
    ASSERT_TRUE(reference_orbits_identical(*original.reference, *unpacked));

    ReferenceCache cache;
    cache.insert(unpacked);
    options.cache = &cache;
    const DeepFrame frame = deep_cpu(location, width, height, options);
    EXPECT_TRUE(frame.stats.reference_cached) << "the frame ran against the unpacked orbit";
    EXPECT_EQ(frame.reference.get(), unpacked.get());
    ASSERT_EQ(frame.escape_count.size(), original.escape_count.size());
    int64_t escaped = 0;
    for (size_t i = 0; i < frame.escape_count.size(); ++i) {
        EXPECT_EQ(frame.escape_count[i], original.escape_count[i]) << "pixel " << i;
        escaped += frame.escape_count[i] >= 0;
    }
    EXPECT_GT(escaped, 0) << "the frame has escaped pixels to compare";
    ASSERT_EQ(frame.mu.size(), original.mu.size());
    EXPECT_EQ(std::memcmp(frame.mu.data(), original.mu.data(), frame.mu.size() * sizeof(double)), 0);
}
