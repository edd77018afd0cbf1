// cmd_vecadd.cpp: `mandelscope vecadd`: the vector-add demo on the terminal. Sweeps every
// variant (CPU one thread and all cores; GPU kernel only, with pageable, pinned and streamed
// copies; a device-to-device memcpy for reference) over array sizes, prints the table and the
// lesson computed from it, and optionally writes a CSV. The measuring is compute/vecadd/vecadd.h; this
// file only parses, shows progress and prints.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/commands.h"
#include "compute/io/image_io.h"
#include "compute/system/text_format.h"
#include "compute/vecadd/vecadd.h"

namespace ms {

namespace {

// Progress on stderr: a bar redrawn in place on a terminal, one line per finished size otherwise.
struct ProgressPrinter {
    bool tty = isatty(STDERR_FILENO) != 0;
    size_t variants_per_size = 1;

    void operator()(const VecAddProgress& p) {
        if (p.steps_total == 0) return;
        const double fraction = double(p.steps_done) / double(p.steps_total);
        const std::string size = vecadd_format_elements(double(p.elements));
        if (tty) {
            const int width = 30, filled = int(fraction * width + 0.5);
            std::string bar(size_t(filled), '#');
            bar.append(size_t(width - filled), '-');
            std::fprintf(stderr, "\r[%s] %3.0f%%  %s elements %-18s", bar.c_str(), 100 * fraction, size.c_str(),
                         p.last ? vecadd_variant_name(p.last->variant) : "");
            if (p.steps_done == p.steps_total) std::fprintf(stderr, "\n");
        } else if (p.last && p.steps_done % variants_per_size == 0) {
            std::fprintf(stderr, "vecadd: %3.0f%% (%zu/%zu), %s elements done\n", 100 * fraction, p.steps_done,
                         p.steps_total, size.c_str());
        }
        std::fflush(stderr);
    }
};

void print_header(const VecAddMachine& m, const VecAddOptions& options) {
    std::printf(
        "mandelscope vecadd: c = a + b on float32 arrays; napkin math 12 bytes per element "
        "(read a, read b, write c)\n");
    std::printf("CPU: %d threads, SIMD %s, %.1f GB of memory available\n", m.host.threads, m.host.simd_target.c_str(),
                double(m.host.available_memory_bytes) / 1e9);
    const VecAddDevice& d = m.device;
    if (!d.available) {
        std::printf("GPU: none (%s): the GPU rows say why\n", d.reason.c_str());
    } else {
        std::printf(
            "GPU: %s, %d SMs, %.1f GB free; memory %.0f GB/s theoretical "
            "(2 x memory clock x bus width)\n",
            d.name.c_str(), d.sm_count, double(d.free_memory_bytes) / 1e9, d.memory_gb_per_second);
        std::printf("Host link: %s%s; pinned cudaMemcpy measured %.1f GB/s to the GPU, %.1f GB/s back\n",
                    d.pcie.empty() ? "PCIe generation unknown" : d.pcie.c_str(),
                    d.pcie_gb_per_second > 0
                        ? printf_text(" (%.1f GB/s theoretical per direction)", d.pcie_gb_per_second).c_str()
                        : "",
                    d.link_h2d_gb_per_second, d.link_d2h_gb_per_second);
        const double h2d = d.link_h2d_gb_per_second, d2h = d.link_d2h_gb_per_second;
        if (h2d > 0 && d2h > 0)
            std::printf(
                "Limits: kernel and d2d copy vs device memory; pageable and pinned vs the link "
                "one way at a time, 12 / (8/%.1f + 4/%.1f) = %.1f GB/s; streams vs both ways "
                "at once, 12 / max(8/%.1f, 4/%.1f) = %.1f GB/s\n",
                h2d, d2h, 12.0 / (8.0 / h2d + 4.0 / d2h), h2d, d2h, 12.0 / std::max(8.0 / h2d, 4.0 / d2h));
    }
    if (d.available) {
        const VecAddKernelConfig& k = options.kernel;
        std::printf(
            "Kernel: float4 loads and stores, grid-stride loop, %d threads per block, %s, "
            "unroll %d%s\n",
            k.block_size,
            k.blocks_per_sm < 0    ? "grid covering the array in one pass"
            : k.blocks_per_sm == 0 ? "grid of as many blocks as fit at once"
                                   : printf_text("%d blocks per SM", k.blocks_per_sm).c_str(),
            k.unroll, k.streaming_hints ? ", evict-first loads and stores" : "");
    }
    std::printf(
        "Times: median of %d after %d warm-up; GPU times from CUDA events around one call "
        "(launch included); CPU calls shorter than %.2f ms are repeated and averaged\n\n",
        options.repeats, options.warmup_runs, options.cpu_min_sample_ms);
}

void print_table(const VecAddSweep& sweep) {
    std::printf("%12s  %-16s %11s %10s %8s %10s %10s\n", "elements", "variant", "time", "GB/s", "% limit", "vs 1 core",
                "max error");
    size_t previous = 0;
    for (const VecAddResult& r : sweep.results) {
        if (previous != 0 && r.elements != previous) std::printf("\n");
        previous = r.elements;
        if (!r.ok) {
            std::printf("%12zu  %-16s   %s\n", r.elements, vecadd_variant_name(r.variant), r.error.c_str());
            continue;
        }
        std::printf("%12zu  %-16s %11s %10.1f %8s %10s %10.3g\n", r.elements, vecadd_variant_name(r.variant),
                    format_duration_ms(r.time_ms).c_str(), r.gb_per_second,
                    r.limit_gb_per_second > 0 ? printf_text("%.1f%%", r.percent_of_limit).c_str() : "-",
                    r.speedup_vs_one_thread > 0 ? printf_text("%.3gx", r.speedup_vs_one_thread).c_str() : "-",
                    r.max_abs_error);
    }
}

void print_lesson(const VecAddLesson& lesson) {
    std::printf("\nCrossovers (first measured size from which the left one stays faster):\n");
    for (const VecAddCrossover& c : lesson.crossovers) {
        std::string where;
        switch (c.crossing) {
        case VecAddCrossing::NoData: continue;
        case VecAddCrossing::Never: where = "never"; break;
        case VecAddCrossing::Always: where = "at every size measured"; break;
        case VecAddCrossing::At:
            where = "from " + std::to_string(c.elements) + " elements (interpolated ~" +
                    vecadd_format_elements(c.estimate_elements) + ")";
            break;
        }
        std::printf("  %-16s beats %-14s %s\n", vecadd_variant_name(c.challenger), vecadd_variant_name(c.baseline),
                    where.c_str());
    }
    std::printf("\nLesson: %s\n", lesson.sentence.c_str());
}

// Launch configurations of the kernel at one size, to see what the defaults are worth.
void print_kernel_configs(const VecAddMachine& machine, size_t n, const VecAddOptions& options) {
    std::vector<VecAddKernelConfig> configs;
    for (int block : {128, 256, 512, 1024})
        for (int unroll : {1, 2, 4, 8})
            for (int per_sm : {0, -1})
                for (bool hints : {false, true}) configs.push_back({block, per_sm, unroll, hints});
    std::printf("\nKernel launch configurations at %zu elements (12 bytes per element; limit %.0f GB/s):\n", n,
                machine.device.memory_gb_per_second);
    std::printf("%6s %7s %-10s %6s %11s %10s %8s %10s\n", "block", "unroll", "grid", "hints", "time", "GB/s", "% limit",
                "max error");
    for (const VecAddConfigResult& c : vecadd_kernel_configs(machine.device, n, configs, options)) {
        const VecAddKernelConfig& k = c.config;
        if (!c.result.ok) {
            std::printf("%6d %7d %-10s %6s   %s\n", k.block_size, k.unroll,
                        k.blocks_per_sm < 0 ? "one-pass" : "occupancy", k.streaming_hints ? "cs" : "-",
                        c.result.error.c_str());
            continue;
        }
        std::printf("%6d %7d %-10s %6s %11s %10.1f %7.1f%% %10.3g\n", k.block_size, k.unroll,
                    k.blocks_per_sm < 0 ? "one-pass" : "occupancy", k.streaming_hints ? "cs" : "-",
                    format_duration_ms(c.result.time_ms).c_str(), c.result.gb_per_second, c.result.percent_of_limit,
                    c.result.max_abs_error);
    }
}

}  // namespace

int run_vecadd_command(int argc, char** argv) {
    CLI::App app{"Vector add c = a + b on the CPU and the GPU: when the GPU loses, when it wins, and why", "vecadd"};
    std::string sizes_text, csv_path;
    VecAddOptions options;
    bool kernel_configs = false;
    app.add_option("--sizes", sizes_text,
                   "Array sizes, comma-separated (400, 1e6, 2^28); default 10^2 .. 2^28 on a log "
                   "scale, capped by this machine's memory");
    app.add_option("--csv", csv_path, "Also write every variant and size to this CSV file");
    app.add_option("--repeats", options.repeats, "Timed runs per variant and size (median reported)")
        ->check(CLI::Range(1, 1000));
    app.add_flag("--kernel-configs", kernel_configs,
                 "Also time the kernel's launch configurations at the largest size");
    if (const int status = parse_command_line(app, argc, argv); status >= 0) return status;

    auto bad_input = [](const std::string& sentence) {
        std::fprintf(stderr, "mandelscope vecadd: %s\n", sentence.c_str());
        return 2;
    };
    std::vector<size_t> sizes;
    if (!sizes_text.empty() || app.count("--sizes")) {
        if (const std::string why = vecadd_parse_sizes(sizes_text, &sizes); !why.empty())
            return bad_input("--sizes: " + why);
    }
    if (!csv_path.empty()) {
        if (const std::string why = check_writable(csv_path); !why.empty()) return bad_input(why + ".");
    }

    const std::vector<VecAddVariant> variants = vecadd_all_variants();
    const VecAddMachine machine = vecadd_machine_info(true);
    const size_t max_n = vecadd_max_elements(machine, variants);
    if (sizes.empty()) {
        sizes = vecadd_default_sizes(max_n);
        if (sizes.empty() || sizes.back() < (size_t(1) << 28))
            std::fprintf(stderr, "mandelscope vecadd: sizes capped at %zu elements by this machine's memory\n", max_n);
    } else {
        for (size_t n : sizes)
            if (const std::string why = vecadd_check_size(machine, n, variants); !why.empty()) return bad_input(why);
    }

    print_header(machine, options);
    ProgressPrinter printer;
    printer.variants_per_size = variants.size();
    const VecAddSweep sweep = run_vecadd_sweep(machine, sizes, variants, options,
                                               [&](const VecAddProgress& p) { printer(p); });
    print_table(sweep);
    print_lesson(vecadd_lesson(sweep));
    if (kernel_configs) {
        size_t largest = 0;
        for (size_t n : sizes) largest = std::max(largest, n);
        print_kernel_configs(machine, largest, options);
    }

    int status = 0;
    for (const VecAddResult& r : sweep.results) {
        if (r.ok && r.max_abs_error != 0.0) {
            std::fprintf(stderr,
                         "mandelscope vecadd: %s at %zu elements differs from the CPU "
                         "reference by up to %g\n",
                         vecadd_variant_name(r.variant), r.elements, r.max_abs_error);
            status = 1;
        } else if (!r.ok && !(vecadd_variant_is_gpu(r.variant) && !machine.device.available)) {
            // A GPU row failing on a machine without a GPU is expected; anything else is not.
            std::fprintf(stderr, "mandelscope vecadd: %s at %zu elements failed: %s\n", vecadd_variant_name(r.variant),
                         r.elements, r.error.c_str());
            status = 1;
        }
    }
    if (!csv_path.empty()) {
        if (const std::string why = save_vecadd_csv(csv_path, sweep); !why.empty()) {
            std::fprintf(stderr, "mandelscope vecadd: %s\n", why.c_str());
            return 1;
        }
        std::printf("\nCSV: %s (%zu rows)\n", csv_path.c_str(), sweep.results.size());
    }
    return status;
}

}  // namespace ms
