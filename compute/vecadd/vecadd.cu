// vecadd.cu: the GPU side of the vector-add demo: the kernel, its launcher, the device and
// host-link facts (theoretical memory bandwidth, measured pinned copies, PCIe generation), and
// the timings of the GPU variants. The CPU reference it is checked against is
// vecadd_cpu_reference (vecadd_cpu.cpp); tests/demos/test_vecadd.cpp compares the two.
//
// Timing: CUDA events on the legacy default stream around one call (launch included: the start
// event fires while the host is still launching), after warm-up runs, median of repeats.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "compute/vecadd/vecadd.h"
#include "compute/system/cuda_check.h"
#include "compute/system/cuda_info.h"

namespace ms {

// ---- Kernel ------------------------------------------------------------------------------------

namespace {

template <bool kHints>
__device__ __forceinline__ float4 load4(const float4* p) {
    if constexpr (kHints) return __ldcs(p);  // evict-first: the data is used once
    else return __ldg(p);
}

template <bool kHints>
__device__ __forceinline__ void store4(float4* p, float4 v) {
    if constexpr (kHints) __stcs(p, v);
    else *p = v;
}

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// c = a + b with 128-bit loads and stores (a, b, c 16-byte aligned). Grid-stride loop: any grid
// covers any n. Each iteration issues kUnroll independent loads of a and of b before the first
// store; with the default one-pass grid (kUnroll 1) the bytes in flight come from the many
// resident threads instead (Little's law: bandwidth x latency, megabytes on an HBM GPU). The
// n % 4 floats past the last float4 are done by the grid's first threads, one each.
template <int kUnroll, bool kHints>
__global__ void vecadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              size_t n) {
    const size_t n4 = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    const size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = thread;
    for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
        float4 va[kUnroll], vb[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            va[k] = load4<kHints>(a4 + i + k * stride);
            vb[k] = load4<kHints>(b4 + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) store4<kHints>(c4 + i + k * stride, add4(va[k], vb[k]));
    }
    for (; i < n4; i += stride) store4<kHints>(c4 + i, add4(load4<kHints>(a4 + i), load4<kHints>(b4 + i)));
    const size_t tail = n4 * 4 + thread;
    if (tail < n) c[tail] = a[tail] + b[tail];
}

// For pointers that are not 16-byte aligned (a caller's sub-array): one float at a time.
__global__ void vecadd_scalar_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                     size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

using KernelFn = void (*)(const float*, const float*, float*, size_t);

KernelFn pick_kernel(const VecAddKernelConfig& config) {
    const bool h = config.streaming_hints;
    switch (config.unroll) {
    case 1: return h ? vecadd_kernel<1, true> : vecadd_kernel<1, false>;
    case 2: return h ? vecadd_kernel<2, true> : vecadd_kernel<2, false>;
    case 4: return h ? vecadd_kernel<4, true> : vecadd_kernel<4, false>;
    case 8: return h ? vecadd_kernel<8, true> : vecadd_kernel<8, false>;
    }
    throw std::runtime_error("the kernel's unroll must be 1, 2, 4 or 8, not " + std::to_string(config.unroll));
}

// Grid and kernel for one call, worked out before the timed region (the occupancy query
// costs host time that would otherwise be counted).
struct LaunchPlan {
    KernelFn kernel = nullptr;
    int grid = 1;
    int block = 256;
};

LaunchPlan plan_launch(const float* a, const float* b, const float* c, size_t n, const VecAddKernelConfig& config) {
    if (config.block_size < 32 || config.block_size > 1024 || config.block_size % 32)
        throw std::runtime_error("the kernel's block size must be a multiple of 32 from 32 to 1024, not " +
                                 std::to_string(config.block_size));
    LaunchPlan plan;
    plan.block = config.block_size;
    auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    const bool vectorised = aligned(a) && aligned(b) && aligned(c);
    plan.kernel = vectorised ? pick_kernel(config) : vecadd_scalar_kernel;
    const size_t per_thread = vectorised ? 4 * size_t(config.unroll) : 1;
    const size_t threads_needed = std::max<size_t>(1, (n + per_thread - 1) / per_thread);
    size_t grid = (threads_needed + plan.block - 1) / plan.block;
    if (config.blocks_per_sm >= 0) {
        int device = 0, sms = 0, per_sm = config.blocks_per_sm;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        if (per_sm == 0) CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, plan.kernel, plan.block, 0));
        grid = std::min(grid, size_t(std::max(1, sms * per_sm)));
    }
    plan.grid = int(std::min<size_t>(grid, INT_MAX));
    return plan;
}

