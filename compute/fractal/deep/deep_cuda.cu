// deep_cuda.cu: the deep frame on CUDA (see deep_cuda.h). Host part: setup (shared with the CPU
// path), the orbit on the device, the BLA tables built there (deep_bla_cuda.h), device buffers,
// one launch, copies back. Device part: one thread per pixel
// running deep_iterate_pixel, per-warp sums of the counters added atomically.
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "compute/fractal/deep/deep_bla_cuda.h"
#include "compute/fractal/deep/deep_cuda_free.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"
#include "compute/system/cuda_info.h"
#include "compute/system/cuda_start.h"
#include "compute/system/cuda_check.h"

namespace ms {

namespace {

// ---------------------------------------------------------------------------------------------
// GPU kernel

struct DeviceCounters {
    unsigned long long iterations, bla_iterations, bla_skips, steps, rebases, escaped;
};

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// 128 threads: 4 warps, each four rows of 8 pixels. A warp runs until its slowest lane is done,
// and a squarer patch of pixels varies less: 8x16 blocks are as fast as any shape tried at the
// kf2 locations (deep_bench_cuda_passes' one pass, built each way; see docs/performance.md).
constexpr int kBlockWidth = 8;
constexpr int kBlockHeight = 16;
// The frame's passes (render_pixels_cuda), where DeepRenderOptions::cuda_pass_steps asks for them:
// a last pass without a budget once no more pixels than this are left (fewer than the device
// holds at once), unless cuda_pass_final_pixels says otherwise.
constexpr size_t kPassFinalPixels = 65536;

// What the host and a running kernel tell each other, in device memory: the host sets cancel
// (a 4-byte copy on a stream of its own, which runs beside the kernel) when a newer view makes
// the frame stale, and each warp reads it as it starts (a warp already running finishes its
// pixels: one pixel's time at most); each warp adds itself to warps_done as it finishes, which
// the host reads the same way and turns into the frame's progress. (Not mapped host memory:
// one bus transaction per warp would cost many times a short frame's time.)
struct KernelControl {
    int cancel;
    unsigned int warps_done;
};

// One instantiation per number type, formula (formula.h), plane (kJulia), rebasing and distance
// estimate (kDistance: into `distance`, else unused). W, w_last and bla_w are a Julia set's
// critical orbit and its table (unused elsewhere).
// The pixels a pass leaves running (kPasses): their loop states, their places in the region
// (row-major) and how many.
template <typename T>
struct PassQueue {
    DeepPixelResume<T>* states = nullptr;
    uint32_t* pixels = nullptr;
    unsigned int* count = nullptr;
};

// The points of a polar grid (deep_cpu_rings.h) in place of the view's rectangle: row y is the
// ring at radius[y] (null: the rectangle), column x its point at the angle whose cosine and sine
// are cos[x] and sin[x]; turn_step is 2 pi / columns, a ring's point spacing over its radius.
template <typename T>
struct DeepRingGrid {
    const T* radius = nullptr;
    const double* cos = nullptr;
    const double* sin = nullptr;
    double turn_step = 0.0;
};

// Z and W are read as DeepOrbitPoint arrays (the orbit beside level 0's radius, made by
// pack_orbit_kernel below).
// kPasses: each pixel runs at most step_budget perturbation steps, and a pixel still running
// then goes to `out` (deep_iterate_pixel's kResume); a pass that reads `in` (in.pixels non-null)
// takes its pixels from there, one thread each (a 1-D grid of the same blocks), so the pixels
// still running fill whole warps again instead of idling 32-lane warps for their slowest lane.
// kAtom: also the atom period (deep_atom.h) into atom.period (the frame's array), the tables'
// atom steps in atom.steps and atom.steps_w.
// grid: a polar grid's points (region and width x height are then its columns x rings).
template <typename T, bool kRebase, Formula F, bool kJulia, bool kDistance, bool kPasses, bool kAtom = false>
__global__ void deep_pixels_kernel(const DeepOrbitPoint<T>* Z, int64_t last_index, BlaView<T, DeepBlaLinear<F, T>> bla,
                                   const DeepOrbitPoint<T>* W, int64_t w_last, BlaView<T, DeepBlaLinear<F, T>> bla_w,
                                   DeepComplex<T> offset, T spacing, int width, int height, DeepPixelRect region,
                                   int64_t max_iterations, int64_t* counts, double* mu, float* distance,
                                   DeviceCounters* totals, KernelControl* control, PassQueue<T> in, PassQueue<T> out,
                                   int64_t step_budget, DeepAtomOutput<T> atom = {}, DeepRingGrid<T> grid = {}) {
    static_assert(!(kDistance && kPasses), "the distance estimate's loop runs in one pass");
    static_assert(!(kAtom && kPasses), "the atom period's loop runs in one pass");
    DeepPixelCounters c;
    // Read once per warp (lane 0) and shared: a stale frame's pixels are never read.
    const unsigned lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    int flag = 0;
    if (control && lane == 0) flag = *static_cast<volatile int*>(&control->cancel);
    const bool cancelled = __shfl_sync(0xffffffffu, flag, 0) != 0;
    // One thread per pixel of the region (its place from the 2-D grid, or from `in`); its dc from
    // its place (x, y) in the width x height frame.
    bool active;
    uint32_t pixel = 0;
    DeepPixelResume<T> state;
    if (!kPasses || !in.pixels) {
        const int column = blockIdx.x * blockDim.x + threadIdx.x;
        const int row = blockIdx.y * blockDim.y + threadIdx.y;
        active = column < region.width && row < region.height;
        pixel = uint32_t(row) * uint32_t(region.width) + uint32_t(column);
    } else {
        const uint32_t t = ((blockIdx.y * gridDim.x + blockIdx.x) * blockDim.y + threadIdx.y) * blockDim.x +
                           threadIdx.x;
        active = t < *in.count;
        if (active) {
            pixel = in.pixels[t];
            state = in.states[t];
        }
    }
    bool suspended = false;
    if (active && !cancelled) {
        const int x = region.x + int(pixel % uint32_t(region.width)),
                  y = region.y + int(pixel / uint32_t(region.width));
        // The same expressions as the CPU loops (deep_cpu.cpp, deep_cpu_rings.cpp), so the same
        // dc, and the same spacing for the distance estimate, bit for bit.
        DeepComplex<T> dc;
        T point_spacing = spacing;
        if (grid.radius) {
            const T r = grid.radius[y];
            dc = {offset.re + r * deep_from_double<T>(grid.cos[x]), offset.im + r * deep_from_double<T>(grid.sin[x])};
            point_spacing = r * deep_from_double<T>(grid.turn_step);
        } else {
            const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
            const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
            dc = {offset.re + dx, offset.im + dy};
        }
        const size_t i = pixel;
        double pixel_mu;
        int64_t k;
        if constexpr (kAtom)
            k = deep_iterate_pixel<T, kRebase, F, kJulia, kDistance, false, true, false, true>(
                nullptr, last_index, bla, dc, max_iterations, &pixel_mu, c, nullptr, w_last, &bla_w,
                DeepDistanceOutput<T>{point_spacing, kDistance ? distance + i : nullptr}, nullptr, Z, W, nullptr, 0,
                DeepAtomOutput<T>{atom.steps, atom.steps_w, atom.period + i});
        else if constexpr (kDistance)
            k = deep_iterate_pixel<T, kRebase, F, kJulia, true, false, true>(
                nullptr, last_index, bla, dc, max_iterations, &pixel_mu, c, nullptr, w_last, &bla_w,
                DeepDistanceOutput<T>{point_spacing, distance + i}, nullptr, Z, W);
        else
            k = deep_iterate_pixel<T, kRebase, F, kJulia, false, false, true, kPasses>(
                nullptr, last_index, bla, dc, max_iterations, &pixel_mu, c, nullptr, w_last, &bla_w, {}, nullptr, Z, W,
                &state, step_budget);
        suspended = kPasses && k == kDeepPixelSuspended;
        if (!suspended) {
            counts[i] = k;
            mu[i] = pixel_mu;
        }
    }
    if constexpr (kPasses) {
        // The warp's suspended pixels go to `out` together: one atomic a warp.
        const unsigned mask = __ballot_sync(0xffffffffu, suspended);
        if (mask) {
            const int leader = __ffs(mask) - 1;
            unsigned int first = 0;
            if (int(lane) == leader) first = atomicAdd(out.count, unsigned(__popc(mask)));
            first = __shfl_sync(0xffffffffu, first, leader);
            if (suspended) {
                const unsigned slot = first + unsigned(__popc(mask & ((1u << lane) - 1u)));
                out.states[slot] = state;
                out.pixels[slot] = pixel;
            }
        }
    }
    // Every thread of the block reaches here (no early return): full-warp shuffles are safe.
    unsigned long long sums[6] = {warp_sum(c.iterations), warp_sum(c.bla_iterations), warp_sum(c.bla_skips),
                                  warp_sum(c.steps),      warp_sum(c.rebases),        warp_sum(c.escaped)};
    if (lane == 0) {
        atomicAdd(&totals->iterations, sums[0]);
        atomicAdd(&totals->bla_iterations, sums[1]);
        atomicAdd(&totals->bla_skips, sums[2]);
        atomicAdd(&totals->steps, sums[3]);
        atomicAdd(&totals->rebases, sums[4]);
        atomicAdd(&totals->escaped, sums[5]);
        if (control) atomicAdd(&control->warps_done, 1u);
    }
}

// points[m] = {Z_m, level 0's radius at m} for m = 0 .. size - 1 (bla_first_radius: 0 at m = 0,
// past the table and with no table).
template <typename T, typename L>
__global__ void pack_orbit_kernel(const DeepComplex<T>* z, int64_t size, BlaView<T, L> bla, DeepOrbitPoint<T>* points) {
    const int64_t m = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (m < size) points[m] = deep_orbit_point(z, bla, m);
}

// radii[i] = entries[i].r2: a table's radii alone, for bla_lookup_batched.
template <typename T, typename L>
__global__ void bla_radii_kernel(const BlaStep<T, L>* entries, int64_t size, T* radii) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < size) radii[i] = entries[i].r2;
}

