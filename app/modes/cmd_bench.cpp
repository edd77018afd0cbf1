// cmd_bench.cpp: `mandelscope bench [--quick] [--json=FILE]`: the fixed suite of
// bench_suite.h (five views at 1080p and 4K plus the GPU tutorial's seed frame, on every path,
// shortcuts on and off) as a table with the napkin math beside each figure:
//   iterations/s   executed iterations (k per escaping pixel, max_iterations per interior pixel,
//                  k at a periodicity hit, 0 where the cardioid test settles it) over the time;
//   % of limit     over the path's issue bound (compute/perf/perf_model.h, formulas in the header);
//   x ref          the CPU reference's time (FP64, same frame and shortcuts) over the row's;
//   x fast         the CPU fast path's time (same precision; FP64 for the reference) over the row's.
// Then the seed comparison against the tutorial's published times, the back-of-the-envelope
// GPU-vs-CPU estimates against the measured speedup, and the performance targets each path is
// held to (met or MISSED).
// A progress bar runs on stderr; --json writes every row, the machine and the limits.
// `bench --deep [--size=WxH] [--backend=auto|cpu|cuda]` runs the deep zoom's benchmark instead:
// Kalles Fraktaler 2's benchmark locations end to end and with the reference cached, against KF
// 2.12.11's published times (app/bench/deep_bench.h: deep_bench_kf2); on CUDA with several
// devices (every visible one, or --devices=LIST), then each location's frame shared out over
// them against the first alone (deep_bench_devices).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench/bench_suite.h"
#include "app/bench/deep_bench.h"
#include "app/commands.h"
#include "app/modes/machine_json.h"
#include "app/modes/progress.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"
#include "compute/scale/deep_multi_gpu.h"
#include "compute/system/number_text.h"
#include "compute/io/image_io.h"
#include "compute/perf/perf_model.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

std::string times_text(double x) {
    if (x <= 0.0) return "-";
    return printf_text(x >= 10.0 ? "%.0fx" : x >= 0.995 ? "%.1fx" : "%.2gx", x);
}

// The table shows a skip reason up to its first parenthesis or semicolon; the JSON has it all.
std::string short_reason(const BenchRow& r, bool cuda_usable) {
    if (r.path == BenchPath::Cuda && !cuda_usable) return "skipped: no usable CUDA device (see above)";
    std::string reason = r.skipped.substr(0, r.skipped.find_first_of("(;"));
    while (!reason.empty() && reason.back() == ' ') reason.pop_back();
    return "skipped: " + reason;
}

void print_header(const BenchSetup& s) {
    std::string clock_source;
    const double clock_hz = cpu_clock_hz(s.cpu, &clock_source);
    std::printf("Mandelscope bench%s\n",
                s.quick ? " --quick: 1080p only (the full bench adds 4K), medians of up to 3 runs, "
                          "CPU reference rows sampled within 0.3 s each"
                        : ": 1080p and 4K, medians of up to 5 runs, CPU reference rows "
                          "sampled within 2 s each");
    std::printf("CPU   %s: %d cores, %s SIMD (%d-bit), %.2f GHz (%s)\n", s.cpu.model.c_str(), s.cpu.cores,
                s.cpu.simd_target.c_str(), s.cpu.simd_bits, clock_hz / 1e9, clock_source.c_str());
    if (s.cuda_usable) {
        const auto& d = s.cuda.devices.front();
        std::printf("GPU   %s: compute capability %d.%d, %d SMs x %d FP32 / %d FP64 lanes at %.2f GHz\n",
                    d.name.c_str(), d.compute_major, d.compute_minor, d.sm_count, d.fp32_lanes_per_sm,
                    d.fp64_lanes_per_sm, d.clock_khz / 1e6);
    } else {
        std::printf("GPU   none usable: %s\n", s.cuda_reason.c_str());
    }
    std::printf("Limits (iterations/s each path can issue at most: the %% limit column)\n");
    auto line = [](const char* what, const IterationLimit& l) {
        std::printf("  %-14s %9.3g = %s\n", what, l.iterations_per_second, l.formula.c_str());
    };
    line("CPU reference", cpu_reference_iteration_limit(s.cpu));
    line("CPU fast fp32", cpu_fast_iteration_limit(s.cpu, Precision::Fp32));
    line("CPU fast fp64", cpu_fast_iteration_limit(s.cpu, Precision::Fp64));
    if (s.cuda_usable) {
        std::string source;
        cuda_instructions_per_iteration(Precision::Fp32, &source);
        line("CUDA fp32", cuda_iteration_limit(s.cuda.devices.front(), Precision::Fp32));
        line("CUDA fp64", cuda_iteration_limit(s.cuda.devices.front(), Precision::Fp64));
        std::printf("  (CUDA instructions per iteration: %s)\n", source.c_str());
    }
    std::printf(
        "Times: CPU wall time, CUDA events. x ref = CPU reference (FP64) time / time; x fast = CPU fast time "
        "of the same precision (FP64 for the reference) / time; same frame and shortcuts.\n\n");
}

