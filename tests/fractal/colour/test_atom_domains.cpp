// test_atom_domains.cpp: the atom-domain layer (colouring.h's atom, orbit_features.h's
// kFeatureAtom, deep_atom.h) on the CPU:
//   * known points get their periods: 1 near 0 in the main cardioid, 2 at -0.5 (inside the
//     cardioid, but in the period-2 domain: |z_2| = 1/4 is the orbit's smallest) and at the
//     period-2 nucleus -1, 3 at the airplane's and the rabbit's nuclei, 4 at -1.3107; on the
//     direct reference, its fast path, and the deep path (brute force and perturbation);
//   * the direct paths agree pixel for pixel: the fast SIMD path and the CUDA kernels' blocked
//     orbit (run here on the CPU) give the reference's atom periods exactly, alone and with
//     every other feature, with the shortcuts on or off (the atom variant takes no cardioid
//     shortcut: the periods are the same either way), and the other features do not change;
//   * the deep path agrees: perturbation with BLA against brute force in MPFR, and against the
//     direct FP64 reference on a shallow view, on all but a thin scatter of pixels (two returns
//     towards 0 within rounding, or within a skip's relative error, of each other);
//   * the layer colours: a hue per period, blended by the strength (0: the colour unchanged);
//   * the settings: "atom" in the method list, atom_strength checked and round-tripped.
// The CUDA kernels against these: test_atom_domains_cuda.cpp.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/view/view.h"
#include "compute/fractal/view/view_record.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

namespace {

ms::View test_view(const char* re, const char* im, double zoom, int width, int height, int iterations) {
    ms::View v;
    v.center_re = re;
    v.center_im = im;
    v.zoom = zoom;
    v.width = width;
    v.height = height;
    v.max_iterations = iterations;
    return v;
}

// The full set, seahorse valley, and a boundary spot with long orbits.
std::vector<ms::View> test_views() {
    return {test_view("-0.5", "0", ms::kDefaultZoom, 160, 90, 500), test_view("-0.745", "0.113", 60.0, 128, 96, 2000),
            test_view("-0.1011", "0.9563", 400.0, 96, 96, 3000)};
}

// A 1x1 view samples its centre exactly.
ms::View point(const char* re, const char* im) { return test_view(re, im, 1e6, 1, 1, 5000); }

float direct_atom(const ms::View& view, ms::Precision precision, bool fast) {
    float mu = 0.0f, atom = 0.0f;
    ms::OrbitFeatureOutputs out;
    out.atom = &atom;
    if (fast) ms::direct_features_cpu(view, precision, {}, {}, &mu, out);
    else ms::direct_features_cpu_reference(view, precision, {}, {}, &mu, out);
    return atom;
}

struct KnownPoint {
    const char* re;
    const char* im;
    float period;
};
const KnownPoint kKnownPoints[] = {
    {"0.1", "0.1", 1.0f},
    {"-0.5", "0", 2.0f},
    {"-1", "0", 2.0f},
    {"-1.7548776662", "0", 3.0f},
    {"-0.1225611668766536", "0.7448617666197442", 3.0f},
    {"-1.3107026413368328", "0", 4.0f},
    {"0.5", "0", 1.0f},  // exterior: |z_n| grows from z_1 = c
};

// The CUDA kernels' blocked orbit (orbit_features.h's BlockedOrbit) for every pixel of the view,
// run on the CPU: mu and the atom period (Mandelbrot's parameter plane).
template <typename T>
void blocked_orbit_atoms(const ms::View& view, bool shortcuts, std::vector<float>* mu, std::vector<float>* atom) {
    const ms::PixelGrid grid = ms::make_pixel_grid(view);
    const int max_iterations = ms::direct_iterations(view);
    const int interval = ms::periodicity_interval(max_iterations);
    for (int y = 0; y < view.height; ++y)
        for (int x = 0; x < view.width; ++x) {
            const size_t i = size_t(y) * view.width + x;
            ms::BlockedOrbit<T, ms::kFeatureAtom> orbit;
            orbit.start(T(0), T(0), T(grid.re(x)), T(grid.im(y)), false, 1, interval);
            ms::OrbitState state = ms::OrbitState::Running;
            while (state == ms::OrbitState::Running) state = orbit.run_block(max_iterations, shortcuts, interval);
            float scratch = 0.0f;
            (*mu)[i] = orbit.finish(state, grid.step, &scratch, &scratch, &scratch);
            ms::finish_atom(orbit.acc, &(*atom)[i]);
        }
}

// The fraction of pixels whose periods differ.
double differing(const std::vector<float>& a, const std::vector<float>& b) {
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
    return double(n) / double(a.size());
}

}  // namespace

