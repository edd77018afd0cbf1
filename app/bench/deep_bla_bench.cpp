// deep_bla_bench.cpp: deep_bench_bla (deep_bench.h): the BLA table built on the CPU (OpenMP, all
// cores) and copied to the device (deep_cuda with bla_on_device false), against the table built on
// the GPU from the orbit already there (deep_cuda's default); rounds interleaved, medians; then the
// frame end to end both ways. And deep_bench_cuda_passes: deep_cuda's pixels in one pass against in
// passes.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "app/bench/deep_bench.h"
#include "compute/fractal/deep/deep_bla_cuda.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct BuildTimes {
    std::vector<double> cpu_ms, upload_ms, gpu_ms, kernels_ms;
    size_t bytes = 0, budget_bytes = 0;  // the table's entries, and the budgets beside them
    int64_t steps = 0;
    int levels = 0;
    bool equal = true;  // every round's two tables, byte for byte
};

template <typename T>
BuildTimes time_builds(const ReferenceOrbit& orbit, T max_dc, double epsilon, int rounds) {
    BuildTimes t;
    const DeepComplex<T>* z = deep_orbit_data<T>(orbit);
    const DeviceOrbit<T> device_orbit(z, orbit.z.size());  // there for the pixels either way
    for (int round = 0; round < rounds; ++round) {
        BlaTable<T> cpu;
        build_bla_table(z, orbit.last_index(), max_dc, epsilon, nullptr, &cpu, 2);
        t.cpu_ms.push_back(cpu.build_ms);
        t.upload_ms.push_back(upload_bla_table_ms(cpu));
        const auto gpu = build_bla_table_cuda(device_orbit.data(), orbit.last_index(), max_dc, epsilon, 2, nullptr);
        t.gpu_ms.push_back(gpu->build_ms);
        t.kernels_ms.push_back(gpu->kernels_ms);
        BlaTable<T> back;
        copy_bla_table_to_host(*gpu, &back);
        t.equal = t.equal && back.entries.size() == cpu.entries.size() &&
                  std::memcmp(back.entries.data(), cpu.entries.data(), gpu->bytes) == 0;
        t.bytes = gpu->bytes;
        t.budget_bytes = gpu->bytes / sizeof(BlaStep<T>) * sizeof(BlaBudget<T>);
        t.steps = gpu->steps;
        t.levels = gpu->view.levels;
    }
    return t;
}

}  // namespace

