// vecadd.h: c = a + b on float32 arrays, measured seven ways, to show when the GPU loses, when
// it wins and why. The model behind the `mandelscope vecadd` command and the
// vector-add panel; it knows nothing of either.
//
// How to use it (what the panel does):
//   VecAddMachine machine = vecadd_machine_info();            // once, on a worker thread (slow:
//                                                             // it measures the host link)
//   size_t max_n = vecadd_max_elements(machine, variants);    // the size slider's upper end
//   auto rows = run_vecadd_variants(machine, variants, n);    // the Run button
//   VecAddSweep sweep = run_vecadd_sweep(machine, vecadd_default_sizes(max_n), variants,
//                                        options, progress);  // Sweep (options.cancel stops it)
//   VecAddLesson lesson = vecadd_lesson(sweep);               // crossovers and the sentence
// Nothing here throws for a size beyond memory, a missing GPU or a CUDA error: the result row
// says why in `error`. All functions block; the progress callback runs on the calling thread.
//
// The siblings of the operation itself (same stem, as everywhere in compute/):
//   vecadd_cpu_reference  one thread, a plain loop (GCC -O3 vectorises it with SSE2)
//   vecadd_cpu            all cores (OpenMP), Highway SIMD chosen at run time (AVX-512/AVX2/SSE4)
//   vecadd_kernel         the CUDA kernel: grid-stride loop, float4 loads, scalar tail (vecadd.cu)
//   vecadd_cuda_to_host   its launcher on host arrays, for tests
//
// Napkin math: each element reads a and b and writes c, 3 x 4 bytes = 12 bytes. Bandwidth is
// those bytes over the median time; the device-to-device copy moves 8 bytes per element.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace ms {

enum class VecAddVariant : int {
    CpuOneThread,   // plain loop on one core
    CpuAllCores,    // every core (OpenMP), SIMD (Highway)
    GpuKernelOnly,  // a and b already on the device: one kernel launch
    GpuPageable,    // copy a, b from pageable (ordinary) host memory, kernel, copy c back
    GpuPinned,      // the same, the host arrays in pinned (page-locked) memory
    GpuStreams,     // pinned, in chunks over several streams: copies overlap the kernel
    GpuDeviceCopy,  // reference: cudaMemcpy device to device of one array (8 bytes/element)
};
inline constexpr int kVecAddVariantCount = 7;
inline constexpr double kVecAddBytesPerElement = 12.0;  // read a, read b, write c

std::vector<VecAddVariant> vecadd_all_variants();
const char* vecadd_variant_name(VecAddVariant variant);   // "gpu-pinned": CSV and command line
const char* vecadd_variant_label(VecAddVariant variant);  // "GPU + pinned copies": for people
bool vecadd_variant_is_gpu(VecAddVariant variant);
bool vecadd_variant_uses_host_link(VecAddVariant variant);  // pageable, pinned, streams
double vecadd_bytes_per_element(VecAddVariant variant);     // 12, or 8 for the device copy

// How the CUDA kernel is launched. The defaults are the fastest that `mandelscope vecadd
// --kernel-configs` finds (see docs/performance.md): a grid that covers the array in one pass,
// so the grid-stride loop runs once per thread, with unroll 1 (every block size does as well);
// an occupancy-sized ("persistent") grid striding hundreds of times is slower whatever the
// unroll or cache hints.
struct VecAddKernelConfig {
    int block_size = 1024;         // threads per block (a multiple of 32, up to 1024)
    int blocks_per_sm = -1;        // -1: one pass, a thread per `unroll` float4 groups;
                                   // 0: as many blocks as fit on the SMs at once (occupancy);
                                   // k > 0: k blocks per SM. Any grid covers any n (grid stride).
    int unroll = 1;                // float4 pairs in flight per thread per iteration: 1, 2, 4, 8
    bool streaming_hints = false;  // __ldcs/__stcs (evict-first) instead of plain loads/stores
};

struct VecAddOptions {
    int repeats = 7;                  // timed runs per variant and size; the median is reported
    int warmup_runs = 1;              // untimed runs first (first launch, page faults, caches)
    double cpu_min_sample_ms = 0.05;  // CPU calls too short for the clock are repeated back to
                                      // back until a sample lasts this long, then divided
    int cpu_threads = 0;              // CpuAllCores: 0 = every core OpenMP offers
    int streams = 4;                  // GpuStreams: CUDA streams
    size_t chunk_elements = 0;        // GpuStreams: 0 = n/32 but at least 1M (rounded to 4)
    VecAddKernelConfig kernel;
    const std::atomic<bool>* cancel = nullptr;  // polled between runs; set it to stop a sweep
};

