// cmd_bench.cpp: `mandelscope bench [--quick] [--json=FILE]` (first version): a fixed set of
// views through every path (CPU reference, CPU fast FP32/FP64, CUDA FP32/FP64), shortcuts on
// and off, with the napkin math beside each figure:
//   iterations/s   executed iterations (the reference's count: k per escaping pixel,
//                  max_iterations per interior pixel, k at a periodicity hit, 0 in the cardioid)
//                  over the median time of several runs after a warm-up;
//   % of limit     CPU: cores x SIMD lanes x clock x FP pipes / 9 FP ops per iteration
//                  (cpu_info.h; the reference: one core, one lane);
//                  GPU: SMs x FP lanes x clock / instructions per iteration (kGpuInstructions*);
//   x reference    the CPU reference's time (FP64, same view and shortcuts) over the path's.
// The reference is slow: on big views it runs a subset of evenly spaced rows, scaled to the
// whole frame, and says so. CUDA times are CUDA-event times (FrameStats::compute_ms).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/progress.h"
#include "compute/cpu_info.h"
#include "compute/cuda_info.h"
#include "compute/image_io.h"
#include "compute/mandelbrot.h"
#include "compute/palette.h"

namespace ms {

namespace {

// GPU instructions per iteration assumed for the bound (FP instructions the SM issues per
// lane): FP64 z^2 + c with the escape test is ~7 (DMUL, 3 DFMA, DADD, DMUL/DFMA for |z|^2,
// DSETP); FP32 ~8 (the same plus the loop's predicate/counter work landing on FP32 pipes).
// They give the H100 bounds: 132 SMs x 64 x 1.98 GHz / 7 = 2.4e12 (FP64) and
// 132 x 128 x 1.98 GHz / 8 = 4.2e12 (FP32).
constexpr int kGpuInstructionsFp64 = 7;
constexpr int kGpuInstructionsFp32 = 8;

struct BenchView {
    std::string name;
    View view;
};

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

std::vector<BenchView> bench_views(bool quick) {
    return {
        {"full set 4K", make_view("-0.75", "0", 1.0, 3840, 2160, 1000)},
        {"full set 1080p", make_view("-0.75", "0", 1.0, 1920, 1080, 1000)},
        {"seahorse valley 1080p", make_view("-0.7436447860", "0.1318252536", 3000.0, 1920, 1080, 1000)},
        // Inside the main cardioid everywhere: the cardioid test settles it at once, and with
        // the shortcuts off every pixel runs max_iterations (the CUDA target view).
        {"all interior 4K", make_view("-0.2", "0", 10.0, 3840, 2160, quick ? 1000 : 10000)},
    };
}

struct Row {
    std::string view;
    int width = 0, height = 0, max_iterations = 0;
    std::string path;  // "CPU reference", "CPU fast", "CUDA"
    Precision precision = Precision::Fp64;
    bool shortcuts = true;
    bool available = true;
    std::string note;
    double ms = 0.0;
    uint64_t iterations = 0;
    double limit = 0.0;  // iterations/s the machine can issue on this path
    double reference_ms = 0.0;
    int runs = 0;
    double iterations_per_second() const { return ms > 0 ? double(iterations) / (ms * 1e-3) : 0.0; }
    double percent_of_limit() const { return limit > 0 ? 100.0 * iterations_per_second() / limit : 0.0; }
    double ratio() const { return ms > 0 && reference_ms > 0 ? reference_ms / ms : 0.0; }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Runs `once` (returning the frame's time in ms) after one warm-up, reps times, and takes the
// median; long frames get fewer repetitions so the whole bench stays within minutes.
template <typename F>
double timed_median(F once, int reps, int* runs) {
    const double warm_ms = once();
    if (warm_ms > 2000.0) reps = std::min(reps, 1);
    else if (warm_ms > 500.0) reps = std::min(reps, 3);
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) times.push_back(once());
    *runs = reps;
    return median(times);
}

void print_row(const Row& r) {
    char shortcuts[8];
    std::snprintf(shortcuts, sizeof shortcuts, "%s", r.shortcuts ? "on" : "off");
    if (!r.available) {
        std::printf("  %-14s %-5s %-4s  %s\n", r.path.c_str(), precision_name(r.precision), shortcuts, r.note.c_str());
        return;
    }
    std::printf("  %-14s %-5s %-4s %10.1f %11.3g %10.3g %7.1f%% %8.1fx  %s\n", r.path.c_str(),
                precision_name(r.precision), shortcuts, r.ms, double(r.iterations), r.iterations_per_second(),
                r.percent_of_limit(), r.ratio(), r.note.c_str());
}

nlohmann::ordered_json row_json(const Row& r) {
    nlohmann::ordered_json j;
    j["view"] = r.view;
    j["width"] = r.width;
    j["height"] = r.height;
    j["max_iterations"] = r.max_iterations;
    j["path"] = r.path;
    j["precision"] = precision_name(r.precision);
    j["shortcuts"] = r.shortcuts;
    j["available"] = r.available;
    j["note"] = r.note;
    if (r.available) {
        j["ms"] = r.ms;
        j["runs"] = r.runs;
        j["iterations"] = r.iterations;
        j["iterations_per_second"] = r.iterations_per_second();
        j["limit_iterations_per_second"] = r.limit;
        j["percent_of_limit"] = r.percent_of_limit();
        j["ratio_to_reference"] = r.ratio();
    }
    return j;
}

const Row* find_row(const std::vector<Row>& rows, const std::string& view, const std::string& path, Precision p,
                    bool shortcuts) {
    for (const auto& r : rows)
        if (r.view == view && r.path == path && r.precision == p && r.shortcuts == shortcuts && r.available) return &r;
    return nullptr;
}

}  // namespace

int run_bench_command(int argc, char** argv) {
    CLI::App app{"Benchmark every Mandelbrot path on a fixed set of views", "bench"};
    bool quick = false;
    std::string json_path;
    app.add_flag("--quick", quick, "Smaller budget: finishes in under a minute");
    app.add_option("--json", json_path, "Also write the results as JSON to this file");
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;
    if (!json_path.empty()) {
        if (std::string problem = check_writable(json_path); !problem.empty()) {
            std::fprintf(stderr, "mandelscope bench: %s.\n", problem.c_str());
            return 2;
        }
    }

    const CpuInfo cpu = query_cpu_info();
    const CudaSystemInfo cuda = query_cuda_system();
    std::string cuda_reason;
    const bool have_cuda = cuda_available(&cuda_reason);
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    const int reps = quick ? 3 : 5;
    const double reference_budget_s = quick ? 0.4 : 2.0;  // per reference measurement
    const double reference_rate_guess = 4e8;              // iterations/s, to size the subset

    std::string clock_source;
    const double clock_hz = cpu_clock_hz(cpu, &clock_source);
    std::printf("Mandelscope bench%s\n", quick ? " (quick)" : "");
    std::printf("CPU   %s: %d cores, %s SIMD (%d-bit), %.2f GHz (%s)\n", cpu.model.c_str(), cpu.cores,
                cpu.simd_target.c_str(), cpu.simd_bits, clock_hz / 1e9, clock_source.c_str());
    std::printf("      limit = cores x lanes x clock x %d FP pipes / %d FP ops per iteration = %.3g FP32, %.3g FP64 "
                "iterations/s (reference: 1 core, 1 lane: %.3g)\n",
                cpu.fp_pipes, kCpuFpOpsPerIteration, cpu_iteration_limit(cpu, Precision::Fp32),
                cpu_iteration_limit(cpu, Precision::Fp64), clock_hz * cpu.fp_pipes / kCpuFpOpsPerIteration);
    if (have_cuda && !cuda.devices.empty()) {
        const auto& d = cuda.devices.front();
        std::printf("GPU   %s: %d SMs x %d FP32 / %d FP64 lanes at %.2f GHz; limit = SMs x lanes x clock / %d (FP32) "
                    "or %d (FP64) instructions per iteration = %.3g FP32, %.3g FP64 iterations/s\n",
                    d.name.c_str(), d.sm_count, d.fp32_lanes_per_sm, d.fp64_lanes_per_sm, d.clock_khz / 1e6,
                    kGpuInstructionsFp32, kGpuInstructionsFp64,
                    double(d.sm_count) * d.fp32_lanes_per_sm * d.clock_khz * 1e3 / kGpuInstructionsFp32,
                    double(d.sm_count) * d.fp64_lanes_per_sm * d.clock_khz * 1e3 / kGpuInstructionsFp64);
    } else {
        std::printf("GPU   none usable: %s\n", cuda_reason.c_str());
    }
    std::printf("Times are medians of up to %d runs after a warm-up; ratio = CPU reference (FP64) time / time.\n\n", reps);

    const auto views = bench_views(quick);
    // Steps for the progress bar: per view and shortcut setting, reference + 2 CPU + 2 CUDA.
    const int total_steps = int(views.size()) * 2 * 5;
    int step = 0;
    ProgressBar progress("bench");
    std::vector<Row> rows;
    for (const auto& bv : views) {
        const View& view = bv.view;
        std::vector<float> mu(size_t(view.width) * view.height);
        std::vector<uint8_t> rgba(have_cuda ? mu.size() * 4 : 0);
        for (bool shortcuts_on : {true, false}) {
            const Shortcuts shortcuts = shortcuts_on ? Shortcuts{} : Shortcuts{false, false};
            auto base_row = [&](const char* path, Precision p) {
                Row r;
                r.view = bv.name;
                r.width = view.width;
                r.height = view.height;
                r.max_iterations = view.max_iterations;
                r.path = path;
                r.precision = p;
                r.shortcuts = shortcuts_on;
                return r;
            };
            auto label = [&](const std::string& what) {
                progress.update(double(step) / total_steps,
                                bv.name + ": " + what + (shortcuts_on ? ", shortcuts on" : ", shortcuts off"));
                ++step;
            };
            std::vector<Row> group;
            // CPU fast path first: its iteration count (the reference's, exactly) sizes the
            // reference's subset.
            uint64_t fp64_iterations = 0;
            for (Precision p : {Precision::Fp32, Precision::Fp64}) {
                label(std::string("CPU fast ") + precision_name(p));
                Row r = base_row("CPU fast", p);
                FrameStats stats;
                r.ms = timed_median([&] { return (stats = mandelbrot_cpu(view, p, shortcuts, {}, mu.data())).compute_ms; },
                                    reps, &r.runs);
                r.iterations = stats.iterations;
                r.limit = cpu_iteration_limit(cpu, p);
                if (p == Precision::Fp64) fp64_iterations = stats.iterations;
                if (!shortcuts_on && stats.escaped_pixels == 0) r.note = "all interior";
                group.push_back(r);
            }
            {
                label("CPU reference");
                Row r = base_row("CPU reference", Precision::Fp64);
                const double predicted_s = double(fp64_iterations) / reference_rate_guess + 1e-3;
                const double fraction = std::min(1.0, reference_budget_s / predicted_s);
                const int sampled = std::clamp(int(std::ceil(view.height * fraction)), 1, view.height);
                std::vector<float> row_mu(size_t(view.width));
                auto run = [&] {
                    double ms = 0.0;
                    uint64_t iterations = 0;
                    for (int i = 0; i < sampled; ++i) {
                        // Evenly spaced rows, each at the centre of its stripe.
                        const int y = int((i + 0.5) * view.height / sampled);
                        auto stats = mandelbrot_cpu_reference(view, Precision::Fp64, shortcuts, {0, y, view.width, 1},
                                                              row_mu.data());
                        ms += stats.compute_ms;
                        iterations += stats.iterations;
                    }
                    const double scale = double(view.height) / sampled;
                    r.iterations = uint64_t(double(iterations) * scale);
                    return ms * scale;
                };
                // The reference is deterministic and slow: one run (no warm-up) is its figure.
                r.ms = run();
                r.runs = 1;
                r.limit = clock_hz * cpu.fp_pipes / kCpuFpOpsPerIteration;
                if (sampled < view.height)
                    r.note = std::to_string(sampled) + " of " + std::to_string(view.height) + " rows, scaled";
                group.insert(group.begin(), r);
            }
            for (Precision p : {Precision::Fp32, Precision::Fp64}) {
                label(std::string("CUDA ") + precision_name(p));
                Row r = base_row("CUDA", p);
                if (!have_cuda) {
                    r.available = false;
                    r.note = "unavailable: " + cuda_reason;
                } else {
                    try {
                        FrameStats stats;
                        r.ms = timed_median(
                            [&] {
                                return (stats = mandelbrot_cuda_to_host(view, p, shortcuts, palette, {}, rgba.data(), nullptr))
                                    .compute_ms;
                            },
                            reps, &r.runs);
                        r.iterations = stats.iterations;
                        const auto& d = cuda.devices.front();
                        r.limit = p == Precision::Fp32
                                      ? double(d.sm_count) * d.fp32_lanes_per_sm * d.clock_khz * 1e3 / kGpuInstructionsFp32
                                      : double(d.sm_count) * d.fp64_lanes_per_sm * d.clock_khz * 1e3 / kGpuInstructionsFp64;
                        r.note = "CUDA events";
                    } catch (const std::exception& e) {
                        r.available = false;
                        r.note = std::string("failed: ") + e.what();
                    }
                }
                group.push_back(r);
            }
            const double reference_ms = group.front().ms;
            for (auto& r : group) {
                r.reference_ms = reference_ms;
                rows.push_back(r);
            }
        }
    }
    progress.finish();

    // --- Table -------------------------------------------------------------------------------
    std::string current;
    for (const auto& r : rows) {
        if (r.view != current) {
            current = r.view;
            std::printf("%s (%dx%d, %d iterations)\n", r.view.c_str(), r.width, r.height, r.max_iterations);
            std::printf("  %-14s %-5s %-4s %10s %11s %10s %8s %9s\n", "path", "prec", "cut", "ms", "iterations",
                        "iter/s", "% limit", "x ref");
        }
        print_row(r);
    }

    // --- The targets -------------------------------------------------------------
    nlohmann::ordered_json targets;
    std::printf("\nTargets\n");
    if (const Row* r = find_row(rows, "seahorse valley 1080p", "CPU fast", Precision::Fp64, false)) {
        std::printf("  CPU fast FP64 / reference, seahorse valley, shortcuts off: %.1fx (target >= 12x)\n", r->ratio());
        targets["cpu_fp64_seahorse_ratio_to_reference"] = r->ratio();
    }
    for (const char* path : {"CPU fast", "CUDA"}) {
        for (Precision p : {Precision::Fp32, Precision::Fp64}) {
            const Row* on = find_row(rows, "full set 4K", path, p, true);
            const Row* off = find_row(rows, "full set 4K", path, p, false);
            if (!on || !off) continue;
            const double ratio = off->ms / on->ms;
            std::printf("  %s %s, full set 4K: shortcuts on %.1f ms vs off %.1f ms: %.1fx faster (target >= %dx)\n", path,
                        precision_name(p), on->ms, off->ms, ratio, std::string(path) == "CUDA" ? 4 : 6);
            targets[std::string(path == std::string("CUDA") ? "cuda_" : "cpu_") + precision_name(p) +
                    "_full_4k_shortcut_speedup"] = ratio;
        }
    }
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
        if (const Row* r = find_row(rows, "all interior 4K", "CUDA", p, false)) {
            std::printf("  CUDA %s, all-interior 4K, %d iterations, shortcuts off: %.3g iterations/s (target >= %s)\n",
                        precision_name(p), r->max_iterations, r->iterations_per_second(),
                        p == Precision::Fp32 ? "3.5e12" : "2.0e12");
            targets[std::string("cuda_") + precision_name(p) + "_interior_iterations_per_second"] = r->iterations_per_second();
        }
    }
    if (!have_cuda) std::printf("  CUDA targets: not measured here (%s)\n", cuda_reason.c_str());