void deep_bench_bla(const std::string& folder, const std::vector<std::string>& names, int width, int height, int rounds,
                    const DeepBenchPrint& print) {
    print(
        printf_text("BLA table at %dx%d: built on the CPU (OpenMP, %d threads) and copied to the device (pageable "
                    "memory, as deep_cuda's device cache copies it), against built on the GPU from the orbit on the "
                    "device; %d rounds interleaved, medians (the first GPU round includes CUDA's warm-up)",
                    width, height, omp_get_max_threads(), rounds));
    print(printf_text("  %-7s %-9s %9s %6s %8s %9s %9s %9s %9s %9s %8s %7s %s", "where", "numbers", "steps", "levels",
                      "MB", "CPU ms", "copy ms", "CPU+copy", "GPU ms", "kernels", "GB/s", "ratio", "equal"));
    struct EndToEnd {
        std::string name;
        DeepLocation location;
    };
    std::vector<EndToEnd> frames;
    for (const std::string& name : names) {
        DeepLocation location;
        if (std::string error = read_kfr(folder + "/" + name + ".kfr", &location); !error.empty()) {
            print("  " + name + ": " + error);
            continue;
        }
        frames.push_back({name, location});
        DeepFrame frame;
        const DeepRenderOptions options;
        const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
        const DeepBlaRequest request = deep_bla_request(setup, options);
        const bool is_double = frame.stats.number_type == DeepNumberType::Double;
        const BuildTimes t = is_double ? time_builds<double>(*setup.orbit, fe_to_double(request.build_dc),
                                                             request.epsilon, rounds)
                                       : time_builds<FloatExp>(*setup.orbit, request.build_dc, request.epsilon, rounds);
        const double cpu = median_of(t.cpu_ms), upload = median_of(t.upload_ms), gpu = median_of(t.gpu_ms),
                     kernels = median_of(t.kernels_ms);
        // Napkin maths: the kernels write each entry and its budget once and read them once as
        // the level above merges them (the orbit's read is small beside them).
        const double moved = 2.0 * double(t.bytes + t.budget_bytes);
        print(printf_text("  %-7s %-9s %9lld %6d %8.1f %9.2f %9.2f %9.2f %9.3f %9.3f %8.0f %6.1fx %s", name.c_str(),
                          deep_number_type_name(frame.stats.number_type), (long long)t.steps, t.levels,
                          1e-6 * double(t.bytes), cpu, upload, cpu + upload, gpu, kernels,
                          kernels > 0 ? moved / (kernels * 1e-3) * 1e-9 : 0.0, (cpu + upload) / gpu,
                          t.equal ? "yes" : "NO"));
        std::string all;
        for (size_t i = 0; i < t.gpu_ms.size(); ++i)
            all += printf_text(" %.1f+%.1f/%.2f", t.cpu_ms[i], t.upload_ms[i], t.gpu_ms[i]);
        print("          rounds (CPU+copy/GPU ms):" + all);
    }
    print(
        "  CPU ms: build_bla_table; copy ms: allocation and copy of the table to the device; GPU ms: allocation, "
        "launches (one per level) and the wait; kernels: CUDA events; GB/s: the entries and budgets written and "
        "read once over the kernels' time; ratio: CPU+copy / GPU; equal: the two tables byte for byte");

    print(
        printf_text("deep_cuda end to end at %dx%d, nothing cached (a new reference each run), the table built on "
                    "the CPU and copied / on the GPU, %d rounds interleaved, medians:",
                    width, height, rounds));
    print(printf_text("  %-7s %12s %12s %12s %12s %12s %12s", "where", "frame CPU", "frame GPU", "BLA CPU", "BLA GPU",
                      "-ref CPU", "-ref GPU"));
    for (const EndToEnd& f : frames) {
        std::vector<double> frame_host, frame_device, bla_host, bla_device, rest_host, rest_device;
        for (int round = 0; round < rounds; ++round) {
            DeepRenderOptions options;
            options.bla_on_device = false;
            const DeepFrameStats host = deep_cuda(f.location, width, height, options).stats;
            options.bla_on_device = true;
            const DeepFrameStats device = deep_cuda(f.location, width, height, options).stats;
            frame_host.push_back(host.frame_ms);
            frame_device.push_back(device.frame_ms);
            bla_host.push_back(host.bla_ms);
            bla_device.push_back(device.bla_ms);
            rest_host.push_back(host.frame_ms - host.reference_ms);
            rest_device.push_back(device.frame_ms - device.reference_ms);
        }
        print(printf_text(
            "  %-7s %12.1f %12.1f %12.2f %12.2f %12.1f %12.1f   (%.1f ms less end to end, %.1f ms less "
            "beside the reference)",
            f.name.c_str(), median_of(frame_host), median_of(frame_device), median_of(bla_host), median_of(bla_device),
            median_of(rest_host), median_of(rest_device), median_of(frame_host) - median_of(frame_device),
            median_of(rest_host) - median_of(rest_device)));
    }
    print(
        "  frame: deep_cuda's frame_ms (reference, BLA, copies, pixels); BLA: its bla_ms (the CPU build alone, "
        "without its copy, for the first column); -ref: frame_ms - reference_ms, what the table's build changes "
        "without the MPFR reference's own variation");
}

void deep_bench_cuda_passes(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                            int rounds, const DeepBenchPrint& print) {
    // The variants: one pass (the default), and passes of these many steps a pixel.
    const std::vector<int64_t> budgets = {0, 512, 2048, 8192};
    print(
        printf_text("deep_cuda's pixels at %dx%d, the reference and the BLA table kept: one pass, against passes of "
                    "at most 512, 2048 and 8192 perturbation steps a pixel; %d rounds interleaved, "
                    "medians of stats.pixels_ms (CUDA events, every pass)",
                    width, height, rounds));
    print(printf_text("  %-7s %10s %10s %10s %10s   %s", "where", "one pass", "512", "2048", "8192", "equal"));
    for (const std::string& name : names) {
        DeepLocation location;
        if (std::string error = read_kfr(folder + "/" + name + ".kfr", &location); !error.empty()) {
            print("  " + name + ": " + error);
            continue;
        }
        ReferenceCache cache;
        DeepRenderOptions options;
        options.cache = &cache;
        const DeepFrame first = deep_cuda(location, width, height, options);  // the reference, the table
        std::vector<std::vector<double>> ms(budgets.size());
        bool equal = true;
        for (int round = 0; round < rounds; ++round) {
            for (size_t i = 0; i < budgets.size(); ++i) {
                options.cuda_pass_steps = budgets[i];
                const DeepFrame frame = deep_cuda(location, width, height, options);
                ms[i].push_back(frame.stats.pixels_ms);
                equal = equal && frame.escape_count == first.escape_count && frame.mu == first.mu &&
                        frame.stats.perturbation_steps == first.stats.perturbation_steps;
            }
        }
        print(printf_text("  %-7s %10.1f %10.1f %10.1f %10.1f   %s", name.c_str(), median_of(ms[0]), median_of(ms[1]),
                          median_of(ms[2]), median_of(ms[3]), equal ? "yes" : "NO"));
    }
    print("  equal: every frame's escape counts, mu and step count those of the first frame (one pass, the default)");
}

}  // namespace ms