// The GPU side of the machine, or why there is none.
struct VecAddDevice {
    bool available = false;
    std::string reason;  // why not available, in words
    std::string name;
    int sm_count = 0;
    double memory_gb_per_second = 0.0;  // theoretical: 2 x memory clock x bus width / 8
    size_t free_memory_bytes = 0;
    size_t total_memory_bytes = 0;
    // The host link, measured with pinned cudaMemcpy (64 MiB, median of 5), one direction at a time.
    double link_h2d_gb_per_second = 0.0;
    double link_d2h_gb_per_second = 0.0;
    std::string pcie;                 // "PCIe gen 5 x16" from sysfs; "" when unknown
    double pcie_gb_per_second = 0.0;  // that link's theoretical rate, one direction
};

struct VecAddHost {
    int threads = 1;                    // what CpuAllCores uses
    std::string simd_target;            // the Highway target vecadd_cpu dispatches to ("AVX2")
    size_t available_memory_bytes = 0;  // MemAvailable, or the cgroup's limit if lower
};

struct VecAddMachine {
    VecAddHost host;
    VecAddDevice device;
};

VecAddMachine vecadd_machine_info(bool measure_link = true);
VecAddHost vecadd_host_info();
VecAddDevice vecadd_device_info(bool measure_link = true);  // vecadd.cu or vecadd_nocuda.cpp

// Memory one size needs for `variants` (inputs, output, reference, pinned copies), and the
// largest size that fits this machine with a safety margin. vecadd_check_size returns "" when
// n fits, else the sentence to show ("2^30 elements need 28.0 GB of host memory, ...").
size_t vecadd_host_bytes_needed(size_t n, const std::vector<VecAddVariant>& variants);
size_t vecadd_device_bytes_needed(size_t n, const std::vector<VecAddVariant>& variants);
size_t vecadd_max_elements(const VecAddMachine& machine, const std::vector<VecAddVariant>& variants);
std::string vecadd_check_size(const VecAddMachine& machine, size_t n, const std::vector<VecAddVariant>& variants);

// One variant at one size, measured and verified.
struct VecAddResult {
    VecAddVariant variant = VecAddVariant::CpuOneThread;
    size_t elements = 0;
    bool ok = false;  // false: `error` says why (no GPU, memory, CUDA, cancelled)
    std::string error;
    double time_ms = 0.0;      // median of repeats: CUDA events (GPU), steady_clock (CPU)
    double min_time_ms = 0.0;  // the fastest repeat
    double wall_ms = 0.0;      // median host time of one call including launch and wait
    int repeats = 0;
    int calls_per_sample = 1;          // CPU: back-to-back calls per timed sample
    double bytes_moved = 0.0;          // napkin bytes per call (12 n, or 8 n for the device copy)
    double gb_per_second = 0.0;        // bytes_moved / time
    double limit_gb_per_second = 0.0;  // the ceiling it is compared with; 0 = none (CPU rows)
    std::string limit_name;            // "device memory", "host link", ...
    double percent_of_limit = 0.0;
    double speedup_vs_one_thread = 0.0;  // CpuOneThread time / this time; 0 when not measured
    double max_abs_error = 0.0;          // against the CPU reference; the add is exact, so 0
};

// Several variants at one size, sharing one set of inputs (the Run button).
std::vector<VecAddResult> run_vecadd_variants(const VecAddMachine& machine, const std::vector<VecAddVariant>& variants,
                                              size_t n, const VecAddOptions& options = {});
// One variant, machine queried on the way (convenient, slower: use the one above in loops).
VecAddResult run_vecadd(VecAddVariant variant, size_t n, const VecAddOptions& options = {});

// --- Sweep ------------------------------------------------------------------------------------
struct VecAddProgress {
    size_t steps_done = 0;  // (size, variant) pairs finished
    size_t steps_total = 0;
    size_t elements = 0;                 // the size being measured
    const VecAddResult* last = nullptr;  // the result just finished (null before the first)
};
using VecAddProgressFn = std::function<void(const VecAddProgress&)>;

struct VecAddSweep {
    VecAddMachine machine;
    std::vector<size_t> sizes;
    std::vector<VecAddVariant> variants;
    std::vector<VecAddResult> results;  // size-major: every variant of sizes[0], then sizes[1]...
    bool cancelled = false;             // stopped early: results holds what finished
};

