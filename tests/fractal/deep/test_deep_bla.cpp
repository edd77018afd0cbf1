// test_deep_bla.cpp: the BLA table's per-entry functions (deep_bla.h), which the CPU build
// (OpenMP) and the GPU build (deep_bla_cuda.cu) share. Runs anywhere (no GPU):
//   - the formulas by hand: two single steps merged give A = A_y A_x, B = A_y B_x + B_y and the
//     larger of the min-rule radius and the error budget's; a Tricorn's two matrices compose to
//     the complex map z -> conj(2 Z_1) 2 Z_0 z they stand for;
//   - the OpenMP build (build_bla_table, build_bla_table_matrix) equals, bit for bit, a serial
//     build written here from the same functions, level by level, for complex tables (degree 2 and
//     3, double and FloatExp) and the matrices (Tricorn, Burning Ship): what the GPU build runs
//     per entry is what the CPU's table holds;
//   - a double-delta Mandelbrot table skips from level kBlaFirstSkipLevelDouble up: where the
//     full table's lookup takes a skip at that level or above, its lookup takes the same entry,
//     and it takes a shorter skip only where the iterations left cap the walk there too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/bla_table_compare.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;
using ms::test::load_location;

namespace {

// The table build_bla_table(_matrix) makes, made here one entry at a time on one thread; with
// all_levels, level 0 keeps the single steps' radii (no first skip level).
template <typename T, typename L>
BlaTable<T, L> serial_table(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon, Formula formula,
                            bool all_levels = false) {
    BlaTable<T, L> table;
    const int64_t steps = last_index - 2;
    int64_t total = 0;
    bla_size_levels(steps, &table.view, &total);
    table.entries.resize(size_t(total));
    table.steps = steps;
    constexpr bool kMatrix = std::is_same_v<L, DeepMatrix<T>>;
    std::vector<BlaBudget<T>> budget(kMatrix ? 0 : size_t(total));
    for (int64_t i = 0; i < steps; ++i) {
        if constexpr (kMatrix) {
            table.entries[size_t(i)] = bla_single_step_matrix(z[i + 1], epsilon, formula == Formula::BurningShip);
        } else {
            table.entries[size_t(i)] = bla_single_step(z[i + 1], epsilon, formula_degree(formula));
            budget[size_t(i)] = bla_single_budget(table.entries[size_t(i)], epsilon);
        }
    }
    for (int level = 1; level < table.view.levels; ++level) {
        const int64_t src = table.view.level_offset[level - 1], dst = table.view.level_offset[level];
        for (int64_t j = 0; j < table.view.level_size[level]; ++j)
            bla_merge_entry(table.entries.data() + src, kMatrix ? nullptr : budget.data() + src,
                            table.view.level_size[level - 1], j, max_dc, epsilon, table.entries.data() + dst,
                            kMatrix ? nullptr : budget.data() + dst);
    }
    // Skips from level `first`: level 0's radius at j becomes the smallest radius of the entries
    // at j from level 0 to `first` where 2^first divides j, and 0 elsewhere.
    const int first = all_levels ? 0 : bla_first_skip_level<T>(formula_degree(formula), table.view.levels);
    if (first > 0) {
        std::vector<T> raised(static_cast<size_t>(steps));
        for (int64_t j = 0; j < steps; ++j) {
            raised[size_t(j)] = T{};
            if (j % (int64_t(1) << first) != 0) continue;
            T smallest = table.entries[size_t(j)].r2;
            for (int level = 1; level <= first; ++level) {
                const T r2 = table.entries[size_t(table.view.level_offset[level] + (j >> level))].r2;
                if (r2 < smallest) smallest = r2;
            }
            raised[size_t(j)] = smallest;
        }
        for (int64_t j = 0; j < steps; ++j) table.entries[size_t(j)].r2 = raised[size_t(j)];
    }
    table.view.entries = table.entries.data();
    return table;
}

// The frame's orbit and largest |dc| (deep_frame_setup), its table from the OpenMP build and from
// serial_table: equal bit for bit.
template <typename T, typename L>
void expect_build_matches_serial(const char* name, const DeepLocation& location, int width, int height) {
    DeepFrame frame;
    DeepRenderOptions options;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    const DeepBlaRequest request = deep_bla_request(setup, options);
    const T max_dc = deep_from_floatexp<T>(request.build_dc);
    const DeepComplex<T>* z = deep_orbit_data<T>(*setup.orbit);
    const int64_t last = setup.orbit->last_index();
    BlaTable<T, L> built;
    if constexpr (std::is_same_v<L, DeepMatrix<T>>)
        ASSERT_TRUE(build_bla_table_matrix(z, last, max_dc, request.epsilon, nullptr, &built,
                                           location.formula == Formula::BurningShip));
    else
        ASSERT_TRUE(
            build_bla_table(z, last, max_dc, request.epsilon, nullptr, &built, formula_degree(location.formula)));
    ASSERT_GT(built.view.levels, 1) << name;
    const BlaTable<T, L> serial = serial_table<T, L>(z, last, max_dc, request.epsilon, location.formula);
    EXPECT_EQ(test::compare_bla_tables(name, serial, built), 0u) << name;
    // The compact radii the CPU's lanes read are the entries' own.
    ASSERT_EQ(built.r2.size(), built.entries.size());
    for (size_t i = 0; i < built.r2.size(); ++i) ASSERT_TRUE(built.r2[i] == built.entries[i].r2) << name << " " << i;
}

}  // namespace