TEST(AtomDomains, KnownPointsHaveTheirPeriods) {
    for (const KnownPoint& p : kKnownPoints) {
        SCOPED_TRACE(std::string(p.re) + " + " + p.im + "i");
        const ms::View view = point(p.re, p.im);
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            EXPECT_EQ(direct_atom(view, precision, false), p.period);
            EXPECT_EQ(direct_atom(view, precision, true), p.period);
        }
        // The deep path at the same point: brute force, and perturbation (its reference is the
        // point itself, so the pixel's deltas stay 0 and its values are the reference's).
        ms::DeepLocation location = ms::deep_location(view);
        const ms::DeepFrame truth = ms::deep_cpu_reference(location, 1, 1, 0, false, true);
        ASSERT_EQ(truth.atom.size(), 1u);
        EXPECT_EQ(truth.atom[0], p.period);
        ms::DeepRenderOptions options;
        options.atom = true;
        const ms::DeepFrame deep = ms::deep_cpu(location, 1, 1, options);
        ASSERT_EQ(deep.atom.size(), 1u);
        EXPECT_EQ(deep.atom[0], p.period);
    }
}

TEST(AtomDomains, FastPathAndBlockedOrbitMatchTheReference) {
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        for (const ms::View& view : test_views()) {
            SCOPED_TRACE(std::string(ms::precision_name(precision)) + " " + view.center_re + "," + view.center_im);
            const size_t n = size_t(view.width) * view.height;
            // The atom period alone (its own variant), with the shortcuts on and off.
            std::vector<float> mu(n), atom(n), mu_off(n), atom_off(n), fast_mu(n), fast_atom(n);
            ms::OrbitFeatureOutputs out, out_off, fast_out;
            out.atom = atom.data();
            out_off.atom = atom_off.data();
            fast_out.atom = fast_atom.data();
            const auto ref = ms::direct_features_cpu_reference(view, precision, {}, {}, mu.data(), out);
            ms::direct_features_cpu_reference(view, precision, ms::Shortcuts{false, false}, {}, mu_off.data(), out_off);
            const auto fast = ms::direct_features_cpu(view, precision, {}, {}, fast_mu.data(), fast_out);
            EXPECT_EQ(ref.iterations, fast.iterations);
            EXPECT_EQ(ms::test::validate_result("mu", mu.data(), fast_mu.data(), n, 0.0, 0.0, view.width).mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result("atom fast", atom.data(), fast_atom.data(), n, 0.0, 0.0, view.width)
                          .mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result("atom without shortcuts", atom.data(), atom_off.data(), n, 0.0, 0.0,
                                                view.width)
                          .mismatches,
                      0u);
            for (float a : atom) EXPECT_GE(a, 1.0f);
            std::vector<float> blocked_mu(n), blocked_atom(n);
            if (precision == ms::Precision::Fp32) blocked_orbit_atoms<float>(view, true, &blocked_mu, &blocked_atom);
            else blocked_orbit_atoms<double>(view, true, &blocked_mu, &blocked_atom);
            EXPECT_EQ(
                ms::test::validate_result("atom blocked", atom.data(), blocked_atom.data(), n, 0.0, 0.0, view.width)
                    .mismatches,
                0u);

            // With every other feature (the atom-with-all variant): the same periods, and the
            // other features as without the atom period where the cardioid shortcut is off too
            // (the atom variant takes none, so the cardioid's and the bulb's interior periods
            // come from their settled orbits, not from the shortcut's 1 and 2).
            std::vector<float> d(n), s(n), p(n), a(n), d0(n), s0(n), p0(n), m0(n), fd(n), fs(n), fp(n), fa(n);
            const ms::OrbitFeatureOutputs all{d.data(), s.data(), p.data(), a.data()};
            const ms::OrbitFeatureOutputs none{d0.data(), s0.data(), p0.data(), nullptr};
            const ms::OrbitFeatureOutputs fast_all{fd.data(), fs.data(), fp.data(), fa.data()};
            ms::direct_features_cpu_reference(view, precision, {}, {}, mu.data(), all);
            ms::direct_features_cpu_reference(view, precision, ms::Shortcuts{false, true}, {}, m0.data(), none);
            ms::direct_features_cpu(view, precision, {}, {}, fast_mu.data(), fast_all);
            EXPECT_EQ(
                ms::test::validate_result("atom with all", atom.data(), a.data(), n, 0.0, 0.0, view.width).mismatches,
                0u);
            EXPECT_EQ(ms::test::validate_result("atom with all, fast", atom.data(), fa.data(), n, 0.0, 0.0, view.width)
                          .mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result("distance", d0.data(), d.data(), n, 0.0, 0.0, view.width).mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result("stripe", s0.data(), s.data(), n, 0.0, 0.0, view.width).mismatches, 0u);
            EXPECT_EQ(ms::test::validate_result("period", p0.data(), p.data(), n, 0.0, 0.0, view.width).mismatches, 0u);
            EXPECT_EQ(
                ms::test::validate_result("distance fast", d.data(), fd.data(), n, 0.0, 1e-6, view.width).mismatches,
                0u);
            EXPECT_EQ(ms::test::validate_result("period fast", p.data(), fp.data(), n, 0.0, 0.0, view.width).mismatches,
                      0u);
        }
    }
}