// 10^2, 2x10^2, 4x10^2, 10^3 ... up to 2^28 (a log scale that passes the tutorial's 400),
// capped at max_elements (the cap itself is added as the last size when it cuts the list).
std::vector<size_t> vecadd_default_sizes(size_t max_elements);

VecAddSweep run_vecadd_sweep(const VecAddMachine& machine, const std::vector<size_t>& sizes,
                             const std::vector<VecAddVariant>& variants, const VecAddOptions& options = {},
                             const VecAddProgressFn& progress = {});
const VecAddResult* vecadd_find(const VecAddSweep& sweep, VecAddVariant variant, size_t n);

// --- What the sweep teaches (vecadd_report.cpp) ---------------------------------------------
enum class VecAddCrossing { NoData, Never, Always, At };

// Where `challenger` overtakes `baseline`: the first measured size from which it is faster at
// every larger measured size, and an estimate interpolated on the log-log plot.
struct VecAddCrossover {
    VecAddVariant challenger = VecAddVariant::GpuKernelOnly;
    VecAddVariant baseline = VecAddVariant::CpuOneThread;
    VecAddCrossing crossing = VecAddCrossing::NoData;
    size_t elements = 0;             // At: first size where it wins for good
    double estimate_elements = 0.0;  // At: interpolated between that size and the one before
};

struct VecAddLesson {
    std::vector<VecAddCrossover> crossovers;  // every GPU variant vs both CPU rows, all cores vs one
    double launch_us = 0.0;                   // kernel-only time at the smallest size (0 when not measured)
    std::string sentence;                     // computed from the measurements, never canned
};

VecAddCrossover vecadd_crossover(const VecAddSweep& sweep, VecAddVariant challenger, VecAddVariant baseline);
VecAddLesson vecadd_lesson(const VecAddSweep& sweep);

// "400", "20K", "2.1M", "268M": sizes as the sentence writes them.
std::string vecadd_format_elements(double elements);

// Sizes as people type them, for the command line and the panel: "400", "1000000", "1e6",
// "2^28". Each returns "" or the sentence saying what is wrong (naming no option: the caller
// adds that). vecadd_parse_sizes reads a comma-separated list.
std::string vecadd_parse_size(const std::string& text, size_t* n);
std::string vecadd_parse_sizes(const std::string& text, std::vector<size_t>* sizes);

// CSV: a header, then one row per result (every variant and size, failed rows with their
// reason). save_vecadd_csv writes a temporary file beside `path` and renames it, so a failure
// leaves no partial file; it returns "" or the reason.
void write_vecadd_csv(std::ostream& out, const VecAddSweep& sweep);
std::string save_vecadd_csv(const std::string& path, const VecAddSweep& sweep);

// --- Lower level: the operation itself --------------------------------------------------------
void vecadd_cpu_reference(const float* a, const float* b, float* c, size_t n);
void vecadd_cpu(const float* a, const float* b, float* c, size_t n, int threads = 0);
std::string vecadd_cpu_simd_target();
// max |reference - got|; a NaN in `got` counts as infinite (all cores).
double vecadd_max_abs_error(const float* reference, const float* got, size_t n);
// Deterministic inputs in [-1, 1) (all cores; element i does not depend on n).
void vecadd_fill_inputs(float* a, float* b, size_t n);

// The kernel on host arrays: copies in, one launch, copies out. Throws std::runtime_error with a
// sentence on any CUDA error or when built without CUDA.
void vecadd_cuda_to_host(const float* a, const float* b, float* c, size_t n, const VecAddKernelConfig& config = {});

// The GPU variants at one size on host inputs the caller owns (used by run_vecadd_variants).
struct VecAddHostArrays {
    const float* a = nullptr;
    const float* b = nullptr;
    const float* reference = nullptr;  // c computed on the CPU
    float* out = nullptr;              // scratch for results copied back (n floats)
    size_t n = 0;
};
std::vector<VecAddResult> vecadd_gpu_measure(const VecAddDevice& device, const std::vector<VecAddVariant>& gpu_variants,
                                             const VecAddHostArrays& arrays, const VecAddOptions& options,
                                             const std::function<void(const VecAddResult&)>& done);

// Kernel-only timings of several launch configurations at one size (mandelscope vecadd
// --kernel-configs), each verified; one allocation for all.
struct VecAddConfigResult {
    VecAddKernelConfig config;
    VecAddResult result;
};
std::vector<VecAddConfigResult> vecadd_kernel_configs(const VecAddDevice& device, size_t n,
                                                      const std::vector<VecAddKernelConfig>& configs,
                                                      const VecAddOptions& options);

}  // namespace ms
