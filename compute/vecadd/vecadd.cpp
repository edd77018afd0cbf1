// vecadd.cpp: the measuring side of the vector-add demo: variant names, how much memory a size
// needs, the CPU timings, and the runner and sweep that share one set of inputs per size
// between all variants (the GPU timings live in vecadd.cu). See vecadd.h for the manual.
#include "compute/vecadd/vecadd.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <sstream>

namespace ms {

// ---- Variants ----------------------------------------------------------------------------------

std::vector<VecAddVariant> vecadd_all_variants() {
    std::vector<VecAddVariant> all;
    for (int i = 0; i < kVecAddVariantCount; ++i) all.push_back(VecAddVariant(i));
    return all;
}

const char* vecadd_variant_name(VecAddVariant variant) {
    switch (variant) {
    case VecAddVariant::CpuOneThread: return "cpu-1-thread";
    case VecAddVariant::CpuAllCores: return "cpu-all-cores";
    case VecAddVariant::GpuKernelOnly: return "gpu-kernel-only";
    case VecAddVariant::GpuPageable: return "gpu-pageable";
    case VecAddVariant::GpuPinned: return "gpu-pinned";
    case VecAddVariant::GpuStreams: return "gpu-streams";
    case VecAddVariant::GpuDeviceCopy: return "gpu-d2d-memcpy";
    }
    return "unknown";
}

const char* vecadd_variant_label(VecAddVariant variant) {
    switch (variant) {
    case VecAddVariant::CpuOneThread: return "CPU, one thread";
    case VecAddVariant::CpuAllCores: return "CPU, all cores (SIMD)";
    case VecAddVariant::GpuKernelOnly: return "GPU kernel only";
    case VecAddVariant::GpuPageable: return "GPU + pageable copies";
    case VecAddVariant::GpuPinned: return "GPU + pinned copies";
    case VecAddVariant::GpuStreams: return "GPU + pinned copies on streams";
    case VecAddVariant::GpuDeviceCopy: return "GPU device-to-device memcpy";
    }
    return "unknown";
}

bool vecadd_variant_is_gpu(VecAddVariant variant) {
    return variant != VecAddVariant::CpuOneThread && variant != VecAddVariant::CpuAllCores;
}

bool vecadd_variant_uses_host_link(VecAddVariant variant) {
    return variant == VecAddVariant::GpuPageable || variant == VecAddVariant::GpuPinned ||
           variant == VecAddVariant::GpuStreams;
}

double vecadd_bytes_per_element(VecAddVariant variant) {
    return variant == VecAddVariant::GpuDeviceCopy ? 8.0 : kVecAddBytesPerElement;
}

// ---- Machine and memory ------------------------------------------------------------------------

namespace {

// A number from a file such as /proc/meminfo's "MemAvailable:  123 kB" or a cgroup's
// memory.max ("max" means no limit); 0 when missing.
size_t read_meminfo_available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    size_t value = 0;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return value * 1024;
    }
    return 0;
}

size_t read_number_file(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    return *end == '\0' ? size_t(v) : 0;
}

}  // namespace

VecAddHost vecadd_host_info() {
    VecAddHost host;
    host.threads = omp_get_max_threads();
    host.simd_target = vecadd_cpu_simd_target();
    size_t available = read_meminfo_available_bytes();
    // In a container the cgroup limit can be far below what /proc/meminfo shows; exceeding it
    // gets the process killed rather than a failed allocation.
    const size_t cg_max = read_number_file("/sys/fs/cgroup/memory.max");
    if (cg_max > 0) {
        const size_t used = read_number_file("/sys/fs/cgroup/memory.current");
        const size_t cg_free = cg_max > used ? cg_max - used : 0;
        if (available == 0 || cg_free < available) available = cg_free;
    }
    host.available_memory_bytes = available;
    return host;
}

VecAddMachine vecadd_machine_info(bool measure_link) {
    return VecAddMachine{vecadd_host_info(), vecadd_device_info(measure_link)};
}

namespace {

bool any_of(const std::vector<VecAddVariant>& variants, bool (*pred)(VecAddVariant)) {
    return std::any_of(variants.begin(), variants.end(), pred);
}
bool uses_pinned(VecAddVariant v) { return v == VecAddVariant::GpuPinned || v == VecAddVariant::GpuStreams; }

// Safety margins: the OS and the CUDA driver need room of their own.
constexpr double kHostUsableFraction = 0.8;
constexpr size_t kDeviceReserveBytes = size_t(512) << 20;
// Beyond this, byte counts overflow long before memory runs out.
constexpr size_t kMaxElements = size_t(1) << 40;

std::string format_gb(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
    return buf;
}

}  // namespace

