// bench_suite.cpp: the frames of `mandelscope bench` and the measurement of each path on them
// (see bench_suite.h for the rules).
#include "app/bench/bench_suite.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "compute/fractal/direct/direct.h"

namespace ms {

namespace {

const char* const kFp32Unresolved =
    "FP32 cannot resolve this view (neighbouring pixels closer than 8 FP32 ulps); FP64 rows only";

View make_view(const char* re, const char* im, double zoom, int width, int height, int iterations) {
    View v;
    v.center_re = re;
    v.center_im = im;
    v.zoom = zoom;
    v.width = width;
    v.height = height;
    v.max_iterations = iterations;
    return v;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.empty()) return 0.0;
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// One warm-up run, then the median of up to `repeats` runs (3 for frames over 250 ms). With
// long_frame_counts (CPU paths), a warm-up over a second is itself the figure.
template <typename F>
double timed_median(F once, int repeats, bool long_frame_counts, int* runs) {
    const double warm_ms = once();
    if (long_frame_counts && warm_ms > 1000.0) {
        *runs = 1;
        return warm_ms;
    }
    if (warm_ms > 250.0) repeats = std::min(repeats, 3);
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) times.push_back(once());
    *runs = repeats;
    return median(times);
}

}  // namespace

std::vector<BenchFrame> bench_frames(bool quick) {
    struct Spot {
        const char* name;
        const char* re;
        const char* im;
        double zoom;
        int iterations;
    };
    const Spot spots[] = {
        // The default view: the classic full frame (real axis -2..1 at 16:9), 1,000 iterations,
        // the frame of the GPU README's reference figures.
        {"full set", "-0.5", "0", kDefaultZoom, 1000},
        // The valley between the main cardioid and the period-2 bulb, seahorses on both sides.
        {"seahorse valley", "-0.745", "0.11", 60.0, 1000},
        // The valley at the cardioid's cusp, elephants along its edges; orbits near the cusp
        // converge slowly, so periodicity catches them late.
        {"elephant valley", "0.28", "0.008", 60.0, 1000},
        // A real minibrot: the period-10 nucleus on the real axis next to -2, found by Newton's
        // method on f_c^10(0) = 0 (size estimate 5.4e-11: at zoom 1e10 it spans about a third of
        // the height; rendered and checked by eye). FP64 resolves it (pixel step 1.9e-13 at 4K,
        // 8 FP64 ulps near 2 are 3.6e-15); FP32 does not.
        {"minibrot 1e10", "-1.999985881140392107911532", "0", 1e10, 10000},
        // Inside the main cardioid everywhere: the cardioid test settles it at once; with the
        // shortcuts off every pixel runs all 10,000 iterations (the README's throughput view).
        {"all interior", "-0.2", "0", 10.0, 10000},
    };
    struct Size {
        const char* name;
        int width, height;
    };
    std::vector<Size> sizes = {{"1080p", 1920, 1080}};
    if (!quick) sizes.push_back({"4K", 3840, 2160});

    std::vector<BenchFrame> frames;
    // The seed frame: real axis -2..1 and imaginary -1..1 over 1536x1024 square pixels, i.e.
    // centre -0.5 and half height 1 (zoom 2 in the KF convention of view.h), 20 iterations.
    frames.push_back({"tutorial frame", "1536x1024", make_view("-0.5", "0", 2.0, 1536, 1024, 20), true});
    for (const Size& size : sizes)
        for (const Spot& s : spots)
            frames.push_back({s.name, size.name, make_view(s.re, s.im, s.zoom, size.width, size.height, s.iterations)});
    // The formula family: each whole set at its default view, 1080p, 1,000 iterations (Mandelbrot's
    // is "full set" above). Their % limit divides by each formula's own operation count.
    for (Formula f : kAllFormulas) {
        if (f == Formula::Mandelbrot) continue;
        const FormulaFrame frame = formula_default_frame(f, false);
        View v = make_view(frame.center_re, frame.center_im, frame.zoom, 1920, 1080, 1000);
        v.formula = f;
        frames.push_back({formula_name(f), "1080p", v});
    }
    return frames;
}

const char* bench_path_name(BenchPath path) {
    switch (path) {
    case BenchPath::CpuReference: return "CPU reference";
    case BenchPath::CpuFast: return "CPU fast";
    case BenchPath::Cuda: return "CUDA";
    }
    return "?";
}