// One frame's rows, printed as soon as the frame is done (a long bench shows its results as it goes).
void print_frame_table(const BenchFrame& frame, const std::vector<BenchRow>& rows, bool cuda_usable) {
    // The seed frame's size is its name's own ("tutorial frame (1536x1024, ...").
    const std::string title = frame.seed ? frame.view_name : frame.view_name + " " + frame.size_name;
    std::printf("%s (%s%dx%d, centre %s, %s, zoom %g, %lld iterations)\n", title.c_str(),
                frame.view.formula == Formula::Mandelbrot
                    ? ""
                    : (std::string(formula_title(frame.view.formula)) + ", ").c_str(),
                frame.view.width, frame.view.height, frame.view.center_re.c_str(), frame.view.center_im.c_str(),
                frame.view.zoom.value(), (long long)frame.view.max_iterations);
    std::printf("  %-14s %-5s %-9s %10s %11s %10s %8s %7s %7s  %s\n", "path", "prec", "shortcuts", "ms", "iterations",
                "iter/s", "% limit", "x ref", "x fast", "note");
    for (const auto& r : rows) {
        const char* shortcuts = r.shortcuts ? "on" : "off";
        if (!r.ran()) {
            std::printf("  %-14s %-5s %-9s %s\n", bench_path_name(r.path), precision_name(r.precision), shortcuts,
                        short_reason(r, cuda_usable).c_str());
            continue;
        }
        std::printf("  %-14s %-5s %-9s %10.2f %11.3g %10.3g %7.1f%% %7s %7s  %s\n", bench_path_name(r.path),
                    precision_name(r.precision), shortcuts, r.ms, double(r.iterations), r.iterations_per_second(),
                    r.percent_of_limit(), times_text(r.speedup_vs_reference).c_str(),
                    times_text(r.speedup_vs_cpu_fast).c_str(), r.note.c_str());
    }
}

const BenchRow* find_row(const std::vector<BenchRow>& rows, const std::string& view, const std::string& size,
                         BenchPath path, Precision p, bool shortcuts) {
    for (const auto& r : rows)
        if (r.view == view && r.size == size && r.path == path && r.precision == p && r.shortcuts == shortcuts &&
            r.ran())
            return &r;
    return nullptr;
}