// a, b, the reference and one output in pageable memory; a, b, c again in pinned memory for
// the pinned and stream variants.
size_t vecadd_host_bytes_needed(size_t n, const std::vector<VecAddVariant>& variants) {
    size_t arrays = 4 + (any_of(variants, uses_pinned) ? 3 : 0);
    return arrays * n * sizeof(float);
}

size_t vecadd_device_bytes_needed(size_t n, const std::vector<VecAddVariant>& variants) {
    return any_of(variants, vecadd_variant_is_gpu) ? 3 * n * sizeof(float) : 0;
}

namespace {
// Without a GPU the GPU variants allocate nothing: leave them out of the memory sums.
std::vector<VecAddVariant> runnable(const VecAddMachine& machine, const std::vector<VecAddVariant>& variants) {
    std::vector<VecAddVariant> out;
    for (VecAddVariant v : variants)
        if (machine.device.available || !vecadd_variant_is_gpu(v)) out.push_back(v);
    return out;
}
}  // namespace

std::string vecadd_check_size(const VecAddMachine& machine, size_t n, const std::vector<VecAddVariant>& requested) {
    const std::vector<VecAddVariant> variants = runnable(machine, requested);
    if (n == 0) return "an array needs at least 1 element";
    if (n > kMaxElements) return vecadd_format_elements(double(n)) + " elements is beyond any machine's memory";
    const size_t host_need = vecadd_host_bytes_needed(n, variants);
    const double host_usable = kHostUsableFraction * double(machine.host.available_memory_bytes);
    if (machine.host.available_memory_bytes > 0 && double(host_need) > host_usable)
        return vecadd_format_elements(double(n)) + " elements need " + format_gb(double(host_need)) +
               " of host memory (a, b, c, the reference" + (any_of(variants, uses_pinned) ? " and pinned copies" : "") +
               "), but only " + format_gb(host_usable) + " of the " +
               format_gb(double(machine.host.available_memory_bytes)) + " available may be used";
    const size_t device_need = vecadd_device_bytes_needed(n, variants);
    if (device_need > 0 && machine.device.available) {
        const size_t free = machine.device.free_memory_bytes;
        const size_t usable = free > kDeviceReserveBytes ? free - kDeviceReserveBytes : 0;
        if (device_need > usable)
            return vecadd_format_elements(double(n)) + " elements need " + format_gb(double(device_need)) +
                   " of GPU memory (a, b, c), but " + machine.device.name + " has only " + format_gb(double(usable)) +
                   " free";
    }
    return "";
}

size_t vecadd_max_elements(const VecAddMachine& machine, const std::vector<VecAddVariant>& requested) {
    const std::vector<VecAddVariant> variants = runnable(machine, requested);
    size_t best = std::min(kMaxElements, size_t(1) << 28);  // the demo's top size is enough
    // Largest n with vecadd_check_size(n) == "": per-element costs are linear, so divide.
    const size_t host_per = vecadd_host_bytes_needed(1, variants);
    if (machine.host.available_memory_bytes > 0 && host_per > 0)
        best = std::min(best, size_t(kHostUsableFraction * double(machine.host.available_memory_bytes)) / host_per);
    const size_t dev_per = vecadd_device_bytes_needed(1, variants);
    if (dev_per > 0 && machine.device.available) {
        const size_t free = machine.device.free_memory_bytes;
        best = std::min(best, (free > kDeviceReserveBytes ? free - kDeviceReserveBytes : 0) / dev_per);
    }
    return best;
}

std::vector<size_t> vecadd_default_sizes(size_t max_elements) {
    std::vector<size_t> sizes;
    const size_t top = size_t(1) << 28;
    for (size_t decade = 100; decade <= top; decade *= 10)
        for (size_t m : {1, 2, 4}) {
            const size_t n = m * decade;
            if (n < top) sizes.push_back(n);
        }
    sizes.push_back(top);
    std::vector<size_t> capped;
    for (size_t n : sizes)
        if (n <= max_elements) capped.push_back(n);
    if (capped.size() < sizes.size() && max_elements > 0 && (capped.empty() || capped.back() < max_elements))
        capped.push_back(max_elements);
    return capped;
}

// ---- Measuring -----------------------------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