std::vector<BenchRow> run_bench_frame(const BenchFrame& frame, BenchSetup& setup,
                                      const std::function<void(const std::string&)>& step) {
    const View& view = frame.view;
    const size_t pixels = size_t(view.width) * size_t(view.height);
    const bool fp32_ok = fp32_resolves(view);
    std::vector<float> fast_mu[2];  // [0] FP32, [1] FP64: the frames CUDA is checked against
    std::vector<float> cuda_mu(setup.cuda_usable ? pixels : 0);
    std::vector<uint8_t> rgba(setup.cuda_usable ? pixels * 4 : 0);
    std::vector<BenchRow> rows;

    for (bool shortcuts_on : {true, false}) {
        const Shortcuts shortcuts = shortcuts_on ? Shortcuts{} : Shortcuts{false, false};
        auto make_row = [&](BenchPath path, Precision precision) {
            BenchRow r;
            r.view = frame.view_name;
            r.size = frame.size_name;
            r.width = view.width;
            r.height = view.height;
            r.max_iterations = int(view.max_iterations);
            r.formula = view.formula;
            r.seed = frame.seed;
            r.path = path;
            r.precision = precision;
            r.shortcuts = shortcuts_on;
            return r;
        };
        auto announce = [&](const std::string& what) {
            step(frame.view_name + " " + frame.size_name + ": " + what +
                 (shortcuts_on ? ", shortcuts on" : ", shortcuts off"));
        };
        BenchRow reference = make_row(BenchPath::CpuReference, Precision::Fp64);
        BenchRow fast[2] = {make_row(BenchPath::CpuFast, Precision::Fp32),
                            make_row(BenchPath::CpuFast, Precision::Fp64)};
        BenchRow cuda[2] = {make_row(BenchPath::Cuda, Precision::Fp32), make_row(BenchPath::Cuda, Precision::Fp64)};

        // CPU fast first: its FP64 iteration count (exactly the reference's) sizes the
        // reference's subset.
        for (int i = 0; i < 2; ++i) {
            BenchRow& r = fast[i];
            announce(std::string("CPU fast ") + precision_name(r.precision));
            r.limit = cpu_fast_iteration_limit(setup.cpu, r.precision, view.formula);
            if (r.precision == Precision::Fp32 && !fp32_ok) {
                r.skipped = kFp32Unresolved;
                continue;
            }
            fast_mu[i].resize(pixels);
            FrameStats stats;
            r.ms = timed_median(
                [&] { return (stats = direct_cpu(view, r.precision, shortcuts, {}, fast_mu[i].data())).compute_ms; },
                setup.repeats, true, &r.runs);
            r.iterations = stats.iterations;
            if (stats.escaped_pixels == 0) r.note = "all interior";
            if (r.runs == 1) r.note += std::string(r.note.empty() ? "" : "; ") + "one run (over 1 s)";
        }

        {
            BenchRow& r = reference;
            announce("CPU reference fp64");
            r.limit = cpu_reference_iteration_limit(setup.cpu);
            // Predicted time: the iterations at the assumed rate plus ~30 ns a pixel (the
            // cardioid test, the smooth value's logs).
            const double predicted_s = double(fast[1].iterations) / setup.reference_rate + double(pixels) * 30e-9;
            const double fraction = std::min(1.0, setup.reference_budget_s / predicted_s);
            const int sampled = std::clamp(int(std::ceil(view.height * fraction)), std::min(4, view.height),
                                           view.height);
            std::vector<float> row_mu(size_t(view.width));
            double sampled_ms = 0.0;
            uint64_t sampled_iterations = 0;
            for (int i = 0; i < sampled; ++i) {
                const int y = int((i + 0.5) * view.height / sampled);  // the centre of stripe i
                const FrameStats stats = direct_cpu_reference(view, Precision::Fp64, shortcuts, {0, y, view.width, 1},
                                                              row_mu.data());
                sampled_ms += stats.compute_ms;
                sampled_iterations += stats.iterations;
            }
            const double scale = double(view.height) / sampled;
            r.ms = sampled_ms * scale;
            r.iterations = uint64_t(std::llround(double(sampled_iterations) * scale));
            r.runs = 1;  // deterministic and slow: one run, no warm-up
            if (sampled < view.height)
                r.note = std::to_string(sampled) + " of " + std::to_string(view.height) + " rows, scaled";
            // Learn the rate where iterations dominate the time (not on shortcut-settled frames).
            if (sampled_iterations > 20 * uint64_t(sampled) * uint64_t(view.width) && sampled_ms > 0.0)
                setup.reference_rate = double(sampled_iterations) / (sampled_ms * 1e-3);
        }

        for (int i = 0; i < 2; ++i) {
            BenchRow& r = cuda[i];
            announce(std::string("CUDA ") + precision_name(r.precision));
            if (!setup.cuda_usable) {
                r.skipped = "no usable CUDA device: " + setup.cuda_reason;
                continue;
            }
            r.limit = cuda_iteration_limit(setup.cuda.devices.front(), r.precision, view.formula);
            if (r.precision == Precision::Fp32 && !fp32_ok) {
                r.skipped = kFp32Unresolved;
                continue;
            }
            try {
                FrameStats stats;
                r.ms = timed_median(
                    [&] {
                        stats = direct_cuda_to_host(view, r.precision, shortcuts, setup.palette, {}, rgba.data(),
                                                    cuda_mu.data());
                        return stats.compute_ms;
                    },
                    setup.repeats, false, &r.runs);
                r.iterations = stats.iterations;
                r.note = "CUDA events";
                if (stats.escaped_pixels == 0) r.note += "; all interior";
                if (fast[i].ran()) {
                    r.compared = true;
                    r.agreement = compare_mu_frames(fast_mu[i].data(), cuda_mu.data(), view.width, view.height);
                    if (!r.agreement.agree) r.note += "; DIFFERS from CPU fast";
                }
            } catch (const std::exception& e) {
                r.skipped = std::string("CUDA failed: ") + e.what();
            }
        }

        std::vector<BenchRow*> group = {&reference, &fast[0], &fast[1], &cuda[0], &cuda[1]};
        for (BenchRow* r : group) {
            if (r->ran() && r->ms > 0.0) {
                const BenchRow& same_fast = r->path == BenchPath::CpuReference
                                                ? fast[1]
                                                : fast[r->precision == Precision::Fp32 ? 0 : 1];
                if (reference.ran() && reference.ms > 0.0) r->speedup_vs_reference = reference.ms / r->ms;
                if (same_fast.ran() && same_fast.ms > 0.0) r->speedup_vs_cpu_fast = same_fast.ms / r->ms;
            }
            rows.push_back(*r);
        }
    }
    return rows;
}

}  // namespace ms
