// test_formulas_cuda.cpp: the CUDA kernels of every formula (compute/fractal/formula.h) and of
// their Julia sets against the CPU reference, as test_mandelbrot_cuda.cpp does for Mandelbrot.
// The kernels perform the reference's operations in its order (formula_math.h; --fmad=false), so
// escape counts agree exactly; smooth values within 1e-3 (hardware log2 on the GPU). With the
// shortcuts off the iteration totals agree exactly too (periodicity stops pixels at different
// steps on the GPU, where it compares at block ends). Skips with the reason where no CUDA device
// can be used.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/fractal/formula.h"
#include "compute/fractal/mandelbrot.h"
#include "compute/fractal/mandelbrot_cuda_tuning.h"
#include "compute/fractal/palette.h"
#include "tests/validate.h"

namespace {

using ms::Formula;

ms::View formula_view(Formula f, bool julia) {
    const ms::FormulaFrame frame = ms::formula_default_frame(f, julia);
    ms::View view;
    view.formula = f;
    view.julia = julia;
    view.center_re = frame.center_re;
    view.center_im = frame.center_im;
    view.zoom = frame.zoom;
    view.width = 301;  // odd sizes: partial tiles and warps
    view.height = 171;
    view.max_iterations = 700;  // past phase 1's 64 steps: the survivors' kernel runs too
    view.julia_re = "-0.1";     // inside every formula's main component (test_formulas.cpp)
    view.julia_im = "0.1";
    return view;
}

// Also a zoom: 30x into the boundary, centred on the pixel of the whole frame that escapes
// last (it lies next to the set), as test_formulas.cpp does, so that the zoomed frame shows both
// outside and inside (a fixed corner of the frame missed every set).
ms::View zoomed(ms::View view) {
    std::vector<float> mu(size_t(view.width) * size_t(view.height));
    ms::mandelbrot_cpu_reference(view, ms::Precision::Fp64, {}, {}, mu.data());
    size_t last = 0;
    for (size_t i = 0; i < mu.size(); ++i)
        if (mu[i] > mu[last]) last = i;
    const double step = ms::pixel_step(view);
    const double x = double(last % size_t(view.width)) + 0.5 - 0.5 * view.width;
    const double y = double(last / size_t(view.width)) + 0.5 - 0.5 * view.height;
    view.center_re = std::to_string(ms::center_re_value(view) + x * step);
    view.center_im = std::to_string(ms::center_im_value(view) - y * step);
    view.zoom = view.zoom.value() * 30.0;
    return view;
}

void expect_matches_reference(const ms::View& view, ms::Precision precision, bool shortcuts_on) {
    const size_t n = size_t(view.width) * size_t(view.height);
    const ms::Shortcuts shortcuts{shortcuts_on, shortcuts_on};
    std::vector<float> reference(n), gpu(n, 12345.0f);
    const auto ref = ms::mandelbrot_cpu_reference(view, precision, shortcuts, {}, reference.data());
    ms::Palette palette;
    palette.stops = {{0.0, 0, 0, 0}, {1.0, 255, 255, 255}};
    const auto got = ms::mandelbrot_cuda_to_host(view, precision, shortcuts, ms::make_palette_table(palette), {},
                                                 nullptr, gpu.data());
    std::vector<int> k_ref(n), k_got(n);
    for (size_t i = 0; i < n; ++i) {
        k_ref[i] = ms::mandelbrot_escape_count(reference[i]);
        k_got[i] = ms::mandelbrot_escape_count(gpu[i]);
    }
    EXPECT_EQ(ms::test::validate_result("escape counts", k_ref.data(), k_got.data(), n, 0.0, 0.0, view.width).mismatches,
              0u);
    std::vector<float> ref_mu, gpu_mu;  // where both escaped
    for (size_t i = 0; i < n; ++i)
        if (k_ref[i] == k_got[i] && k_ref[i] >= 0) {
            ref_mu.push_back(reference[i]);
            gpu_mu.push_back(gpu[i]);
        }
    EXPECT_EQ(ms::test::validate_result("smooth values", ref_mu.data(), gpu_mu.data(), ref_mu.size(), 1e-3).mismatches,
              0u);
    EXPECT_EQ(ref.escaped_pixels, got.escaped_pixels);
    if (!shortcuts_on) EXPECT_EQ(ref.iterations, got.iterations);
    EXPECT_GT(ref.escaped_pixels, 0u);  // the view shows both outside and inside
    EXPECT_LT(ref.escaped_pixels, n);
}

TEST(FormulasCuda, MatchTheReferenceForEveryFormulaAndJuliaSet) {
    SKIP_WITHOUT_CUDA();
    for (Formula f : ms::kAllFormulas)
        for (bool julia : {false, true})
            for (const ms::View& view : {formula_view(f, julia), zoomed(formula_view(f, julia))})
                for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64})
                    for (bool on : {true, false}) {
                        SCOPED_TRACE(std::string(ms::formula_name(f)) + (julia ? " julia " : " ") +
                                     ms::precision_name(precision) + (on ? " shortcuts on" : " shortcuts off") +
                                     " at " + view.center_re + "," + view.center_im);
                        expect_matches_reference(view, precision, on);
                    }
}

TEST(FormulasCuda, MandelbrotOnlyKnobsAreRefusedForOtherFormulas) {
    SKIP_WITHOUT_CUDA();
    ms::View view = formula_view(Formula::Tricorn, false);
    std::vector<float> mu(size_t(view.width) * view.height);
    ms::Palette palette;
    palette.stops = {{0.0, 0, 0, 0}, {1.0, 255, 255, 255}};
    ms::CudaTuning tuning = ms::default_cuda_tuning(ms::Precision::Fp32);
    tuning.naive = true;
    EXPECT_THROW(ms::mandelbrot_cuda_tuned_to_host(view, ms::Precision::Fp32, {}, ms::make_palette_table(palette), {},
                                                   nullptr, mu.data(), tuning),
                 std::invalid_argument);
}

}  // namespace