bool cancelled(const VecAddOptions& options) {
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// 64-byte aligned host array that does not touch its pages until written (so a parallel
// first write places them on the writing core's NUMA node).
struct HostArray {
    std::unique_ptr<float, decltype(&std::free)> data{nullptr, &std::free};
    explicit HostArray(size_t n) {
        const size_t bytes = std::max<size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
        data.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
        if (!data) throw std::bad_alloc();
    }
    float* get() const { return data.get(); }
};

void poison(float* p, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) p[i] = std::numeric_limits<float>::quiet_NaN();
}

VecAddResult measure_cpu(VecAddVariant variant, const VecAddHostArrays& arrays, const VecAddOptions& options) {
    VecAddResult r;
    r.variant = variant;
    r.elements = arrays.n;
    auto call = [&] {
        if (variant == VecAddVariant::CpuOneThread) vecadd_cpu_reference(arrays.a, arrays.b, arrays.out, arrays.n);
        else vecadd_cpu(arrays.a, arrays.b, arrays.out, arrays.n, options.cpu_threads);
    };
    poison(arrays.out, arrays.n);
    for (int i = 0; i < options.warmup_runs; ++i) call();
    // Calibrate: a 100-element add lasts tens of nanoseconds, below what the clock resolves.
    Clock::time_point t0 = Clock::now();
    call();
    const double one_ms = ms_since(t0);
    const double want = options.cpu_min_sample_ms;
    r.calls_per_sample = one_ms >= want ? 1 : int(std::min(1e6, std::ceil(want / std::max(one_ms, 1e-6))));
    std::vector<double> samples;
    for (int rep = 0; rep < std::max(1, options.repeats); ++rep) {
        if (cancelled(options)) break;
        t0 = Clock::now();
        for (int k = 0; k < r.calls_per_sample; ++k) call();
        samples.push_back(ms_since(t0) / r.calls_per_sample);
    }
    if (samples.empty()) {
        r.error = "cancelled";
        return r;
    }
    r.ok = true;
    r.repeats = int(samples.size());
    r.time_ms = median_of(samples);
    r.wall_ms = r.time_ms;
    r.min_time_ms = *std::min_element(samples.begin(), samples.end());
    r.max_abs_error = vecadd_max_abs_error(arrays.reference, arrays.out, arrays.n);
    return r;
}

// Bytes, bandwidth and the ceiling each row is compared with.
void fill_rates(VecAddResult& r, const VecAddDevice& device) {
    r.bytes_moved = vecadd_bytes_per_element(r.variant) * double(r.elements);
    if (!r.ok || r.time_ms <= 0.0) return;
    r.gb_per_second = r.bytes_moved / (r.time_ms * 1e-3) / 1e9;
    const double h2d = device.link_h2d_gb_per_second, d2h = device.link_d2h_gb_per_second;
    switch (r.variant) {
    case VecAddVariant::GpuKernelOnly:
    case VecAddVariant::GpuDeviceCopy:
        r.limit_gb_per_second = device.memory_gb_per_second;
        r.limit_name = "device memory";
        break;
    case VecAddVariant::GpuPageable:
    case VecAddVariant::GpuPinned:
        // a and b in (8 bytes), c out (4 bytes), one after the other over the measured link.
        if (h2d > 0 && d2h > 0) r.limit_gb_per_second = 12.0 / (8.0 / h2d + 4.0 / d2h);
        r.limit_name = "host link";
        break;
    case VecAddVariant::GpuStreams:
        // With streams the two directions overlap (PCIe is full duplex): the inbound 8 bytes
        // set the pace.
        if (h2d > 0 && d2h > 0) r.limit_gb_per_second = 12.0 / std::max(8.0 / h2d, 4.0 / d2h);
        r.limit_name = "host link, both directions";
        break;
    default: break;
    }
    if (r.limit_gb_per_second > 0) r.percent_of_limit = 100.0 * r.gb_per_second / r.limit_gb_per_second;
}

VecAddResult failed(VecAddVariant variant, size_t n, std::string why) {
    VecAddResult r;
    r.variant = variant;
    r.elements = n;
    r.error = std::move(why);
    r.bytes_moved = vecadd_bytes_per_element(variant) * double(n);
    return r;
}