// Two Mandelbrot single steps at Z_1, Z_2 merged, computed by hand from deep_bla.h's formulas.
TEST(DeepBla, MergeFollowsTheFormulas) {
    const double epsilon = kBlaDefaultEpsilon, max_dc = 1e-30;
    const DeepComplex<double> z1{0.3, -0.4}, z2{-0.25, 0.6};
    const BlaStep<double> x = bla_single_step(z1, epsilon, 2), y = bla_single_step(z2, epsilon, 2);
    EXPECT_EQ(x.a.re, 0.6);
    EXPECT_EQ(x.a.im, -0.8);
    EXPECT_EQ(x.b.re, 1.0);
    EXPECT_EQ(x.b.im, 0.0);
    EXPECT_NEAR(std::sqrt(x.r2), epsilon * 1.0, 1e-30);  // |2 Z_1| = 1
    const BlaBudget<double> bx = bla_single_budget(x, epsilon), by = bla_single_budget(y, epsilon);
    EXPECT_NEAR(bx.s_a, 1.0, 1e-15);  // epsilon / (epsilon |2 Z_1|)
    EXPECT_EQ(bx.s_b, 0.0);

    BlaStep<double> merged[1];
    BlaBudget<double> budget[1];
    const BlaStep<double> pair[2] = {x, y};
    const BlaBudget<double> pair_budget[2] = {bx, by};
    bla_merge_entry(pair, pair_budget, 2, 0, max_dc, epsilon, merged, budget);
    const BlaStep<double>& m = merged[0];
    // A = A_y A_x, B = A_y B_x + B_y = A_y + 1.
    const double ay_re = -0.5, ay_im = 1.2;
    EXPECT_DOUBLE_EQ(m.a.re, ay_re * 0.6 - ay_im * -0.8);
    EXPECT_DOUBLE_EQ(m.a.im, ay_re * -0.8 + ay_im * 0.6);
    EXPECT_DOUBLE_EQ(m.b.re, ay_re + 1.0);
    EXPECT_DOUBLE_EQ(m.b.im, ay_im);
    EXPECT_EQ(m.length, 2);
    // The min rule: min(r_x, (r_y - |B_x| max|dc|) / |A_x|), |A_x| = 1, |B_x| = 1, r_y = epsilon 1.3.
    const double r_min = std::min(epsilon * 1.0, (epsilon * 1.3 - max_dc) / 1.0);
    // The budget: S_A = 1 / |2 Z_1| + |A_x| / |2 Z_2| = 1 + 1 / 1.3, S_B = |B_x| / |2 Z_2|; the
    // radius (2 epsilon - S_B max|dc|) / S_A.
    const double s_a = 1.0 + 1.0 / 1.3, s_b = 1.0 / 1.3;
    EXPECT_NEAR(budget[0].s_a, s_a, 1e-15);
    EXPECT_NEAR(budget[0].s_b, s_b, 1e-15);
    const double r_budget = (2.0 * epsilon - s_b * max_dc) / s_a;
    EXPECT_GT(r_budget, r_min);  // here the budget's is the larger: it is the one kept
    EXPECT_NEAR(std::sqrt(m.r2), r_budget, 1e-12 * r_budget);

    // The odd last entry of a level is copied up unchanged.
    BlaStep<double> up[2];
    BlaBudget<double> up_budget[2];
    const BlaStep<double> three[3] = {x, y, x};
    const BlaBudget<double> three_budget[3] = {bx, by, bx};
    bla_merge_entry(three, three_budget, 3, 1, max_dc, epsilon, up, up_budget);
    EXPECT_EQ(up[1].r2, x.r2);
    EXPECT_EQ(up[1].length, 1);
    EXPECT_EQ(up_budget[1].s_a, bx.s_a);
}