nlohmann::ordered_json seed_comparison(const std::vector<BenchRow>& rows) {
    std::printf(
        "\nSeed comparison: the GPU tutorial's frame (1536x1024, 20 iterations, real axis -2..1, imaginary "
        "-1..1)\n");
    std::printf(
        "  The tutorial: %.2f s in pure Python on a CPU, %.4f s on a GPU. Its loop stops at |z| >= 2 and keeps "
        "the count;\n  ours runs to |z| > 256 and computes a smooth value, a little more work per pixel.\n",
        kTutorialCpuPythonSeconds, kTutorialGpuSeconds);
    std::printf("  %-14s %-5s %-9s %10s %16s %16s\n", "path", "prec", "shortcuts", "ms", "x tutorial CPU",
                "x tutorial GPU");
    nlohmann::ordered_json j;
    j["view"] = {{"center_re", "-0.5"}, {"center_im", "0"}, {"zoom", 2.0},
                 {"width", 1536},       {"height", 1024},   {"max_iterations", 20}};
    j["tutorial_cpu_python_ms"] = kTutorialCpuPythonSeconds * 1e3;
    j["tutorial_gpu_ms"] = kTutorialGpuSeconds * 1e3;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        if (!r.seed || !r.ran()) continue;
        const double vs_cpu = kTutorialCpuPythonSeconds * 1e3 / r.ms, vs_gpu = kTutorialGpuSeconds * 1e3 / r.ms;
        std::printf("  %-14s %-5s %-9s %10.2f %16s %16s\n", bench_path_name(r.path), precision_name(r.precision),
                    r.shortcuts ? "on" : "off", r.ms, times_text(vs_cpu).c_str(), times_text(vs_gpu).c_str());
        j["rows"].push_back({{"path", bench_path_name(r.path)},
                             {"precision", precision_name(r.precision)},
                             {"shortcuts", r.shortcuts},
                             {"ms", r.ms},
                             {"speedup_vs_tutorial_cpu", vs_cpu},
                             {"speedup_vs_tutorial_gpu", vs_gpu}});
    }
    return j;
}

// The napkin estimates against the measured speedup, on the all-interior frame with the
// shortcuts off (pure iteration throughput: no escapes, no shortcuts).
nlohmann::ordered_json estimates_against_measurement(const std::vector<BenchRow>& rows, const BenchSetup& s,
                                                     const std::string& size) {
    std::printf(
        "\nBack of the envelope: how many times faster than the CPU fast path is the GPU? "
        "(all interior %s, shortcuts off)\n",
        size.c_str());
    nlohmann::ordered_json j;
    j["frame"] = "all interior " + size + ", shortcuts off";
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
        const BenchRow* cpu = find_row(rows, "all interior", size, BenchPath::CpuFast, p, false);
        const BenchRow* gpu = find_row(rows, "all interior", size, BenchPath::Cuda, p, false);
        nlohmann::ordered_json pj;
        if (cpu) {
            pj["cpu_fast_iterations_per_second"] = cpu->iterations_per_second();
            pj["cpu_fast_percent_of_limit"] = cpu->percent_of_limit();
        }
        if (!s.cuda_usable) {
            std::printf("  %s: needs a CUDA device (%s)", precision_name(p), s.cuda_reason.c_str());
            if (cpu) std::printf("; the CPU fast path ran at %.1f%% of its bound", cpu->percent_of_limit());
            std::printf("\n");
            pj["skipped"] = "no usable CUDA device: " + s.cuda_reason;
            j[precision_name(p)] = pj;
            continue;
        }
        const auto estimates = estimate_gpu_speedup(s.cpu, s.cuda.devices.front(), p);
        const SpeedupCheck check = check_speedup_estimates(estimates, cpu ? cpu->iterations_per_second() : 0.0,
                                                           gpu ? gpu->iterations_per_second() : 0.0);
        std::printf("  %s: %s\n", precision_name(p), check.summary.c_str());
        if (cpu && gpu)
            std::printf("    CUDA %.3g iterations/s (%.1f%% of its bound) vs CPU fast %.3g (%.1f%% of its bound)\n",
                        gpu->iterations_per_second(), gpu->percent_of_limit(), cpu->iterations_per_second(),
                        cpu->percent_of_limit());
        pj["measured_speedup"] = check.measured_speedup;
        if (gpu) {
            pj["cuda_iterations_per_second"] = gpu->iterations_per_second();
            pj["cuda_percent_of_limit"] = gpu->percent_of_limit();
        }
        pj["summary"] = check.summary;
        pj["estimates"] = nlohmann::ordered_json::array();
        for (size_t i = 0; i < estimates.size(); ++i) {
            const auto& e = estimates[i];
            const auto& c = check.estimates[i];
            std::printf("    %s\n      GPU %s = %.3g %s/s; CPU %s = %.3g\n", c.sentence.c_str(), e.gpu_formula.c_str(),
                        e.gpu_per_second, e.unit.c_str(), e.cpu_formula.c_str(), e.cpu_per_second);
            pj["estimates"].push_back({{"name", e.name},
                                       {"unit", e.unit},
                                       {"cpu_per_second", e.cpu_per_second},
                                       {"gpu_per_second", e.gpu_per_second},
                                       {"cpu_formula", e.cpu_formula},
                                       {"gpu_formula", e.gpu_formula},
                                       {"estimated_speedup", c.estimated_speedup},
                                       {"ratio_to_measured", c.ratio},
                                       {"sentence", c.sentence}});
        }
        j[precision_name(p)] = pj;
    }
    return j;
}