// Every variant at one size; `done` gets each result as it finishes.
std::vector<VecAddResult> measure_size(const VecAddMachine& machine, const std::vector<VecAddVariant>& variants,
                                       size_t n, const VecAddOptions& options,
                                       const std::function<void(const VecAddResult&)>& done) {
    std::vector<VecAddResult> results;
    auto fail_all = [&](const std::string& why) {
        for (VecAddVariant v : variants) {
            results.push_back(failed(v, n, why));
            if (done) done(results.back());
        }
        return results;
    };
    const std::string too_big = vecadd_check_size(machine, n, variants);
    if (!too_big.empty()) return fail_all(too_big);
    // The size check leaves a margin, but the allocation can still fail: say so, never crash.
    std::unique_ptr<HostArray> a, b, reference, out;
    try {
        a = std::make_unique<HostArray>(n);
        b = std::make_unique<HostArray>(n);
        reference = std::make_unique<HostArray>(n);
        out = std::make_unique<HostArray>(n);
    } catch (const std::bad_alloc&) {
        return fail_all("out of host memory allocating " + format_gb(4.0 * 4.0 * double(n)) + " for " +
                        vecadd_format_elements(double(n)) + " elements");
    }
    vecadd_fill_inputs(a->get(), b->get(), n);
    vecadd_cpu_reference(a->get(), b->get(), reference->get(), n);
    const VecAddHostArrays arrays{a->get(), b->get(), reference->get(), out->get(), n};

    auto finish = [&](const VecAddResult& r) {
        results.push_back(r);
        fill_rates(results.back(), machine.device);
        if (done) done(results.back());
    };
    std::vector<VecAddVariant> gpu;
    for (VecAddVariant v : variants) {
        if (vecadd_variant_is_gpu(v)) gpu.push_back(v);
        else finish(cancelled(options) ? failed(v, n, "cancelled") : measure_cpu(v, arrays, options));
    }
    if (!gpu.empty() && !machine.device.available) {
        for (VecAddVariant v : gpu) finish(failed(v, n, machine.device.reason));
    } else if (!gpu.empty()) {
        // The GPU side reports CUDA errors per row itself; this catches anything else.
        const size_t before = results.size();
        try {
            vecadd_gpu_measure(machine.device, gpu, arrays, options, finish);
        } catch (const std::exception& e) {
            for (size_t k = results.size() - before; k < gpu.size(); ++k) finish(failed(gpu[k], n, e.what()));
        }
    }
    // Back into the caller's order (CPU rows ran first), with speedups against one thread.
    std::vector<VecAddResult> ordered;
    for (VecAddVariant v : variants)
        for (const VecAddResult& r : results)
            if (r.variant == v) {
                ordered.push_back(r);
                break;
            }
    const VecAddResult* base = nullptr;
    for (const VecAddResult& r : ordered)
        if (r.variant == VecAddVariant::CpuOneThread && r.ok) base = &r;
    if (base)
        for (VecAddResult& r : ordered)
            if (r.ok && r.time_ms > 0) r.speedup_vs_one_thread = base->time_ms / r.time_ms;
    return ordered;
}

}  // namespace

std::vector<VecAddResult> run_vecadd_variants(const VecAddMachine& machine, const std::vector<VecAddVariant>& variants,
                                              size_t n, const VecAddOptions& options) {
    return measure_size(machine, variants, n, options, {});
}

VecAddResult run_vecadd(VecAddVariant variant, size_t n, const VecAddOptions& options) {
    const VecAddMachine machine = vecadd_machine_info(vecadd_variant_uses_host_link(variant));
    return run_vecadd_variants(machine, {variant}, n, options).front();
}

VecAddSweep run_vecadd_sweep(const VecAddMachine& machine, const std::vector<size_t>& sizes,
                             const std::vector<VecAddVariant>& variants, const VecAddOptions& options,
                             const VecAddProgressFn& progress) {
    VecAddSweep sweep;
    sweep.machine = machine;
    sweep.sizes = sizes;
    sweep.variants = variants;
    VecAddProgress p;
    p.steps_total = sizes.size() * variants.size();
    for (size_t n : sizes) {
        if (cancelled(options)) {
            sweep.cancelled = true;
            break;
        }
        p.elements = n;
        if (progress) progress(p);
        auto done = [&](const VecAddResult& r) {
            ++p.steps_done;
            p.last = &r;
            if (progress) progress(p);
            p.last = nullptr;
        };
        std::vector<VecAddResult> rows = measure_size(machine, variants, n, options, done);
        sweep.results.insert(sweep.results.end(), rows.begin(), rows.end());
    }
    if (cancelled(options)) sweep.cancelled = true;
    return sweep;
}

const VecAddResult* vecadd_find(const VecAddSweep& sweep, VecAddVariant variant, size_t n) {
    for (const VecAddResult& r : sweep.results)
        if (r.variant == variant && r.elements == n) return &r;
    return nullptr;
}

}  // namespace ms