// The Tricorn's step z -> conj(2 Z z): two merged give conj(2 Z_1) 2 Z_0 z, a complex
// multiplication, which the matrix product must reproduce; B = A_y B_x + B_y = A_y + I.
TEST(DeepBla, TricornMatricesCompose) {
    const double epsilon = kBlaDefaultEpsilon;
    const DeepComplex<double> z0{0.3, -0.4}, z1{-0.25, 0.6};
    const auto x = bla_single_step_matrix(z0, epsilon, false), y = bla_single_step_matrix(z1, epsilon, false);
    const auto m = bla_merge(x, y, 0.0);
    const DeepComplex<double> v{0.7, 0.2};
    // conj(2 Z_1 conj(2 Z_0 v)) = conj(2 Z_1) 2 Z_0 v
    const DeepComplex<double> two_z0{0.6, -0.8}, conj_two_z1{-0.5, -1.2};
    const DeepComplex<double> expected = conj_two_z1 * (two_z0 * v);
    const DeepComplex<double> got = bla_apply(m.a, v);
    EXPECT_NEAR(got.re, expected.re, 1e-15);
    EXPECT_NEAR(got.im, expected.im, 1e-15);
    // B v = A_y v + v with A_y v = conj(2 Z_1 v).
    const DeepComplex<double> ay_v{(-0.5 * 0.7 - 1.2 * 0.2), -(-0.5 * 0.2 + 1.2 * 0.7)};
    const DeepComplex<double> b_v = bla_apply(m.b, v);
    EXPECT_NEAR(b_v.re, ay_v.re + 0.7, 1e-15);
    EXPECT_NEAR(b_v.im, ay_v.im + 0.2, 1e-15);
    // The Burning Ship's radius also keeps the signs of X and Y: half the smaller |coordinate|.
    const auto ship = bla_single_step_matrix(DeepComplex<double>{1e-20, -3.0}, 0.25, true);
    EXPECT_DOUBLE_EQ(std::sqrt(ship.r2), 0.5e-20);
}

TEST(DeepBla, CpuBuildEqualsTheSharedFunctionsMandelbrot) {
    expect_build_matches_serial<double, DeepComplex<double>>("e50 at 1E20", load_location("e50", "1E20"), 64, 36);
    expect_build_matches_serial<double, DeepComplex<double>>("e113", load_location("e113"), 64, 36);
    expect_build_matches_serial<FloatExp, DeepComplex<FloatExp>>("e1000", load_location("e1000"), 48, 27);
}