// "met", or "MISSED" where the figure falls short; the JSON gets NAME_met beside NAME.
const char* mark_target(nlohmann::ordered_json& t, const std::string& name, double measured, double target,
                        int* missed) {
    const bool met = measured >= target;
    t[name + "_met"] = met;
    if (!met) ++*missed;
    return met ? "met" : "MISSED";
}

// The performance targets of the paths: the fast CPU path against the reference, the shortcuts'
// gain on the full set, CUDA's iteration rate; each marked met or MISSED, then how many were missed.
nlohmann::ordered_json targets(const std::vector<BenchRow>& rows, const BenchSetup& s, const std::string& size) {
    nlohmann::ordered_json t;
    int missed = 0, checked = 0;
    std::printf("\nTargets\n");
    if (const BenchRow* r = find_row(rows, "seahorse valley", "1080p", BenchPath::CpuFast, Precision::Fp64, false)) {
        t["cpu_fp64_seahorse_speedup_vs_reference"] = r->speedup_vs_reference;
        std::printf("  CPU fast fp64 / reference, seahorse valley 1080p, shortcuts off: %.1fx (target >= 12x: %s)\n",
                    r->speedup_vs_reference,
                    mark_target(t, "cpu_fp64_seahorse_speedup_vs_reference", r->speedup_vs_reference, 12.0, &missed));
        ++checked;
    }
    for (BenchPath path : {BenchPath::CpuFast, BenchPath::Cuda}) {
        for (Precision p : {Precision::Fp32, Precision::Fp64}) {
            const BenchRow* on = find_row(rows, "full set", size, path, p, true);
            const BenchRow* off = find_row(rows, "full set", size, path, p, false);
            if (!on || !off) continue;
            const double ratio = off->ms / on->ms;
            const int target = path == BenchPath::Cuda ? 4 : 6;
            const std::string name = std::string(path == BenchPath::Cuda ? "cuda_" : "cpu_") + precision_name(p) +
                                     "_full_shortcut_speedup";
            t[name] = ratio;
            // Compared as printed (one decimal), so "5.96x" never reads "6.0x ... MISSED".
            std::printf("  %s %s, full set %s: shortcuts on %.2f ms vs off %.2f ms: %.1fx faster (target >= %dx: %s)\n",
                        bench_path_name(path), precision_name(p), size.c_str(), on->ms, off->ms, ratio, target,
                        mark_target(t, name, std::round(ratio * 10.0) / 10.0, target, &missed));
            ++checked;
        }
    }
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
        if (const BenchRow* r = find_row(rows, "all interior", size, BenchPath::Cuda, p, false)) {
            const std::string name = std::string("cuda_") + precision_name(p) + "_interior_iterations_per_second";
            t[name] = r->iterations_per_second();
            std::printf(
                "  CUDA %s, all interior %s, %d iterations, shortcuts off: %.3g iterations/s (target >= %s: %s)\n",
                precision_name(p), size.c_str(), r->max_iterations, r->iterations_per_second(),
                p == Precision::Fp32 ? "3.5e12" : "2.0e12",
                mark_target(t, name, r->iterations_per_second(), p == Precision::Fp32 ? 3.5e12 : 2.0e12, &missed));
            ++checked;
        }
    }
    if (!s.cuda_usable) std::printf("  CUDA targets: not measured here (%s)\n", s.cuda_reason.c_str());
    if (missed > 0) std::printf("  MISSED: %d of the %d targets measured here\n", missed, checked);
    else std::printf("  all %d targets measured here met\n", checked);
    t["missed"] = missed;
    return t;
}