// Whether the frame's outputs come back to the host (DeepRenderOptions::host_outputs).
bool deep_cuda_host_outputs(const DeepRenderOptions& options) {
    return options.host_outputs || !options.device_frame;
}

// `device` (options.device) checked: -1 (the current device) or one that exists. Throws
// std::runtime_error with a sentence for a device that does not. Returns it.
int existing_device(int device) {
    if (device < 0) return device;
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count)
        throw std::runtime_error("The deep CUDA path cannot run on device " + std::to_string(device) + ": there " +
                                 (count == 1 ? "is 1 CUDA device" : "are " + std::to_string(count) + " CUDA devices") +
                                 ", numbered from 0.");
    return device;
}

// The calling thread on options.device for the scope of a frame, given back the device it had
// after (the caller's own CUDA work stays where it was); a device that does not exist throws.
class DeviceScope {
public:
    explicit DeviceScope(int device) : scope_(existing_device(device)) {}

private:
    CudaDeviceScope scope_;
};

// The calling thread's KernelControl on the device, the non-blocking stream that reads and
// writes it while a kernel runs, and pinned host words for those copies; made once per thread
// (and device) and kept for the thread's life.
struct ThreadControl {
    int device = -1;
    KernelControl* control = nullptr;
    cudaStream_t side = nullptr;
    unsigned int* pinned = nullptr;  // [0] warps done, read back; [1] the cancel value, 1
    void release() {
        {
            // Freed with their own device current (the thread may have moved to another one).
            const CudaDeviceScope scope(device);
            if (pinned) cudaFreeHost(pinned);
            if (control) cudaFree(control);
            if (side) cudaStreamDestroy(side);
        }
        pinned = nullptr;
        control = nullptr;
        side = nullptr;
        device = -1;
    }
    ~ThreadControl() { release(); }
};

