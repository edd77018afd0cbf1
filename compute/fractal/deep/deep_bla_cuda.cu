// deep_bla_cuda.cu: the BLA table built on the GPU (see deep_bla_cuda.h). The CPU reference is
// build_bla_table (deep_bla.cpp): the same levels, the same per-entry functions (deep_bla.h).
#include "compute/fractal/deep/deep_bla_cuda.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "compute/fractal/deep/deep_cuda_free.h"
#include "compute/fractal/maths/escape.h"
#include "compute/system/cuda_info.h"
#include "compute/system/cuda_check.h"

namespace ms {

namespace {

// ---------------------------------------------------------------------------------------------
// GPU kernels: one thread per entry. An entry is 48 to 152 bytes (double or FloatExp, complex or
// matrix), written once and read once by the level above, with a budget of 16 or 32 bytes beside
// it for complex tables: the build streams memory (about twice the table's bytes, read and written).

constexpr int kThreads = 256;

unsigned int blocks_for(int64_t count) { return unsigned((count + kThreads - 1) / kThreads); }

template <typename T>
__global__ void bla_level0_kernel(const DeepComplex<T>* z, int64_t steps, double epsilon, int degree,
                                  BlaStep<T>* entries, BlaBudget<T>* budget) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= steps) return;
    const BlaStep<T> step = bla_single_step(z[i + 1], epsilon, degree);  // m = i + 1
    entries[i] = step;
    budget[i] = bla_single_budget(step, epsilon);
}

template <typename T>
__global__ void bla_level0_matrix_kernel(const DeepComplex<T>* z, int64_t steps, double epsilon, bool burning_ship,
                                         BlaStep<T, DeepMatrix<T>>* entries) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= steps) return;
    entries[i] = bla_single_step_matrix(z[i + 1], epsilon, burning_ship);
}

// Level k from level k - 1 (budgets null for matrix tables).
template <typename T, typename L>
__global__ void bla_merge_kernel(const BlaStep<T, L>* src, const BlaBudget<T>* src_budget, int64_t src_size,
                                 BlaStep<T, L>* dst, BlaBudget<T>* dst_budget, int64_t dst_size, T max_dc,
                                 double epsilon) {
    const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= dst_size) return;
    bla_merge_entry(src, src_budget, src_size, j, max_dc, epsilon, dst, dst_budget);
}

// Level 0's radii once skips start at level `first` (bla_first_skip_radius, as build_bla_table):
// entry j reads only itself at level 0, so each thread writes its own in place.
template <typename T, typename L>
__global__ void bla_first_level_kernel(BlaStep<T, L>* entries, BlaView<T, L> view, int64_t steps, int first) {
    const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= steps) return;
    entries[j].r2 = bla_first_skip_radius(entries, view.level_offset, view.levels, j, first);
}

// ---------------------------------------------------------------------------------------------
// Launcher

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// Scratch device memory in stream order, freed on scope exit (also when a CUDA_CHECK throws).
struct StreamScratch {
    void* ptr = nullptr;
    cudaStream_t stream = nullptr;
    StreamScratch(size_t bytes, cudaStream_t s) : stream(s) {
        if (fault_injected(Fault::CudaMalloc)) CUDA_CHECK(cudaErrorMemoryAllocation);
        CUDA_CHECK(cudaMallocAsync(&ptr, bytes ? bytes : 1, stream));
    }
    ~StreamScratch() { cudaFreeAsync(ptr, stream); }
    StreamScratch(const StreamScratch&) = delete;
    StreamScratch& operator=(const StreamScratch&) = delete;
};

struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~Events() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
};

// Both kinds: allocates the levels, runs `level0` (a launch filling level 0 and, for complex
// tables, its budgets), then one merge launch per level and, where skips start above level 0
// (bla_first_skip_level of `degree`), level 0's radii, and waits. with_budget: complex tables.
template <typename T, typename L, typename Level0>
std::shared_ptr<DeviceBlaTable<T, L>> build_levels(int64_t last_index, T max_dc, double epsilon, bool with_budget,
                                                   int degree, void* stream_ptr, const std::atomic<bool>* cancel,
                                                   Level0&& level0) {
    const auto start = std::chrono::steady_clock::now();
    const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    auto table = std::make_shared<DeviceBlaTable<T, L>>();
    CUDA_CHECK(cudaGetDevice(&table->device));
    const int64_t steps = last_index - 2;  // m = 1 .. last_index - 2, as build_bla_table
    if (steps < 1) return table;
    int64_t total = 0;
    const int levels = bla_size_levels(steps, &table->view, &total);
    table->view.levels = 0;  // set once the table is whole
    table->bytes = size_t(total) * sizeof(BlaStep<T, L>);
    CUDA_CHECK(cuda_malloc_async(&table->memory, table->bytes, stream));
    auto* e = static_cast<BlaStep<T, L>*>(table->memory);
    StreamScratch budget_memory(with_budget ? size_t(total) * sizeof(BlaBudget<T>) : 0, stream);
    auto* budget = with_budget ? static_cast<BlaBudget<T>*>(budget_memory.ptr) : nullptr;
    Events events;
    CUDA_CHECK(cudaEventRecord(events.start, stream));
    level0(e, budget, steps, stream);
    CUDA_CHECK_LAUNCH();
    for (int level = 1; level < levels; ++level) {
        if (cancelled(cancel)) {
            CUDA_CHECK(cudaStreamSynchronize(stream));  // the launches made read memory freed below
            return nullptr;
        }
        const int64_t src_offset = table->view.level_offset[level - 1], dst_offset = table->view.level_offset[level];
        const int64_t dst_size = table->view.level_size[level];
        bla_merge_kernel<T, L><<<blocks_for(dst_size), kThreads, 0, stream>>>(
            e + src_offset, budget ? budget + src_offset : nullptr, table->view.level_size[level - 1], e + dst_offset,
            budget ? budget + dst_offset : nullptr, dst_size, max_dc, epsilon);
        CUDA_CHECK_LAUNCH();
    }
    const int first = bla_first_skip_level<T>(degree, levels);
    if (first > 0) {
        BlaView<T, L> view = table->view;
        view.levels = levels;
        bla_first_level_kernel<T, L><<<blocks_for(steps), kThreads, 0, stream>>>(e, view, steps, first);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaEventRecord(events.stop, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    float kernels_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&kernels_ms, events.start, events.stop));
    table->view.entries = e;
    table->view.levels = levels;
    table->steps = steps;
    table->kernels_ms = kernels_ms;
    table->build_ms = ms_since(start);
    return table;
}

}  // namespace