nlohmann::ordered_json row_json(const BenchRow& r) {
    nlohmann::ordered_json j;
    j["view"] = r.view;
    j["size"] = r.size;
    j["width"] = r.width;
    j["height"] = r.height;
    j["max_iterations"] = r.max_iterations;
    j["formula"] = formula_name(r.formula);
    j["path"] = bench_path_name(r.path);
    j["precision"] = precision_name(r.precision);
    j["shortcuts"] = r.shortcuts;
    if (!r.ran()) {
        j["skipped"] = r.skipped;
        return j;
    }
    j["ms"] = r.ms;
    j["runs"] = r.runs;
    j["iterations"] = r.iterations;
    j["iterations_per_second"] = r.iterations_per_second();
    j["limit_iterations_per_second"] = r.limit.iterations_per_second;
    j["percent_of_limit"] = r.percent_of_limit();
    j["speedup_vs_reference"] = r.speedup_vs_reference;
    j["speedup_vs_cpu_fast"] = r.speedup_vs_cpu_fast;
    j["note"] = r.note;
    if (r.compared)
        j["agreement_with_cpu_fast"] = {{"agree", r.agreement.agree},
                                        {"identical_fraction", r.agreement.identical_fraction},
                                        {"max_mu_difference", r.agreement.max_mu_difference},
                                        {"sentence", r.agreement.sentence}};
    return j;
}

}  // namespace