TEST(AtomDomains, ASeahorseFrameHasManyDomains) {
    // Seahorse valley lies between the cardioid and the period-2 bulb: its frame holds the
    // domains of many periods, and the cardioid's (1) and the bulb's (2) among them.
    const ms::View view = test_view("-0.745", "0.113", 60.0, 128, 96, 2000);
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), atom(n);
    ms::OrbitFeatureOutputs out;
    out.atom = atom.data();
    ms::direct_features_cpu(view, ms::Precision::Fp64, {}, {}, mu.data(), out);
    const std::set<float> periods(atom.begin(), atom.end());
    EXPECT_GE(periods.size(), 8u);
}

TEST(AtomDomains, DeepPathMatchesTheDirectPath) {
    // Seahorse valley at 1e5 through the deep path (double deltas, rebasing) against the direct
    // FP64 reference over the same pixel grid, and against brute force in MPFR.
    ms::View view = test_view("-0.7436438870371587", "0.1318259042053119", 1e5, 64, 36, 3000);
    const ms::DeepLocation location = ms::deep_location(view);
    ms::DeepRenderOptions options;
    options.atom = true;
    options.number_type = ms::DeepNumberType::Double;
    const ms::DeepFrame deep = ms::deep_cpu(location, view.width, view.height, options);
    const ms::DeepFrame truth = ms::deep_cpu_reference(location, view.width, view.height, 0, false, true);
    ASSERT_EQ(deep.atom.size(), truth.atom.size());
    const double against_truth = differing(deep.atom, truth.atom);
    std::printf("  deep against brute force: %.2f%% of the pixels differ\n", 100.0 * against_truth);
    EXPECT_LE(against_truth, 0.01);
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), atom(n);
    ms::OrbitFeatureOutputs out;
    out.atom = atom.data();
    ms::direct_features_cpu_reference(view, ms::Precision::Fp64, {}, {}, mu.data(), out);
    const double against_direct = differing(deep.atom, atom);
    std::printf("  deep against direct FP64: %.2f%% of the pixels differ\n", 100.0 * against_direct);
    EXPECT_LE(against_direct, 0.02);
}