template <typename T, typename L>
DeviceBlaTable<T, L>::~DeviceBlaTable() {
    // Stream-ordered memory (build_levels); its frames are done with it (they hold the table
    // until their stream is synchronised), so its device's legacy stream frees it now.
    if (memory) cuda_free_async_on_device(memory, device);
}

template <typename T>
std::shared_ptr<DeviceBlaTable<T>> build_bla_table_cuda(const DeepComplex<T>* z_device, int64_t last_index, T max_dc,
                                                        double epsilon, int degree, void* stream,
                                                        const std::atomic<bool>* cancel) {
    return build_levels<T, DeepComplex<T>>(last_index, max_dc, epsilon, true, degree, stream, cancel,
                                           [&](BlaStep<T>* e, BlaBudget<T>* budget, int64_t steps, cudaStream_t s) {
                                               bla_level0_kernel<T><<<blocks_for(steps), kThreads, 0, s>>>(
                                                   z_device, steps, epsilon, degree, e, budget);
                                           });
}

template <typename T>
std::shared_ptr<DeviceBlaTable<T, DeepMatrix<T>>> build_bla_table_matrix_cuda(const DeepComplex<T>* z_device,
                                                                              int64_t last_index, T max_dc,
                                                                              double epsilon, bool burning_ship,
                                                                              void* stream,
                                                                              const std::atomic<bool>* cancel) {
    return build_levels<T, DeepMatrix<T>>(
        last_index, max_dc, epsilon, false, 2, stream, cancel,
        [&](BlaStep<T, DeepMatrix<T>>* e, BlaBudget<T>*, int64_t steps, cudaStream_t s) {
            bla_level0_matrix_kernel<T>
                <<<blocks_for(steps), kThreads, 0, s>>>(z_device, steps, epsilon, burning_ship, e);
        });
}

template <typename T, typename L>
void copy_bla_table_to_host(const DeviceBlaTable<T, L>& device, BlaTable<T, L>* host) {
    *host = BlaTable<T, L>{};
    host->entries.resize(device.bytes / sizeof(BlaStep<T, L>));
    if (device.bytes)
        CUDA_CHECK(cudaMemcpy(host->entries.data(), device.view.entries, device.bytes, cudaMemcpyDeviceToHost));
    host->view = device.view;
    host->view.entries = host->entries.data();
    host->steps = device.steps;
    host->build_ms = device.build_ms;
    host->r2.resize(host->entries.size());
    for (size_t i = 0; i < host->entries.size(); ++i) host->r2[i] = host->entries[i].r2;
}

template <typename T>
DeviceOrbit<T>::DeviceOrbit(const DeepComplex<T>* z, size_t count) {
    std::string reason;
    if (!cuda_available(&reason)) throw std::runtime_error("The BLA build on CUDA cannot run: " + reason + ".");
    const auto start = std::chrono::steady_clock::now();
    CUDA_CHECK(cuda_malloc(&data_, (count ? count : 1) * sizeof(DeepComplex<T>)));
    CUDA_CHECK(cudaMemcpy(data_, z, count * sizeof(DeepComplex<T>), cudaMemcpyHostToDevice));
    copy_ms = ms_since(start);
}

template <typename T>
DeviceOrbit<T>::~DeviceOrbit() {
    if (data_) cudaFree(data_);
}

template <typename T, typename L>
double upload_bla_table_ms(const BlaTable<T, L>& table) {
    const auto start = std::chrono::steady_clock::now();
    const size_t bytes = table.entries.size() * sizeof(BlaStep<T, L>);
    void* memory = nullptr;
    CUDA_CHECK(cuda_malloc(&memory, bytes ? bytes : 1));
    const cudaError_t copied = cudaMemcpy(memory, table.entries.data(), bytes, cudaMemcpyHostToDevice);
    const double ms = ms_since(start);
    cudaFree(memory);
    CUDA_CHECK(copied);
    return ms;
}

MS_DEEP_BLA_CUDA_INSTANTIATE(double)
MS_DEEP_BLA_CUDA_INSTANTIATE(FloatExp)

}  // namespace ms