void launch(const LaunchPlan& plan, const float* a, const float* b, float* c, size_t n, cudaStream_t stream) {
    plan.kernel<<<plan.grid, plan.block, 0, stream>>>(a, b, c, n);
    CUDA_CHECK_LAUNCH();
}

// ---- Resources (RAII; destructors never throw) -------------------------------------------------

std::string gb(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
    return buf;
}

struct DeviceBuffer {
    float* ptr = nullptr;
    explicit DeviceBuffer(size_t n) {
        const cudaError_t err = cuda_malloc(&ptr, std::max<size_t>(n, 1) * sizeof(float));
        if (err != cudaSuccess) {
            cudaGetLastError();  // clear it: running out of memory is not fatal
            throw std::runtime_error("cannot allocate " + gb(double(n) * 4) +
                                     " on the GPU: " + cudaGetErrorString(err));
        }
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct PinnedBuffer {
    float* ptr = nullptr;
    explicit PinnedBuffer(size_t n) {
        const cudaError_t err = cudaMallocHost(&ptr, std::max<size_t>(n, 1) * sizeof(float));
        if (err != cudaSuccess) {
            cudaGetLastError();
            throw std::runtime_error("cannot allocate " + gb(double(n) * 4) +
                                     " of pinned host memory: " + cudaGetErrorString(err));
        }
    }
    ~PinnedBuffer() { cudaFreeHost(ptr); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};

struct Event {
    cudaEvent_t e = nullptr;
    Event() { CUDA_CHECK(cudaEventCreate(&e)); }
    ~Event() { cudaEventDestroy(e); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};

// ---- Timing ------------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

struct Timing {
    std::vector<double> event_ms, wall_ms;
};

double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bool is_cancelled(const VecAddOptions& options) {
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

// Runs `body` (which enqueues work, possibly waiting for some of it) warmup + repeats times.
template <class Body>
Timing time_calls(const Body& body, const VecAddOptions& options) {
    Event start, stop;
    for (int i = 0; i < options.warmup_runs; ++i) body();
    CUDA_CHECK(cudaDeviceSynchronize());
    Timing t;
    for (int rep = 0; rep < std::max(1, options.repeats); ++rep) {
        if (is_cancelled(options)) break;
        const Clock::time_point t0 = Clock::now();
        CUDA_CHECK(cudaEventRecord(start.e, 0));
        body();
        CUDA_CHECK(cudaEventRecord(stop.e, 0));
        CUDA_CHECK(cudaEventSynchronize(stop.e));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
        t.event_ms.push_back(double(ms));
        t.wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return t;
}

VecAddResult result_from(VecAddVariant variant, size_t n, const Timing& t) {
    VecAddResult r;
    r.variant = variant;
    r.elements = n;
    if (t.event_ms.empty()) {
        r.error = "cancelled";
        return r;
    }
    r.ok = true;
    r.repeats = int(t.event_ms.size());
    r.time_ms = median_of(t.event_ms);
    r.min_time_ms = *std::min_element(t.event_ms.begin(), t.event_ms.end());
    r.wall_ms = median_of(t.wall_ms);
    return r;
}

VecAddResult failed(VecAddVariant variant, size_t n, const std::string& why) {
    VecAddResult r;
    r.variant = variant;
    r.elements = n;
    r.error = why;
    return r;
}

// ---- Host link ---------------------------------------------------------------------------------

// "PCIe gen 5 x16" from sysfs for the device's PCI address; "" when not readable (containers
// without /sys, virtual machines). The link may train down when idle, so the maximum is shown
// with the current state when they differ.
std::string read_link_file(const std::string& dir, const char* name) {
    std::ifstream in(dir + "/" + name);
    std::string value;
    std::getline(in, value);
    return value;
}

int pcie_generation(double gt_per_s) {
    const double speeds[] = {2.5, 5, 8, 16, 32, 64};
    for (int g = 0; g < 6; ++g)
        if (std::abs(gt_per_s - speeds[g]) < 0.1) return g + 1;
    return 0;
}

void read_pcie(int device, VecAddDevice& info) {
    char bus_id[64] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    std::string id(bus_id);
    for (char& ch : id) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    // CUDA may print an 8-digit domain ("00000000:18:00.0"); sysfs uses 4 digits.
    const size_t colon = id.find(':');
    if (colon == 8) id = id.substr(4);
    const std::string dir = "/sys/bus/pci/devices/" + id;
    const std::string max_speed = read_link_file(dir, "max_link_speed");
    const std::string max_width = read_link_file(dir, "max_link_width");
    const std::string cur_speed = read_link_file(dir, "current_link_speed");
    const std::string cur_width = read_link_file(dir, "current_link_width");
    if (max_speed.empty() || max_width.empty()) return;
    const int gen = pcie_generation(std::atof(max_speed.c_str()));
    const int width = std::atoi(max_width.c_str());
    if (gen == 0 || width == 0) return;
    info.pcie = "PCIe gen " + std::to_string(gen) + " x" + std::to_string(width);
    const int cur_gen = pcie_generation(std::atof(cur_speed.c_str()));
    const int cur_w = std::atoi(cur_width.c_str());
    if (cur_gen && cur_w && (cur_gen != gen || cur_w != width))
        info.pcie += " (now gen " + std::to_string(cur_gen) + " x" + std::to_string(cur_w) + ")";
    // Per lane and direction: gen 1-2 lose 20% to 8b/10b coding, gen 3+ 1.5% to 128b/130b
    // (gen 6's FLIT overhead is similar).
    const double gt = std::atof(max_speed.c_str());
    info.pcie_gb_per_second = gt * width / 8.0 * (gen <= 2 ? 0.8 : 128.0 / 130.0);
}

// Pinned cudaMemcpy one direction at a time: what any transfer variant can hope for.
void measure_link(VecAddDevice& info) {
    size_t n = size_t(64) << 20;  // 256 MiB of floats: long enough to hide per-copy overhead
    n = std::min(n, info.free_memory_bytes / 8);
    if (n < (size_t(1) << 20)) return;
    DeviceBuffer dev(n);
    PinnedBuffer host(n);
    std::memset(host.ptr, 0, n * sizeof(float));
    VecAddOptions opts;
    opts.repeats = 5;
    const Timing h2d = time_calls(
        [&] { CUDA_CHECK(cudaMemcpy(dev.ptr, host.ptr, n * sizeof(float), cudaMemcpyHostToDevice)); }, opts);
    const Timing d2h = time_calls(
        [&] { CUDA_CHECK(cudaMemcpy(host.ptr, dev.ptr, n * sizeof(float), cudaMemcpyDeviceToHost)); }, opts);
    info.link_h2d_gb_per_second = double(n * sizeof(float)) / (median_of(h2d.event_ms) * 1e-3) / 1e9;
    info.link_d2h_gb_per_second = double(n * sizeof(float)) / (median_of(d2h.event_ms) * 1e-3) / 1e9;
}

}  // namespace

VecAddDevice vecadd_device_info(bool measure_link_now) {
    VecAddDevice info;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        cudaGetLastError();
        info.reason = cuda_unavailable_reason();  // compute/cuda_info.h's words, as in every mode
        if (info.reason.empty()) info.reason = std::string("CUDA cannot start: ") + cudaGetErrorString(err);
        return info;
    }
    try {
        const int device = 0;
        CUDA_CHECK(cudaSetDevice(device));
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        info.name = prop.name;
        info.sm_count = prop.multiProcessorCount;
        // CUDA 13 removed cudaDeviceProp::memoryClockRate; the attribute remains.
        int clock_khz = 0, bus_bits = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
        // Double data rate: two transfers per clock over bus_bits / 8 bytes.
        info.memory_gb_per_second = 2.0 * double(clock_khz) * 1e3 * (bus_bits / 8.0) / 1e9;
        CUDA_CHECK(cudaMemGetInfo(&info.free_memory_bytes, &info.total_memory_bytes));
        read_pcie(device, info);
        if (measure_link_now) measure_link(info);
        info.available = true;
    } catch (const std::exception& e) {
        info.available = false;
        info.reason = e.what();
    }
    return info;
}

void vecadd_cuda_to_host(const float* a, const float* b, float* c, size_t n, const VecAddKernelConfig& config) {
    DeviceBuffer da(n), db(n), dc(n);
    CUDA_CHECK(cudaMemcpy(da.ptr, a, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db.ptr, b, n * sizeof(float), cudaMemcpyHostToDevice));
    launch(plan_launch(da.ptr, db.ptr, dc.ptr, n, config), da.ptr, db.ptr, dc.ptr, n, 0);
    CUDA_CHECK(cudaMemcpy(c, dc.ptr, n * sizeof(float), cudaMemcpyDeviceToHost));
}

// ---- The GPU variants --------------------------------------------------------------------------

std::vector<VecAddResult> vecadd_gpu_measure(const VecAddDevice& device, const std::vector<VecAddVariant>& gpu_variants,
                                             const VecAddHostArrays& arrays, const VecAddOptions& options,
                                             const std::function<void(const VecAddResult&)>& done) {
    using V = VecAddVariant;
    const size_t n = arrays.n, bytes = n * sizeof(float);
    std::vector<VecAddResult> results;
    auto finish = [&](VecAddResult r) {
        results.push_back(std::move(r));
        if (done) done(results.back());
    };
    if (!device.available) {
        for (V v : gpu_variants) finish(failed(v, n, device.reason));
        return results;
    }
    const bool need_pinned = std::any_of(gpu_variants.begin(), gpu_variants.end(),
                                         [](V v) { return v == V::GpuPinned || v == V::GpuStreams; });
    std::unique_ptr<DeviceBuffer> da, db, dc;
    std::unique_ptr<PinnedBuffer> pa, pb, pc;
    try {
        CUDA_CHECK(cudaSetDevice(0));
        da = std::make_unique<DeviceBuffer>(n);
        db = std::make_unique<DeviceBuffer>(n);
        dc = std::make_unique<DeviceBuffer>(n);
        if (need_pinned) {
            pa = std::make_unique<PinnedBuffer>(n);
            pb = std::make_unique<PinnedBuffer>(n);
            pc = std::make_unique<PinnedBuffer>(n);
            // The pinned variants assume the application keeps its arrays in pinned memory.
            std::memcpy(pa->ptr, arrays.a, bytes);
            std::memcpy(pb->ptr, arrays.b, bytes);
        }
        CUDA_CHECK(cudaMemcpy(da->ptr, arrays.a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(db->ptr, arrays.b, bytes, cudaMemcpyHostToDevice));
    } catch (const std::exception& e) {
        for (V v : gpu_variants) finish(failed(v, n, e.what()));
        return results;
    }
    const LaunchPlan whole = plan_launch(da->ptr, db->ptr, dc->ptr, n, options.kernel);

    // Streams: chunks of a multiple of 4 floats keep every chunk 16-byte aligned.
    size_t chunk = options.chunk_elements ? options.chunk_elements : std::max<size_t>(n / 32, size_t(1) << 20);
    chunk = std::max<size_t>(4, (chunk + 3) / 4 * 4);
    const int stream_count = std::max(1, options.streams);

    for (V v : gpu_variants) {
        if (is_cancelled(options)) {
            finish(failed(v, n, "cancelled"));
            continue;
        }
        try {
            // Poison the outputs so a variant that skipped its work cannot pass verification.
            CUDA_CHECK(cudaMemset(dc->ptr, 0xFF, bytes));
            std::memset(arrays.out, 0xFF, bytes);
            if (pc) std::memset(pc->ptr, 0xFF, bytes);
            Timing t;
            const float* check = arrays.out;  // where the result ends up on the host
            const float* expected = arrays.reference;
            switch (v) {
            case V::GpuKernelOnly:
                t = time_calls([&] { launch(whole, da->ptr, db->ptr, dc->ptr, n, 0); }, options);
                CUDA_CHECK(cudaMemcpy(arrays.out, dc->ptr, bytes, cudaMemcpyDeviceToHost));
                break;
            case V::GpuDeviceCopy:
                t = time_calls(
                    [&] { CUDA_CHECK(cudaMemcpyAsync(dc->ptr, da->ptr, bytes, cudaMemcpyDeviceToDevice, 0)); },
                    options);
                CUDA_CHECK(cudaMemcpy(arrays.out, dc->ptr, bytes, cudaMemcpyDeviceToHost));
                expected = arrays.a;  // a copy of a
                break;
            case V::GpuPageable:
                t = time_calls(
                    [&] {
                        CUDA_CHECK(cudaMemcpy(da->ptr, arrays.a, bytes, cudaMemcpyHostToDevice));
                        CUDA_CHECK(cudaMemcpy(db->ptr, arrays.b, bytes, cudaMemcpyHostToDevice));
                        launch(whole, da->ptr, db->ptr, dc->ptr, n, 0);
                        CUDA_CHECK(cudaMemcpy(arrays.out, dc->ptr, bytes, cudaMemcpyDeviceToHost));
                    },
                    options);
                break;
            case V::GpuPinned:
                t = time_calls(
                    [&] {
                        CUDA_CHECK(cudaMemcpy(da->ptr, pa->ptr, bytes, cudaMemcpyHostToDevice));
                        CUDA_CHECK(cudaMemcpy(db->ptr, pb->ptr, bytes, cudaMemcpyHostToDevice));
                        launch(whole, da->ptr, db->ptr, dc->ptr, n, 0);
                        CUDA_CHECK(cudaMemcpy(pc->ptr, dc->ptr, bytes, cudaMemcpyDeviceToHost));
                    },
                    options);
                check = pc->ptr;
                break;
            case V::GpuStreams: {
                std::vector<Stream> streams(static_cast<size_t>(stream_count));
                std::vector<Event> joins(static_cast<size_t>(stream_count));
                Event fork;
                const size_t last_len = n - (n - 1) / chunk * chunk;
                const LaunchPlan full_plan = plan_launch(da->ptr, db->ptr, dc->ptr, std::min(chunk, n), options.kernel);
                const LaunchPlan last_plan = plan_launch(da->ptr, db->ptr, dc->ptr, last_len, options.kernel);
                // Chunk k on stream k % S: copy its a and b in, add, copy its c out. Copies in
                // one direction run on one copy engine, the other direction on another, and the
                // kernels fill the gaps: with enough chunks the slowest of the three sets the pace.
                t = time_calls(
                    [&] {
                        CUDA_CHECK(cudaEventRecord(fork.e, 0));
                        for (Stream& s : streams) CUDA_CHECK(cudaStreamWaitEvent(s.s, fork.e, 0));
                        size_t k = 0;
                        for (size_t off = 0; off < n; off += chunk, ++k) {
                            const size_t len = std::min(chunk, n - off);
                            cudaStream_t s = streams[k % streams.size()].s;
                            CUDA_CHECK(
                                cudaMemcpyAsync(da->ptr + off, pa->ptr + off, len * 4, cudaMemcpyHostToDevice, s));
                            CUDA_CHECK(
                                cudaMemcpyAsync(db->ptr + off, pb->ptr + off, len * 4, cudaMemcpyHostToDevice, s));
                            launch(len == chunk ? full_plan : last_plan, da->ptr + off, db->ptr + off, dc->ptr + off,
                                   len, s);
                            CUDA_CHECK(
                                cudaMemcpyAsync(pc->ptr + off, dc->ptr + off, len * 4, cudaMemcpyDeviceToHost, s));
                        }
                        for (size_t i = 0; i < streams.size(); ++i) {
                            CUDA_CHECK(cudaEventRecord(joins[i].e, streams[i].s));
                            CUDA_CHECK(cudaStreamWaitEvent(0, joins[i].e, 0));
                        }
                    },
                    options);
                check = pc->ptr;
                break;
            }
            default: finish(failed(v, n, "not a GPU variant")); continue;
            }
            VecAddResult r = result_from(v, n, t);
            if (r.ok) r.max_abs_error = vecadd_max_abs_error(expected, check, n);
            finish(std::move(r));
        } catch (const std::exception& e) {
            finish(failed(v, n, e.what()));
        }
    }
    return results;
}

std::vector<VecAddConfigResult> vecadd_kernel_configs(const VecAddDevice& device, size_t n,
                                                      const std::vector<VecAddKernelConfig>& configs,
                                                      const VecAddOptions& options) {
    std::vector<VecAddConfigResult> out;
    if (!device.available) {
        for (const VecAddKernelConfig& c : configs)
            out.push_back({c, failed(VecAddVariant::GpuKernelOnly, n, device.reason)});
        return out;
    }
    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n), b(n), reference(n), got(n);
    vecadd_fill_inputs(a.data(), b.data(), n);
    vecadd_cpu(a.data(), b.data(), reference.data(), n);
    DeviceBuffer da(n), db(n), dc(n);
    CUDA_CHECK(cudaMemcpy(da.ptr, a.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db.ptr, b.data(), bytes, cudaMemcpyHostToDevice));
    for (const VecAddKernelConfig& c : configs) {
        try {
            const LaunchPlan plan = plan_launch(da.ptr, db.ptr, dc.ptr, n, c);
            CUDA_CHECK(cudaMemset(dc.ptr, 0xFF, bytes));
            const Timing t = time_calls([&] { launch(plan, da.ptr, db.ptr, dc.ptr, n, 0); }, options);
            VecAddResult r = result_from(VecAddVariant::GpuKernelOnly, n, t);
            CUDA_CHECK(cudaMemcpy(got.data(), dc.ptr, bytes, cudaMemcpyDeviceToHost));
            r.max_abs_error = vecadd_max_abs_error(reference.data(), got.data(), n);
            r.bytes_moved = kVecAddBytesPerElement * double(n);
            if (r.ok) {
                r.gb_per_second = r.bytes_moved / (r.time_ms * 1e-3) / 1e9;
                r.limit_gb_per_second = device.memory_gb_per_second;
                r.limit_name = "device memory";
                r.percent_of_limit = 100.0 * r.gb_per_second / r.limit_gb_per_second;
            }
            out.push_back({c, r});
        } catch (const std::exception& e) {
            out.push_back({c, failed(VecAddVariant::GpuKernelOnly, n, e.what())});
        }
    }
    return out;
}

}  // namespace ms