TEST(AtomDomains, DeepSkipsMatchBruteForce) {
    // At 1e20 over a tenth of the iterations are BLA skips: their values come from the atom steps (deep_atom.h).
    // Against brute force in MPFR and against the loop with BLA off (every value formed).
    const ms::DeepLocation location = ms::test::load_location("e50", "1E20");
    const int width = 32, height = 18;
    ms::DeepRenderOptions options;
    options.atom = true;
    options.number_type = ms::DeepNumberType::Double;
    const ms::DeepFrame deep = ms::deep_cpu(location, width, height, options);
    EXPECT_GT(deep.stats.bla_iterations, deep.stats.iterations / 10);
    const ms::DeepFrame truth = ms::deep_cpu_reference(location, width, height, 0, false, true);
    const double against_truth = differing(deep.atom, truth.atom);
    std::printf("  deep against brute force: %.2f%% of the pixels differ\n", 100.0 * against_truth);
    EXPECT_LE(against_truth, 0.01);
    ms::DeepRenderOptions no_bla = options;
    no_bla.use_bla = false;
    const ms::DeepFrame stepped = ms::deep_cpu(location, width, height, no_bla);
    EXPECT_EQ(stepped.stats.bla_iterations, 0u);
    EXPECT_LE(differing(deep.atom, stepped.atom), 0.01);
    // The atom loop leaves the escape counts as the smooth-only loop gives them.
    ms::DeepRenderOptions plain;
    plain.number_type = ms::DeepNumberType::Double;
    const ms::DeepFrame smooth = ms::deep_cpu(location, width, height, plain);
    EXPECT_EQ(ms::test::validate_result("escape count", smooth.escape_count.data(), deep.escape_count.data(),
                                        deep.escape_count.size(), 0.0, 0.0, width)
                  .mismatches,
              0u);
    // And the same periods with the distance estimate beside them.
    options.distance = true;
    const ms::DeepFrame with_distance = ms::deep_cpu(location, width, height, options);
    EXPECT_EQ(differing(deep.atom, with_distance.atom), 0.0);
}

TEST(AtomDomains, DeepFloatExpMatchesDouble) {
    // The FloatExp loop and its atom steps give the double loop's periods (the same orbit
    // values, in another number type).
    ms::View view = test_view("-0.7436438870371587", "0.1318259042053119", 1e5, 48, 27, 3000);
    const ms::DeepLocation location = ms::deep_location(view);
    ms::DeepRenderOptions options;
    options.atom = true;
    options.number_type = ms::DeepNumberType::Double;
    const ms::DeepFrame d = ms::deep_cpu(location, view.width, view.height, options);
    options.number_type = ms::DeepNumberType::FloatExp;
    const ms::DeepFrame f = ms::deep_cpu(location, view.width, view.height, options);
    EXPECT_LE(differing(d.atom, f.atom), 0.01);
}

TEST(AtomDomains, LayerBlendsAHuePerPeriod) {
    // Neighbouring periods get different hues.
    std::set<uint32_t> hues;
    for (int period = 1; period <= 12; ++period) hues.insert(ms::atom_domain_rgb(float(period)));
    EXPECT_EQ(hues.size(), 12u);
    ms::ColourParams p;
    p.interior_rgba = 0xff000000u;
    p.atom = true;
    const uint32_t hue = ms::atom_domain_rgb(3.0f);
    // Interior: the interior colour moved towards the hue by the strength.
    p.atom_strength = 1.0f;
    EXPECT_EQ(ms::colour_pixel(p, -1.0f, 0, 0, 0, 0, 0, 3.0f), hue);
    p.atom_strength = 0.0f;
    EXPECT_EQ(ms::colour_pixel(p, -1.0f, 0, 0, 0, 0, 0, 3.0f), p.interior_rgba);
    p.atom_strength = 0.5f;
    const uint32_t half = ms::colour_pixel(p, -1.0f, 0, 0, 0, 0, 0, 3.0f);
    EXPECT_NE(half, hue);
    EXPECT_NE(half, p.interior_rgba);
    // The layer off: the period is not looked at.
    p.atom = false;
    EXPECT_EQ(ms::colour_pixel(p, -1.0f, 0, 0, 0, 0, 0, 3.0f), p.interior_rgba);
}