// e50 at 1E20 and 5e113: the table with skips from level kBlaFirstSkipLevelDouble against the
// same table with every level, at every level-0 entry, for |z|^2 at each level's radius and just
// below it, and for a run of iterations left that caps the skip.
TEST(DeepBla, SkipsStartAtTheFirstSkipLevel) {
    for (const auto& [name, location] :
         {std::pair<const char*, DeepLocation>{"e50 at 1E20", load_location("e50", "1E20")},
          {"e113", load_location("e113")}}) {
        DeepFrame frame;
        const DeepRenderOptions options;
        const DeepFrameSetup setup = deep_frame_setup(location, 64, 36, options, &frame);
        ASSERT_TRUE(setup.orbit);
        const DeepBlaRequest request = deep_bla_request(setup, options);
        const double max_dc = deep_from_floatexp<double>(request.build_dc);
        const DeepComplex<double>* z = deep_orbit_data<double>(*setup.orbit);
        const int64_t last = setup.orbit->last_index();
        BlaTable<double> built;
        ASSERT_TRUE(build_bla_table(z, last, max_dc, request.epsilon, nullptr, &built, 2));
        const BlaTable<double> all = serial_table<double, DeepComplex<double>>(z, last, max_dc, request.epsilon,
                                                                               Formula::Mandelbrot, true);
        // The level an entry of the full table is on.
        auto level_of = [&](const BlaStep<double>* entry) {
            const int64_t index = entry - all.view.entries;
            int level = 0;
            while (level + 1 < all.view.levels && index >= all.view.level_offset[level + 1]) ++level;
            return level;
        };
        const int first = bla_first_skip_level<double>(2, built.view.levels);
        ASSERT_EQ(first, kBlaFirstSkipLevelDouble) << name;
        const int64_t steps = built.view.level_size[0];
        int64_t taken = 0, shorter = 0;
        for (int64_t j = 0; j < steps; ++j) {
            const int64_t m = j + 1;
            for (int level = 0; level < all.view.levels; ++level) {
                const int64_t ix = j >> level;
                if ((level > 0 && (j & ((int64_t(1) << level) - 1)) != 0) || ix >= all.view.level_size[level]) break;
                const double r2 = all.entries[size_t(all.view.level_offset[level] + ix)].r2;
                for (const double z2 : {r2, std::nextafter(r2, 0.0), 0.5 * r2}) {
                    for (const int64_t max_length : {int64_t(1) << 40, int64_t(5)}) {
                        const BlaStep<double>* full = bla_lookup(all.view, m, z2, max_length);
                        const BlaStep<double>* raised = bla_lookup(built.view, m, z2, max_length);
                        if (full && level_of(full) >= first) {
                            ASSERT_TRUE(raised) << name << " j " << j << " level " << level;
                            ASSERT_EQ(raised - built.view.entries, full - all.view.entries) << name << " j " << j;
                            ++taken;
                        } else if (raised) {
                            // A shorter skip only where the iterations left cap it: the full
                            // table's walk then stops at the same entry.
                            ASSERT_LT(max_length, int64_t(1) << first) << name << " j " << j;
                            ASSERT_TRUE(full);
                            ASSERT_EQ(raised - built.view.entries, full - all.view.entries) << name << " j " << j;
                            ++shorter;
                        }
                    }
                }
            }
        }
        EXPECT_GT(taken, 1000) << name;
        std::printf("  %s: %lld skips as the full table's, %lld capped by the iterations left\n", name,
                    (long long)taken, (long long)shorter);
    }
}

TEST(DeepBla, CpuBuildEqualsTheSharedFunctionsFamily) {
    expect_build_matches_serial<double, DeepComplex<double>>(
        "multibrot3", test::boundary_location(test::kMultibrot3, 80, 1000, "1E20"), 48, 27);
    expect_build_matches_serial<FloatExp, DeepComplex<FloatExp>>(
        "multibrot5 (FloatExp)", test::boundary_location(test::kMultibrot5, 80, 1000, "1E20"), 48, 27);
    expect_build_matches_serial<double, DeepMatrix<double>>(
        "tricorn", test::boundary_location(test::kTricorn, 80, 1000, "1E20"), 48, 27);
    expect_build_matches_serial<double, DeepMatrix<double>>(
        "burning ship", test::boundary_location(test::kBurningShip, 80, 1000, "1E20"), 48, 27);
    expect_build_matches_serial<FloatExp, DeepMatrix<FloatExp>>(
        "burning ship tip (FloatExp)", test::boundary_location(test::kBurningShipTip, 215, 1000, "1E60"), 48, 27);
}