namespace {

// Both benches write their JSON the same way: whole or not at all (AtomicFile), 1 on failure.
int write_bench_json(const std::string& json_path, const nlohmann::ordered_json& j) {
    try {
        AtomicFile file(json_path);
        const std::string text = j.dump(2) + "\n";
        file.write(text.data(), text.size());
        file.commit();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope bench: %s.\n", e.what());
        return 1;
    }
    std::printf("JSON written to %s\n", json_path.c_str());
    return 0;
}

// `bench --deep`: the kf2 locations (deep_bench_kf2) with a progress bar, and the JSON.
// devices_text: --devices as given ("" when not given: every visible device).
int run_deep_bench(const std::string& size, const std::string& backend, const std::string& json_path,
                   const std::string* devices_text) {
    int width = 0, height = 0;
    if (std::string problem = parse_size_text(size, 1 << 15, &width, &height); !problem.empty()) {
        std::fprintf(stderr, "mandelscope bench: --size: %s.\n", problem.c_str());
        return 2;
    }
    std::string reason;
    const bool cuda_usable = cuda_available(&reason);
    if (backend == "cuda" && !cuda_usable) {
        std::fprintf(stderr, "mandelscope bench: the CUDA backend cannot be used: %s.\n", reason.c_str());
        return 2;
    }
    const bool use_cuda = backend == "cuda" || (backend == "auto" && cuda_usable);
    std::vector<int> devices = deep_visible_devices();
    if (devices_text) {
        if (!use_cuda) {
            std::fprintf(stderr, "mandelscope bench: --devices picks CUDA devices: it needs the CUDA backend.\n");
            return 2;
        }
        if (std::string problem = parse_device_list(*devices_text, int(devices.size()), &devices); !problem.empty()) {
            std::fprintf(stderr, "mandelscope bench: --devices: %s.\n", problem.c_str());
            return 2;
        }
    }
    const CpuInfo cpu = query_cpu_info();
    std::printf("Mandelscope bench --deep\nCPU   %s: %d cores\n", cpu.model.c_str(), cpu.cores);
    if (use_cuda) std::printf("GPU   %s\n", query_cuda_system().devices.front().name.c_str());
    else std::printf("GPU   not used (%s)\n", backend == "cpu" ? "--backend=cpu" : reason.c_str());
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    std::vector<DeepKf2Row> rows;
    try {
        ProgressBar progress("bench --deep");
        rows = deep_bench_kf2((find_data_dir("assets") / "locations").string(), width, height, use_cuda,
                              [&](const std::string& line) {
                                  progress.clear();
                                  std::printf("%s\n", line.c_str());
                                  std::fflush(stdout);
                              },
                              [&](double fraction, const std::string& what) { progress.update(fraction, what); });
        if (use_cuda && devices.size() > 1) {
            progress.clear();
            std::printf("\n");
            deep_bench_devices((find_data_dir("assets") / "locations").string(), width, height, devices, 3,
                               [&](const std::string& line) {
                                   progress.clear();
                                   std::printf("%s\n", line.c_str());
                                   std::fflush(stdout);
                               });
        }
        progress.update(1.0, "done");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope bench: %s.\n", e.what());
        return 1;
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("\nThe deep bench took %.0f s.\n", elapsed_s);
    if (json_path.empty()) return 0;
    nlohmann::ordered_json j;
    j["width"] = width;
    j["height"] = height;
    j["backend"] = use_cuda ? "cuda" : "cpu";
    j["machine"] = {{"cpu", cpu_json(cpu)}};
    j["rows"] = nlohmann::ordered_json::array();
    for (const DeepKf2Row& r : rows) {
        nlohmann::ordered_json row = {{"location", r.location.label}, {"kf_seconds", r.location.kf_seconds}};
        if (!r.missing.empty()) {
            row["skipped"] = r.missing;
        } else {
            const DeepFrameStats& e = r.end_to_end;
            row["numbers"] = deep_number_type_name(e.number_type);
            row["reference_bits"] = e.precision_bits;
            row["reference_iterations"] = e.reference_iterations;
            row["reference_period"] = e.reference_period;
            row["reference_ms"] = e.reference_ms;
            row["bla_ms"] = e.bla_ms;
            row["pixels_ms"] = e.pixels_ms;
            row["end_to_end_ms"] = e.frame_ms;
            row["iterations"] = e.iterations;
            row["bla_iterations"] = e.bla_iterations;
            row["ratio_vs_kf"] = r.ratio;
            row["cached_frame_ms"] = r.cached.frame_ms;
            row["bla_kept_frame_ms"] = r.bla_kept.frame_ms;
        }
        j["rows"].push_back(row);
    }
    return write_bench_json(json_path, j);
}

}  // namespace

int run_bench_command(int argc, char** argv) {
    CLI::App app{"Benchmark every Mandelbrot path on a fixed suite of views", "bench"};
    bool quick = false, deep = false;
    std::string json_path, deep_size = "1024x1024", backend = "auto", devices;
    app.add_flag("--quick", quick, "1080p only, fewer runs, smaller reference samples: under a minute");
    app.add_option("--json", json_path, "Also write the results as JSON to this file");
    app.add_flag("--deep", deep,
                 "The deep zoom's benchmark instead: Kalles Fraktaler 2's benchmark locations against KF 2.12.11");
    app.add_option("--size", deep_size, "--deep: image size WIDTHxHEIGHT (KF's times are for 1024x1024)")
        ->capture_default_str();
    app.add_option("--backend", backend, "--deep: cpu, cuda, or auto (CUDA when a device is usable)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    app.add_option("--devices", devices,
                   "--deep: also share each frame out over these CUDA devices (0,1) against the first alone; "
                   "default: every visible device, where there are several");
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;
    if (!json_path.empty()) {
        if (std::string problem = check_writable(json_path); !problem.empty()) {
            std::fprintf(stderr, "mandelscope bench: %s.\n", problem.c_str());
            return 2;
        }
    }
    if (!deep && (app.get_option("--size")->count() > 0 || app.get_option("--backend")->count() > 0 ||
                  app.get_option("--devices")->count() > 0)) {
        std::fprintf(stderr, "mandelscope bench: --size, --backend and --devices apply to --deep only.\n");
        return 2;
    }
    if (deep) {
        if (quick) {
            std::fprintf(stderr, "mandelscope bench: --quick does not apply to --deep (use a smaller --size).\n");
            return 2;
        }
        return run_deep_bench(deep_size, backend, json_path,
                              app.get_option("--devices")->count() > 0 ? &devices : nullptr);
    }

    BenchSetup setup;
    setup.cpu = query_cpu_info();
    setup.cuda = query_cuda_system();
    setup.cuda_usable = cuda_available(&setup.cuda_reason) && !setup.cuda.devices.empty();
    if (!setup.cuda_usable && setup.cuda_reason.empty()) setup.cuda_reason = setup.cuda.reason;
    setup.palette = make_palette_table(load_palette("classic"));
    setup.quick = quick;
    setup.repeats = quick ? 3 : 5;
    setup.reference_budget_s = quick ? 0.3 : 2.0;
    print_header(setup);
    std::fflush(stdout);

    const auto start = std::chrono::steady_clock::now();
    const std::vector<BenchFrame> frames = bench_frames(quick);
    const int total_steps = int(frames.size()) * kBenchRowsPerFrame;
    int step = 0;
    std::vector<BenchRow> rows;
    {
        ProgressBar progress("bench");
        for (const auto& frame : frames) {
            auto frame_rows = run_bench_frame(
                frame, setup, [&](const std::string& what) { progress.update(double(step++) / total_steps, what); });
            progress.clear();
            print_frame_table(frame, frame_rows, setup.cuda_usable);
            std::fflush(stdout);
            rows.insert(rows.end(), frame_rows.begin(), frame_rows.end());
        }
        progress.update(1.0, "done");
    }
    const std::string largest = quick ? "1080p" : "4K";
    nlohmann::ordered_json seed = seed_comparison(rows);
    nlohmann::ordered_json estimates = estimates_against_measurement(rows, setup, largest);
    nlohmann::ordered_json target_json = targets(rows, setup, largest);
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("\nThe bench took %.0f s.\n", elapsed_s);

    if (!json_path.empty()) {
        nlohmann::ordered_json j;
        j["quick"] = quick;
        j["suite"] = quick ? "1080p only, medians of up to 3 runs, CPU reference sampled within 0.3 s per row"
                           : "1080p and 4K, medians of up to 5 runs, CPU reference sampled within 2 s per row";
        j["elapsed_s"] = elapsed_s;
        j["machine"] = {{"cpu", cpu_json(setup.cpu)}, {"cuda", cuda_json(setup.cuda)}};
        j["machine"]["cuda"]["usable"] = setup.cuda_usable;
        j["machine"]["cuda"]["reason"] = setup.cuda_reason;
        nlohmann::ordered_json limits;
        limits["cpu_reference"] = iteration_limit_json(cpu_reference_iteration_limit(setup.cpu));
        limits["cpu_fast_fp32"] = iteration_limit_json(cpu_fast_iteration_limit(setup.cpu, Precision::Fp32));
        limits["cpu_fast_fp64"] = iteration_limit_json(cpu_fast_iteration_limit(setup.cpu, Precision::Fp64));
        for (Precision p : {Precision::Fp32, Precision::Fp64}) {
            const std::string key = std::string("cuda_") + precision_name(p);
            if (setup.cuda_usable) {
                std::string source;
                cuda_instructions_per_iteration(p, &source);
                limits[key] = iteration_limit_json(cuda_iteration_limit(setup.cuda.devices.front(), p));
                limits[key]["instructions_source"] = source;
            } else {
                limits[key] = {{"skipped", "no usable CUDA device: " + setup.cuda_reason}};
            }
        }
        j["limits"] = limits;
        j["rows"] = nlohmann::ordered_json::array();
        for (const auto& r : rows) j["rows"].push_back(row_json(r));
        j["seed_comparison"] = seed;
        j["estimates"] = estimates;
        j["targets"] = target_json;
        std::printf("\n");
        return write_bench_json(json_path, j);
    }
    return 0;
}

}  // namespace ms