TEST(AtomDomains, FramesWithTheLayerDifferAndTheFastFrameMatchesItsReference) {
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    ms::View view = test_view("-0.745", "0.113", 60.0, 96, 72, 1000);
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n);
    std::vector<uint8_t> plain(n * 4), atom(n * 4), atom_fast(n * 4);
    ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), plain.data(), {}, true);
    ASSERT_EQ(ms::parse_colouring_methods("smooth,atom", &view.colouring), "");
    ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), atom.data(), {}, true);
    ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), atom_fast.data(), {}, false);
    EXPECT_GT(
        ms::test::validate_result("layer on against off", plain.data(), atom.data(), n * 4, 8.0, 0.0, view.width * 4, 0)
            .mismatches,
        n);
    EXPECT_EQ(
        ms::test::validate_result("fast", atom.data(), atom_fast.data(), n * 4, 0.0, 0.0, view.width * 4).mismatches,
        0u);
    // A deep frame with the layer colours through the same pass.
    ms::DeepRenderOptions options;
    ms::deep_options_for_colouring(view.colouring, &options);
    EXPECT_TRUE(options.atom);
    const ms::DeepFrame deep = ms::deep_cpu(ms::deep_location(view), view.width, view.height, options);
    std::vector<uint8_t> deep_rgba(n * 4);
    ms::colour_deep_frame(deep, table, view, 1.0, deep_rgba.data());
    EXPECT_EQ(ms::deep_colouring_problem(view.colouring), "");
}

TEST(AtomDomains, SettingsParseValidateAndRoundTrip) {
    ms::Colouring c;
    ASSERT_EQ(ms::parse_colouring_methods("histogram,de,atom", &c), "");
    EXPECT_TRUE(c.atom_domains);
    EXPECT_TRUE(c.distance_estimation);
    EXPECT_EQ(ms::colouring_methods_text(c), "histogram,de,atom");
    EXPECT_FALSE(ms::colouring_is_plain(c));
    EXPECT_EQ(ms::colouring_orbit_features(c), ms::kFeatureDistance | ms::kFeatureAtom);
    EXPECT_NE(ms::parse_colouring_methods("smooth,atom,atom", &c), "");
    ms::Colouring only;
    ASSERT_EQ(ms::parse_colouring_methods("smooth,atom", &only), "");
    EXPECT_FALSE(ms::colouring_is_plain(only));
    only.atom_strength = 1.5;
    EXPECT_NE(ms::validate_colouring(only), "");
    only.atom_strength = 0.1 + 0.2;  // not a short decimal: must come back bit for bit
    EXPECT_EQ(ms::validate_colouring(only), "");
    ms::ViewRecord record;
    record.view.colouring = only;
    const ms::ViewRecord back = ms::view_from_json(ms::view_to_json(record));
    EXPECT_TRUE(back.view.colouring == only);
    // JSON from before the layer (no atom_strength) reads as the default strength.
    std::string json = ms::view_to_json(ms::ViewRecord{});
    const size_t at = json.find("\"atom_strength\"");
    ASSERT_NE(at, std::string::npos);
    json.replace(at, std::string("\"atom_strength\"").size(), "\"not_a_colouring_key\"");
    EXPECT_EQ(ms::view_from_json(json).view.colouring.atom_strength, ms::Colouring{}.atom_strength);
}