ThreadControl& thread_control() {
    thread_local ThreadControl control;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (control.device != device) {
        control.release();
        CUDA_CHECK(cuda_malloc(&control.control, sizeof(KernelControl)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&control.side, cudaStreamNonBlocking));
        void* pinned = nullptr;
        CUDA_CHECK(cudaMallocHost(&pinned, 2 * sizeof(unsigned int)));
        control.pinned = static_cast<unsigned int*>(pinned);
        control.pinned[1] = 1;
        control.device = device;
    }
    return control;
}

// Waits for `done` on the host while the kernel runs, polling every 200 us: sets the kernel's
// cancel flag once options.cancel is set, and reports progress as rows: rows_from + rows_span x
// (warps done of all), never less than *rows_reported (a frame's passes report one rising
// count), and the whole height once `last` is done. Returns true when the kernel was told to
// cancel.
bool wait_for_kernel(cudaEvent_t done, ThreadControl& tc, unsigned int warps, int height,
                     const DeepRenderOptions& options, int rows_from = 0, int rows_span = -1, bool last = true,
                     int* rows_reported_io = nullptr) {
    bool cancelled = false;
    int rows_reported_local = -1;
    int& rows_reported = rows_reported_io ? *rows_reported_io : rows_reported_local;
    if (rows_span < 0) rows_span = height;
    for (;;) {
        const cudaError_t status = cudaEventQuery(done);
        if (status == cudaSuccess) break;
        if (status != cudaErrorNotReady) CUDA_CHECK(status);
        if (!cancelled && options.cancel && options.cancel->load()) {
            CUDA_CHECK(
                cudaMemcpyAsync(&tc.control->cancel, &tc.pinned[1], sizeof(int), cudaMemcpyHostToDevice, tc.side));
            CUDA_CHECK(cudaStreamSynchronize(tc.side));
            cancelled = true;
        }
        if (options.row_progress && !cancelled) {
            CUDA_CHECK(cudaMemcpyAsync(&tc.pinned[0], &tc.control->warps_done, sizeof(unsigned int),
                                       cudaMemcpyDeviceToHost, tc.side));
            CUDA_CHECK(cudaStreamSynchronize(tc.side));
            const unsigned int finished = std::min(tc.pinned[0], warps);
            const int rows = rows_from + int(int64_t(rows_span) * finished / std::max(warps, 1u));
            if (rows > rows_reported) {
                options.row_progress(rows, height);
                rows_reported = rows;
            }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (options.row_progress && !cancelled && last) {
        options.row_progress(height, height);
        rows_reported = height;
    }
    return cancelled;
}

// ---------------------------------------------------------------------------------------------
// Launcher

// A device allocation in stream order (cudaMallocAsync from the device's pool, freed with
// cudaFreeAsync on scope exit, also when a CUDA_CHECK throws): unlike cudaFree, freeing does not
// wait for the whole device, so a frame's buffers do not stall other threads' streams.
template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    cudaStream_t stream = nullptr;
    DeviceArray(size_t count, cudaStream_t s) : stream(s) {
        if (fault_injected(Fault::CudaMalloc)) CUDA_CHECK(cudaErrorMemoryAllocation);
        CUDA_CHECK(cudaMallocAsync(&ptr, (count ? count : 1) * sizeof(T), stream));
    }
    ~DeviceArray() { cudaFreeAsync(ptr, stream); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

// A host range page-locked while it lives (cudaHostRegister), so that a copy from the device into
// it is one DMA instead of the driver's staged copy of pageable memory. The frame's outputs are
// pinned while its kernel runs: sizing and registering the two vectors happens behind the kernel,
// and the pinned copy plus unregistering costs less than the pageable copy (see
// docs/performance.md). Where registering fails (the range shares a page with one already
// registered, or the driver refuses), the copy stays pageable: nothing else changes.
struct HostPin {
    void* ptr = nullptr;
    HostPin(void* p, size_t bytes) {
        if (bytes < kHostPinMinBytes) return;
        if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) ptr = p;
        else cudaGetLastError();  // clears the failed call's error; the copy goes pageable
    }
    ~HostPin() {
        if (ptr) cudaHostUnregister(ptr);
    }
    HostPin(const HostPin&) = delete;
    HostPin& operator=(const HostPin&) = delete;
    // Below 1 MB the pageable copy costs about what registering does.
    static constexpr size_t kHostPinMinBytes = size_t(1) << 20;
};

// Keeps the device's default memory pool from handing its memory back at every synchronisation
// (its release threshold is 0 by default): a 1024x1024 frame takes about 160 MB of
// stream-ordered buffers (outputs and its passes' queues), which would otherwise be mapped
// anew each frame. Once per device.
void keep_pool_memory() {
    static std::mutex mutex;
    static std::vector<int> done;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex);
    if (std::find(done.begin(), done.end(), device) != done.end()) return;
    cudaMemPool_t pool = nullptr;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    uint64_t threshold = uint64_t(1) << 30;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    done.push_back(device);
}

// Device copies of reference orbits and BLA tables, kept between frames: a frame whose orbit
// and table came from the ReferenceCache finds their device copies here and copies nothing to
// the device (about 100 MB a frame at 1e1086 before). An entry is keyed by the host object that
// owns the array (the orbit or the table, through a weak_ptr: an entry whose owner is gone is
// dropped), the array's address and size, and the device. The copy completes before an entry is
// published, so another thread's stream may use it at once; a frame holds its buffers through
// shared_ptr, so an entry evicted meanwhile is freed after the frame. At most kDeviceUploads
// entries (a frame needs up to eight: the orbit and a Julia set's critical orbit, each also
// packed beside level 0's radii, their tables when built on the CPU, and the tables' radii) on
// each device: a frame spread over several devices keeps every device's copies.
struct DeviceBuffer {
    void* ptr = nullptr;
    // From the device's pool in `stream`'s order (keep_pool_memory keeps the pool's memory
    // between frames: a table's radii and packed orbit then cost no cudaMalloc); freed on the
    // legacy stream when the last frame using it has synchronised its own.
    // The last owner may let go of it on any thread, with any device current: it is freed on its
    // own device's legacy stream.
    int device = -1;
    DeviceBuffer(size_t bytes, cudaStream_t stream) {
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cuda_malloc_async(&ptr, bytes ? bytes : 1, stream));
    }
    ~DeviceBuffer() { cuda_free_async_on_device(ptr, device); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

constexpr size_t kDeviceUploads = 12;  // a device

enum class UploadKind { Copy, PackedOrbit, Radii };

struct DeviceUpload {
    std::weak_ptr<const void> owner;
    const void* data = nullptr;
    size_t bytes = 0;
    int device = -1;
    UploadKind kind = UploadKind::Copy;
    std::shared_ptr<DeviceBuffer> buffer;
};

struct DeviceUploads {
    std::mutex mutex;
    std::deque<DeviceUpload> entries;  // newest last
};

DeviceUploads& device_uploads() {
    static DeviceUploads uploads;
    return uploads;
}

// The kept device buffer of (owner, data, bytes, kind) on the current device, or null.
std::shared_ptr<DeviceBuffer> find_device_upload(const std::shared_ptr<const void>& owner, const void* data,
                                                 size_t bytes, UploadKind kind, int device) {
    DeviceUploads& uploads = device_uploads();
    std::lock_guard<std::mutex> lock(uploads.mutex);
    for (auto it = uploads.entries.begin(); it != uploads.entries.end();) {
        const std::shared_ptr<const void> live = it->owner.lock();
        if (!live) {
            it = uploads.entries.erase(it);
            continue;
        }
        if (live.get() == owner.get() && it->data == data && it->bytes == bytes && it->kind == kind &&
            it->device == device)
            return it->buffer;
        ++it;
    }
    return nullptr;
}

void keep_device_upload(const std::shared_ptr<const void>& owner, const void* data, size_t bytes, UploadKind kind,
                        int device, std::shared_ptr<DeviceBuffer> buffer) {
    DeviceUploads& uploads = device_uploads();
    std::lock_guard<std::mutex> lock(uploads.mutex);
    uploads.entries.push_back({owner, data, bytes, device, kind, std::move(buffer)});
    // The device's oldest entry goes once it has more than kDeviceUploads.
    const auto on_device = [device](const DeviceUpload& entry) { return entry.device == device; };
    if (size_t(std::count_if(uploads.entries.begin(), uploads.entries.end(), on_device)) > kDeviceUploads)
        uploads.entries.erase(std::find_if(uploads.entries.begin(), uploads.entries.end(), on_device));
}

// The device copy of `bytes` at `data`, owned by `owner`: found, or copied on `stream` (and
// waited for) and kept. *copied says which.
std::shared_ptr<DeviceBuffer> device_copy_of(const std::shared_ptr<const void>& owner, const void* data, size_t bytes,
                                             cudaStream_t stream, bool* copied) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (auto found = find_device_upload(owner, data, bytes, UploadKind::Copy, device)) {
        *copied = false;
        return found;
    }
    auto buffer = std::make_shared<DeviceBuffer>(bytes, stream);
    CUDA_CHECK(cudaMemcpyAsync(buffer->ptr, data, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    *copied = true;
    keep_device_upload(owner, data, bytes, UploadKind::Copy, device, buffer);
    return buffer;
}

// The orbit z[0 .. size) beside level 0's radii of `table` (bla: its view with device entries),
// as DeepOrbitPoint on the device: found (kept for the table, or for the orbit `orbit_owner`
// without one; keyed by the host orbit z), or packed on `stream` from z_device, the orbit's copy
// on the device, and kept.
template <typename T, typename L>
std::shared_ptr<DeviceBuffer> device_packed_orbit(const std::shared_ptr<const void>& orbit_owner,
                                                  const std::shared_ptr<const void>& table_owner,
                                                  const DeepComplex<T>* z, const DeepComplex<T>* z_device, size_t size,
                                                  const BlaView<T, L>& bla, cudaStream_t stream) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const std::shared_ptr<const void>& owner = table_owner ? table_owner : orbit_owner;
    const size_t bytes = size * sizeof(DeepOrbitPoint<T>);
    if (auto found = find_device_upload(owner, z, bytes, UploadKind::PackedOrbit, device)) return found;
    auto buffer = std::make_shared<DeviceBuffer>(bytes, stream);
    const int threads = 256;
    const unsigned blocks = unsigned((size + threads - 1) / threads);
    pack_orbit_kernel<T, L><<<blocks ? blocks : 1, threads, 0, stream>>>(z_device, int64_t(size), bla,
                                                                         static_cast<DeepOrbitPoint<T>*>(buffer->ptr));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    keep_device_upload(owner, z, bytes, UploadKind::PackedOrbit, device, buffer);
    return buffer;
}

// The number of entries in a table's view: the sum of its levels' sizes.
template <typename T, typename L>
size_t bla_entry_count(const BlaView<T, L>& bla) {
    size_t count = 0;
    for (int level = 0; level < bla.levels; ++level) count += size_t(bla.level_size[level]);
    return count;
}

// The radii of a table whose entries are on the device (bla.entries, bla_entries_count of them),
// kept with the table: found, or extracted on `stream` and kept.
template <typename T, typename L>
std::shared_ptr<DeviceBuffer> device_radii(const std::shared_ptr<const void>& table_owner, const BlaView<T, L>& bla,
                                           size_t count, cudaStream_t stream) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const size_t bytes = count * sizeof(T);
    if (auto found = find_device_upload(table_owner, bla.entries, bytes, UploadKind::Radii, device)) return found;
    auto buffer = std::make_shared<DeviceBuffer>(bytes, stream);
    const int threads = 256;
    const unsigned blocks = unsigned((count + threads - 1) / threads);
    bla_radii_kernel<T, L>
        <<<blocks ? blocks : 1, threads, 0, stream>>>(bla.entries, int64_t(count), static_cast<T*>(buffer->ptr));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    keep_device_upload(table_owner, bla.entries, bytes, UploadKind::Radii, device, buffer);
    return buffer;
}

struct EventPair {
    cudaEvent_t start = nullptr, stop = nullptr;
    EventPair() {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~EventPair() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
};

// deep_frame_bla's sibling for tables built on the GPU (deep_bla_cuda.h) from the orbits already
// on the device (z_device; w_device: a Julia set's critical orbit): the same cache rules
// (deep_frame_tables), under a kind of their own (a DeviceBlaTable, per device), so panning,
// zooming out, a palette or a size change find the table as they find a host one. False when
// cancelled.
template <typename T, typename L>
bool deep_frame_bla_cuda(const DeepFrameSetup& setup, const DeepRenderOptions& options, const DeepComplex<T>* z_device,
                         const DeepComplex<T>* w_device, cudaStream_t stream,
                         std::shared_ptr<const DeviceBlaTable<T, L>>* table,
                         std::shared_ptr<const DeviceBlaTable<T, L>>* critical_table, DeepFrameStats* stats) {
    const ReferenceOrbit& orbit = *setup.orbit;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    auto build = [&](bool critical, const DeepBlaRequest& request) -> std::shared_ptr<DeviceBlaTable<T, L>> {
        const DeepComplex<T>* z = critical ? w_device : z_device;
        const int64_t last = critical ? orbit.critical_last_index() : orbit.last_index();
        const T max_dc = deep_from_floatexp<T>(request.build_dc);
        if constexpr (std::is_same_v<L, DeepMatrix<T>>)
            return build_bla_table_matrix_cuda(z, last, max_dc, request.epsilon,
                                               setup.map.formula == Formula::BurningShip, stream, options.cancel);
        else
            return build_bla_table_cuda(z, last, max_dc, request.epsilon, formula_degree(setup.map.formula), stream,
                                        options.cancel);
    };
    const std::string kind = std::string(typeid(DeviceBlaTable<T, L>).name()) + " on device " + std::to_string(device);
    return deep_frame_tables<DeviceBlaTable<T, L>>(setup, options, kind, true, build, table, critical_table, stats);
}

// rings: a polar grid's points instead of the view's (deep_cuda_rings; the setup's region and
// frame size are its columns x rings).
template <typename T, Formula F, bool kJulia, bool kRebase, bool kDistance = false, bool kAtom = false>
void render_pixels_cuda(const DeepLocation& location, const DeepFrameSetup& setup, const DeepRenderOptions& options,
                        DeepFrame* frame, const DeepRings* rings = nullptr) {
    using L = DeepBlaLinear<F, T>;
    DeepFrameStats& stats = frame->stats;
    const ReferenceOrbit& orbit = *setup.orbit;
    const size_t orbit_size = orbit.z.size();
    // The kernel's loop indexes the orbits in 32 bits (deep_perturbation.h, kPacked).
    if (std::max(orbit_size, orbit.critical_z.size()) >= size_t(INT32_MAX))
        throw std::runtime_error(
            "The deep CUDA path takes reference orbits of fewer than 2^31 iterations; this one has " +
            std::to_string(std::max(orbit_size, orbit.critical_z.size())) + ".");
    // Everything below runs in order on one stream: the caller's, or the default one.
    const cudaStream_t stream = static_cast<cudaStream_t>(options.cuda_stream);
    keep_pool_memory();
    const size_t pixels = size_t(frame->width) * size_t(frame->height);

    // The orbit and a Julia set's critical orbit: from the device cache, or copied now.
    uint64_t bytes_copied = 0;
    auto copy_of = [&](const std::shared_ptr<const void>& owner, const void* data, size_t bytes) {
        bool copied = false;
        auto buffer = device_copy_of(owner, data, bytes, stream, &copied);
        if (copied) bytes_copied += bytes;
        return buffer;
    };
    const auto z_device = copy_of(setup.orbit, deep_orbit_data<T>(orbit), orbit_size * sizeof(DeepComplex<T>));
    std::shared_ptr<DeviceBuffer> w_device;
    const size_t critical_size = orbit.critical_z.size();
    if (critical_size)
        w_device = copy_of(setup.orbit, deep_critical_data<T>(orbit), critical_size * sizeof(DeepComplex<T>));
    const auto* z_data = static_cast<const DeepComplex<T>*>(z_device->ptr);
    const auto* w_data = w_device ? static_cast<const DeepComplex<T>*>(w_device->ptr) : nullptr;

    // The BLA tables (empty views with BLA off): built on the GPU from those orbits, or kept from an
    // earlier frame; with options.bla_on_device false, built on the CPU and copied (or kept).
    BlaView<T, L> bla{}, bla_w{};
    std::shared_ptr<const void> bla_hold, bla_w_hold;  // what keeps the views' entries alive
    // The tables (host or device), null without one: the device cache keeps radii and packed
    // orbits for them.
    std::shared_ptr<const void> table_owner, critical_owner;
    if (options.bla_on_device) {
        std::shared_ptr<const DeviceBlaTable<T, L>> table, critical_table;
        if (!deep_frame_bla_cuda(setup, options, z_data, w_data, stream, &table, &critical_table, &stats)) return;
        if (table) bla = table->view;
        if (critical_table) bla_w = critical_table->view;
        bla_hold = table;
        bla_w_hold = critical_table;
        table_owner = table;
        critical_owner = critical_table;
    } else {
        std::shared_ptr<const BlaTable<T, L>> table, critical_table;
        if (!deep_frame_bla(setup, options, &table, &critical_table, &stats)) return;
        table_owner = table;
        critical_owner = critical_table;
        if (table && !table->entries.empty()) {
            auto device = copy_of(table, table->entries.data(), table->entries.size() * sizeof(BlaStep<T, L>));
            bla = bla_view(table.get());
            bla.entries = static_cast<const BlaStep<T, L>*>(device->ptr);
            bla_hold = device;
        }
        if (critical_table && !critical_table->entries.empty()) {
            auto device = copy_of(critical_table, critical_table->entries.data(),
                                  critical_table->entries.size() * sizeof(BlaStep<T, L>));
            bla_w = bla_view(critical_table.get());
            bla_w.entries = static_cast<const BlaStep<T, L>*>(device->ptr);
            bla_w_hold = device;
        }
    }
    if (options.cancel && options.cancel->load()) {
        stats.cancelled = true;
        return;
    }
    // Each table's radii alone (for bla_lookup_batched), kept with the table.
    std::shared_ptr<DeviceBuffer> radii_device, radii_w_device;
    if (bla.entries) {
        radii_device = device_radii<T, L>(table_owner, bla, bla_entry_count(bla), stream);
        bla.r2 = static_cast<const T*>(radii_device->ptr);
    }
    if (bla_w.entries) {
        radii_w_device = device_radii<T, L>(critical_owner, bla_w, bla_entry_count(bla_w), stream);
        bla_w.r2 = static_cast<const T*>(radii_w_device->ptr);
    }
    // The orbits as DeepOrbitPoint arrays (each Z_m beside level 0's radius), packed on the device
    // from the copies above and kept with the table.
    const auto z_points = device_packed_orbit<T, L>(setup.orbit, table_owner, deep_orbit_data<T>(orbit), z_data,
                                                    orbit_size, bla, stream);
    std::shared_ptr<DeviceBuffer> w_points;
    if (critical_size)
        w_points = device_packed_orbit<T, L>(setup.orbit, critical_owner, deep_critical_data<T>(orbit), w_data,
                                             critical_size, bla_w, stream);
    stats.device_bytes_copied = bytes_copied;
    DeviceArray<int64_t> counts_device(pixels, stream);
    // mu and the distance: in the caller's device frame when it keeps them (the window colours
    // them there), else in stream-ordered arrays freed on return.
    DeepDeviceFrame* kept = options.device_frame;
    if (kept) kept->reserve(pixels);
    const bool to_host = deep_cuda_host_outputs(options);
    DeviceArray<double> mu_local(kept ? 0 : pixels, stream);
    DeviceArray<float> distance_local(kDistance && !kept ? pixels : 0, stream);
    DeviceArray<float> atom_local(kAtom && !kept ? pixels : 0, stream);
    double* const mu_device = kept ? kept->mu : mu_local.ptr;
    float* const distance_device = kept ? kept->distance : distance_local.ptr;
    float* const atom_device = kept ? kept->atom : atom_local.ptr;
    // kAtom: each table's atom steps (deep_atom.h), made on the host from the orbits and the
    // tables' layout, copied for this frame.
    std::vector<DeepAtomStep<T>> atom_steps, atom_steps_w;
    if constexpr (kAtom) {
        atom_steps = build_deep_atom_steps(deep_orbit_data<T>(orbit), bla);
        if (critical_size) atom_steps_w = build_deep_atom_steps(deep_critical_data<T>(orbit), bla_w);
    }
    DeviceArray<DeepAtomStep<T>> atom_steps_device(atom_steps.size(), stream),
        atom_steps_w_device(atom_steps_w.size(), stream);
    if (!atom_steps.empty())
        CUDA_CHECK(cudaMemcpyAsync(atom_steps_device.ptr, atom_steps.data(), atom_steps.size() * sizeof(atom_steps[0]),
                                   cudaMemcpyHostToDevice, stream));
    if (!atom_steps_w.empty())
        CUDA_CHECK(cudaMemcpyAsync(atom_steps_w_device.ptr, atom_steps_w.data(),
                                   atom_steps_w.size() * sizeof(atom_steps_w[0]), cudaMemcpyHostToDevice, stream));
    const DeepAtomOutput<T> atom_output{atom_steps.empty() ? nullptr : atom_steps_device.ptr,
                                        atom_steps_w.empty() ? nullptr : atom_steps_w_device.ptr, atom_device};
    DeviceArray<DeviceCounters> totals_device(1, stream);
    CUDA_CHECK(cudaMemsetAsync(totals_device.ptr, 0, sizeof(DeviceCounters), stream));
    // A polar grid's radii in T and the unit circle's points, computed as deep_cpu_rings does.
    std::vector<T> ring_radius;
    std::vector<double> ring_cos, ring_sin;
    constexpr double kTwoPi = 6.283185307179586;
    if (rings) {
        for (const FloatExp& r : rings->radius) ring_radius.push_back(deep_from_floatexp<T>(r));
        for (int x = 0; x < rings->columns; ++x) {
            const double angle = kTwoPi * (x + 0.5) / rings->columns;
            ring_cos.push_back(std::cos(angle));
            ring_sin.push_back(std::sin(angle));
        }
    }
    DeviceArray<T> ring_radius_device(ring_radius.size(), stream);
    DeviceArray<double> ring_cos_device(ring_cos.size(), stream), ring_sin_device(ring_sin.size(), stream);
    DeepRingGrid<T> ring_grid{};
    if (rings) {
        CUDA_CHECK(cudaMemcpyAsync(ring_radius_device.ptr, ring_radius.data(), ring_radius.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(ring_cos_device.ptr, ring_cos.data(), ring_cos.size() * sizeof(double),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(ring_sin_device.ptr, ring_sin.data(), ring_sin.size() * sizeof(double),
                                   cudaMemcpyHostToDevice, stream));
        ring_grid = {ring_radius_device.ptr, ring_cos_device.ptr, ring_sin_device.ptr, kTwoPi / rings->columns};
    }

    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    const dim3 block(kBlockWidth, kBlockHeight);
    const dim3 grid((frame->width + kBlockWidth - 1) / kBlockWidth, (frame->height + kBlockHeight - 1) / kBlockHeight);
    EventPair events;
    // Cancel and progress while the kernel runs, where the caller asks for either.
    ThreadControl* tc = nullptr;
    if (options.cancel || options.row_progress) {
        tc = &thread_control();
        CUDA_CHECK(cudaMemsetAsync(tc->control, 0, sizeof(KernelControl), stream));
    }
    const int64_t w_last = orbit.critical_last_index();
    const auto* w_packed = w_points ? static_cast<const DeepOrbitPoint<T>*>(w_points->ptr) : nullptr;
    // Passes, where options.cuda_pass_steps asks for them (every loop but the distance
    // estimate's, on frames of more than pass_final_pixels): each pixel runs at most pass_steps
    // perturbation steps a pass, and the pixels still running go on in the next pass, packed into
    // whole warps; once no more than pass_final_pixels are left, a last pass without a budget.
    // One pass otherwise, the default: a 2-D frame's warps idle for their slowest lane (about
    // half the lanes at 5e227), but the passes' saved states and launches cost more than that
    // gains (deep_bench_cuda_passes; see docs/performance.md).
    const int64_t pass_steps = options.cuda_pass_steps;
    const size_t pass_final_pixels = options.cuda_pass_final_pixels > 0 ? size_t(options.cuda_pass_final_pixels)
                                                                        : kPassFinalPixels;
    const bool passes = !kDistance && !kAtom && pass_steps > 0 && pixels > pass_final_pixels;
    DeviceArray<DeepPixelResume<T>> states_a(passes ? pixels : 0, stream), states_b(passes ? pixels : 0, stream);
    DeviceArray<uint32_t> places_a(passes ? pixels : 0, stream), places_b(passes ? pixels : 0, stream);
    DeviceArray<unsigned int> queue_counts(2, stream);
    const PassQueue<T> queue_a{states_a.ptr, places_a.ptr, queue_counts.ptr};
    const PassQueue<T> queue_b{states_b.ptr, places_b.ptr, queue_counts.ptr + 1};
    PassQueue<T> in{}, out = queue_a;
    size_t running = pixels;  // the pixels the pass runs
    int rows_reported = -1;
    std::optional<HostPin> pins[4];  // the outputs', unregistered on return
    CUDA_CHECK(cudaEventRecord(events.start, stream));
    for (int pass = 0;; ++pass) {
        const bool last = !passes || running <= pass_final_pixels;
        dim3 pass_grid = grid;
        if (pass > 0)
            pass_grid = dim3(unsigned((running + kBlockWidth * kBlockHeight - 1) / (kBlockWidth * kBlockHeight)));
        const unsigned int pass_warps = pass_grid.x * pass_grid.y * (kBlockWidth * kBlockHeight / 32);
        if (passes) CUDA_CHECK(cudaMemsetAsync(out.count, 0, sizeof(unsigned int), stream));
        if (tc && pass > 0) CUDA_CHECK(cudaMemsetAsync(&tc->control->warps_done, 0, sizeof(unsigned int), stream));
        // A budget no pixel reaches on the last pass: it runs every pixel to its end.
        const int64_t budget = last ? location.max_iterations : pass_steps;
        const auto launch = [&]<bool kPasses>() {
            deep_pixels_kernel<T, kRebase, F, kJulia, kDistance, kPasses, kAtom><<<pass_grid, block, 0, stream>>>(
                static_cast<const DeepOrbitPoint<T>*>(z_points->ptr), orbit.last_index(), bla, w_packed, w_last, bla_w,
                offset, spacing, setup.frame_width, setup.frame_height, setup.region, location.max_iterations,
                counts_device.ptr, mu_device, distance_device, totals_device.ptr, tc ? tc->control : nullptr, in, out,
                budget, atom_output, ring_grid);
        };
        if constexpr (kDistance || kAtom) launch.template operator()<false>();
        else if (passes) launch.template operator()<true>();
        else launch.template operator()<false>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(events.stop, stream));
        if (pass == 0 && to_host) {  // on the host while the kernel runs
            deep_frame_outputs(options, frame);
            pins[0].emplace(frame->escape_count.data(), pixels * sizeof(int64_t));
            pins[1].emplace(frame->mu.data(), pixels * sizeof(double));
            if constexpr (kDistance) pins[2].emplace(frame->distance.data(), pixels * sizeof(float));
            if constexpr (kAtom) pins[3].emplace(frame->atom.data(), pixels * sizeof(float));
        }
        if (tc) {
            // Progress: the rows whose pixels are done, and within a pass up to half the rest.
            const int from = std::max(rows_reported, 0);
            const int span = last ? frame->height - from : (frame->height - from) / 2;
            if (wait_for_kernel(events.stop, *tc, pass_warps, frame->height, options, from, span, last,
                                &rows_reported)) {
                // The frame is stale: its pixels are not copied back (only the counters, which say
                // how much of it ran). The warps already running finish theirs first.
                CUDA_CHECK(cudaEventSynchronize(events.stop));
                DeviceCounters totals{};
                CUDA_CHECK(cudaMemcpyAsync(&totals, totals_device.ptr, sizeof totals, cudaMemcpyDeviceToHost, stream));
                CUDA_CHECK(cudaStreamSynchronize(stream));
                stats.iterations = totals.iterations;
                stats.cancelled = true;
                return;
            }
        } else {
            CUDA_CHECK(cudaEventSynchronize(events.stop));
        }
        if (last) break;
        unsigned int left = 0;
        CUDA_CHECK(cudaMemcpyAsync(&left, out.count, sizeof left, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (options.row_progress && tc) {
            const int rows = int(int64_t(frame->height) * int64_t(pixels - left) / int64_t(pixels));
            if (rows > rows_reported) {
                options.row_progress(rows, frame->height);
                rows_reported = rows;
            }
        }
        if (left == 0) break;
        running = left;
        in = out;
        out = in.states == queue_a.states ? queue_b : queue_a;
    }
    if (options.row_progress && tc && rows_reported < frame->height) options.row_progress(frame->height, frame->height);
    float kernel_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, events.start, events.stop));
    stats.pixels_ms = kernel_ms;

    if (to_host) {
        CUDA_CHECK(cudaMemcpyAsync(frame->escape_count.data(), counts_device.ptr, pixels * sizeof(int64_t),
                                   cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(
            cudaMemcpyAsync(frame->mu.data(), mu_device, pixels * sizeof(double), cudaMemcpyDeviceToHost, stream));
        if constexpr (kDistance)
            CUDA_CHECK(cudaMemcpyAsync(frame->distance.data(), distance_device, pixels * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream));
        if constexpr (kAtom)
            CUDA_CHECK(cudaMemcpyAsync(frame->atom.data(), atom_device, pixels * sizeof(float), cudaMemcpyDeviceToHost,
                                       stream));
    }
    DeviceCounters totals{};
    CUDA_CHECK(cudaMemcpyAsync(&totals, totals_device.ptr, sizeof totals, cudaMemcpyDeviceToHost, stream));
    // Host memory is read below, and the device arrays are freed on return: wait for the stream.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    stats.iterations = totals.iterations;
    stats.bla_iterations = totals.bla_iterations;
    stats.bla_skips = totals.bla_skips;
    stats.perturbation_steps = totals.steps;
    stats.rebases = totals.rebases;
    stats.escaped_pixels = totals.escaped;
    if (kept) {
        kept->width = frame->width;
        kept->height = frame->height;
        kept->has_distance = kDistance;
        kept->has_atom = kAtom;
    }
}

}  // namespace

void deep_cuda_free_device_copies() {
    std::deque<DeviceUpload> dropped;
    {
        DeviceUploads& uploads = device_uploads();
        std::lock_guard<std::mutex> lock(uploads.mutex);
        dropped.swap(uploads.entries);
    }
    // Each buffer is freed here unless a frame still holds it (then with that frame).
}

DeepCudaStream::~DeepCudaStream() {
    if (!stream_ || cuda_device_released(device_)) return;  // released: destroyed with its context
    // Destroyed with its own device current; errors ignored (this may run at exit).
    const CudaDeviceScope scope(device_);
    cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void* DeepCudaStream::get(int device) {
    if (stream_ && device >= 0 && device != device_)
        throw std::logic_error("A DeepCudaStream belongs to the device it was first made on.");
    if (!stream_) {
        std::string reason;
        if (!cuda_available(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
        const DeviceScope scope(device);
        CUDA_CHECK(cudaGetDevice(&device_));
        cudaStream_t stream = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        stream_ = stream;
    }
    return stream_;
}

DeepFrame deep_cuda(const DeepLocation& location, int width, int height, const DeepRenderOptions& options) {
    // The driver's answer first (a machine without a device fails before any work), the
    // context's after the reference orbit: where CUDA starts in the background
    // (cuda_start_in_background), the orbit is computed while the context comes up.
    std::string reason;
    if (!cuda_device_present(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    auto start = std::chrono::steady_clock::now();
    // Everything below, the device buffers' frees included, on options.device.
    const DeviceScope scope(options.device);
    DeepFrame frame;
    // The host's output vectors are sized while the kernel runs (render_pixels_cuda): 16 MB at
    // 1024x1024, which would otherwise be filled before the launch, on the frame's time.
    DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame, false);
    if (!cuda_available(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    if (setup.orbit) {
        const bool is_double = frame.stats.number_type == DeepNumberType::Double;
        if (!options.rebase) {  // Mandelbrot only (deep_frame_setup checked)
            if (is_double)
                render_pixels_cuda<double, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
            else render_pixels_cuda<FloatExp, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
        } else if (options.atom) {  // every formula and Julia set, with or without the distance
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (options.distance) {
                    if (is_double)
                        render_pixels_cuda<double, F, kJulia, true, true, true>(location, setup, options, &frame);
                    else render_pixels_cuda<FloatExp, F, kJulia, true, true, true>(location, setup, options, &frame);
                } else {
                    if (is_double)
                        render_pixels_cuda<double, F, kJulia, true, false, true>(location, setup, options, &frame);
                    else render_pixels_cuda<FloatExp, F, kJulia, true, false, true>(location, setup, options, &frame);
                }
            });
        } else if (options.distance) {  // every formula and Julia set (deep_derivative.h)
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (is_double) render_pixels_cuda<double, F, kJulia, true, true>(location, setup, options, &frame);
                else render_pixels_cuda<FloatExp, F, kJulia, true, true>(location, setup, options, &frame);
            });
        } else {
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (is_double) render_pixels_cuda<double, F, kJulia, true>(location, setup, options, &frame);
                else render_pixels_cuda<FloatExp, F, kJulia, true>(location, setup, options, &frame);
            });
        }
    }
    // Where no kernel ran (cancelled, no orbit).
    if (deep_cuda_host_outputs(options)) deep_frame_outputs(options, &frame);
    frame.stats.frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return frame;
}

DeepRingsFrame deep_cuda_rings(const DeepLocation& location, int width, int height, const DeepRings& rings,
                               const DeepRenderOptions& options_in) {
    std::string reason;
    if (!cuda_device_present(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    const auto start = std::chrono::steady_clock::now();
    const DeviceScope scope(options_in.device);
    DeepRingsFrame out;
    DeepRingsSetup rs = deep_rings_setup(location, width, height, rings, options_in, &out);
    if (!cuda_available(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    if (rs.setup.orbit) {
        // The grid as a frame of columns x rings, every point in its region.
        const DeepPixelRect grid{0, 0, out.columns, out.rings};
        rs.setup.region = grid;
        rs.setup.frame_width = out.columns;
        rs.setup.frame_height = out.rings;
        rs.options.atom = false;
        DeepFrame frame;
        frame.width = out.columns;
        frame.height = out.rings;
        frame.region = grid;
        frame.stats = out.stats;
        const bool is_double = rs.is_double;
        deep_dispatch_formula(rs.setup.map, [&]<Formula F, bool kJulia>() {
            if (rs.options.distance) {
                if (is_double)
                    render_pixels_cuda<double, F, kJulia, true, true>(location, rs.setup, rs.options, &frame, &rings);
                else
                    render_pixels_cuda<FloatExp, F, kJulia, true, true>(location, rs.setup, rs.options, &frame, &rings);
            } else {
                if (is_double)
                    render_pixels_cuda<double, F, kJulia, true>(location, rs.setup, rs.options, &frame, &rings);
                else render_pixels_cuda<FloatExp, F, kJulia, true>(location, rs.setup, rs.options, &frame, &rings);
            }
        });
        deep_frame_outputs(rs.options, &frame);  // where the kernel did not run to the end
        out.escape_count = std::move(frame.escape_count);
        out.mu = std::move(frame.mu);
        out.distance = std::move(frame.distance);
        out.stats = frame.stats;
    }
    out.stats.frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace ms