    if (!json_path.empty()) {
        nlohmann::ordered_json j;
        j["quick"] = quick;
        j["cpu"] = {{"model", cpu.model},
                    {"cores", cpu.cores},
                    {"threads", cpu.threads},
                    {"simd_target", cpu.simd_target},
                    {"simd_bits", cpu.simd_bits},
                    {"clock_hz", clock_hz},
                    {"clock_source", clock_source},
                    {"fp_pipes_per_core", cpu.fp_pipes},
                    {"fp_ops_per_iteration", kCpuFpOpsPerIteration}};
        j["cuda"] = {{"usable", have_cuda}, {"reason", cuda_reason}};
        if (have_cuda && !cuda.devices.empty())
            j["cuda"]["device"] = {{"name", cuda.devices.front().name},
                                   {"sm_count", cuda.devices.front().sm_count},
                                   {"clock_khz", cuda.devices.front().clock_khz},
                                   {"instructions_per_iteration_fp32", kGpuInstructionsFp32},
                                   {"instructions_per_iteration_fp64", kGpuInstructionsFp64}};
        j["rows"] = nlohmann::ordered_json::array();
        for (const auto& r : rows) j["rows"].push_back(row_json(r));
        j["targets"] = targets;
        try {
            AtomicFile file(json_path);
            const std::string text = j.dump(2) + "\n";
            file.write(text.data(), text.size());
            file.commit();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mandelscope bench: %s.\n", e.what());
            return 1;
        }
        std::printf("\nJSON written to %s\n", json_path.c_str());
    }
    return 0;
}

}  // namespace ms
