// deep_square_cuda.cu: exact squarings on the GPU (see deep_square_cuda.h).
#include "compute/fractal/deep/deep_square_cuda.h"

#include <cooperative_groups.h>

#include <stdexcept>
#include <string>

#include "compute/system/cuda_check.h"
#include "compute/system/cuda_info.h"

namespace ms {

namespace {

// A square of a (n 32-bit limbs) is made in three arrays of 2n + 2 words:
//   low   column c's bits 0..31 at c, then the square's limbs
//   mid   column c's bits 32..63 at c + 1, then carries
//   high  column c's bits 64..95 at c + 2, then carries
// Column c is the sum over i + j = c of a_i a_j: twice the products with i < j plus a_{c/2}^2,
// below 2n 2^64, so three words hold it (the third counts the 64-bit sum's overflows). The
// columns q and 2n - 2 - q go together (a short column with a long one, so that the work shares
// out evenly); then each limb adds its three words, and the carries (at most 2, then at most 1)
// move up one limb a round until none is left.

// Columns q and 2n - 2 - q (q < n) into low, mid and high, shared by `Lanes` threads of a warp
// (1: one thread; 32: the warp), `lane` this thread's: each takes every Lanes-th product, their
// sums are added across the warp and lane 0 writes the words.
template <int Lanes>
__device__ void column_pair(const uint32_t* a, int n, int q, int lane, uint32_t* low, uint32_t* mid, uint32_t* high) {
    static_assert(Lanes == 1 || Lanes == 32, "a thread or a whole warp");
    const int width = 2 * n;
    for (int pass = 0; pass < 2; ++pass) {
        const int c = pass == 0 ? q : width - 2 - q;
        if (pass == 1 && c == q) break;
        const int first = c > n - 1 ? c - (n - 1) : 0;
        uint64_t sum = 0;
        uint32_t over = 0;
        for (int i = first + lane; 2 * i < c; i += Lanes) {
            const uint64_t p = uint64_t(a[i]) * a[c - i];
            sum += p;
            over += sum < p;
        }
        if constexpr (Lanes > 1) {
            for (int offset = Lanes / 2; offset > 0; offset /= 2) {
                const uint64_t other_sum = __shfl_down_sync(0xffffffffu, sum, offset);
                const uint32_t other_over = __shfl_down_sync(0xffffffffu, over, offset);
                sum += other_sum;
                over += other_over + (sum < other_sum);
            }
            if (lane != 0) continue;
        }
        over = (over << 1) | uint32_t(sum >> 63);
        sum <<= 1;
        if ((c & 1) == 0) {
            const uint64_t d = uint64_t(a[c / 2]) * a[c / 2];
            sum += d;
            over += sum < d;
        }
        low[c] = uint32_t(sum);
        mid[c + 1] = uint32_t(sum >> 32);
        high[c + 2] = over;
    }
}

// The words no column writes (low's last, mid's first, high's first two), zeroed by one thread
// before the columns.
__device__ void clear_edges(int width, uint32_t* low, uint32_t* mid, uint32_t* high) {
    low[width - 1] = 0;
    mid[0] = 0;
    high[0] = 0;
    high[1] = 0;
}

// Limbs k = first, first + stride, .. of the square: the sum of the three words into low, its
// carry out (at most 2) into mid.
__device__ void sum_columns(int first, int stride, int width, uint32_t* low, uint32_t* mid, const uint32_t* high) {
    for (int k = first; k < width; k += stride) {
        const uint64_t t = uint64_t(low[k]) + mid[k] + high[k];
        low[k] = uint32_t(t);
        mid[k] = uint32_t(t >> 32);
    }
}

// One round of carries over limbs k = first, first + stride, ..: limb k takes carry[k - 1] and
// puts its own carry out into next. Whether any of these limbs carried out.
__device__ bool move_carries(int first, int stride, int width, uint32_t* low, const uint32_t* carry, uint32_t* next) {
    bool moved = false;
    for (int k = first; k < width; k += stride) {
        const uint64_t t = uint64_t(low[k]) + (k > 0 ? carry[k - 1] : 0u);
        low[k] = uint32_t(t);
        next[k] = uint32_t(t >> 32);
        moved |= next[k] != 0;
    }
    return moved;
}

// One block squares a `squarings` times, a := a^2 mod 2^(32n), with a and the three arrays in
// shared memory, each thread taking column pairs and then limbs.
__global__ void square_chain_kernel(const uint32_t* start, int n, int squarings, uint32_t* first_square,
                                    uint32_t* last) {
    extern __shared__ uint32_t shared[];
    uint32_t* a = shared;
    uint32_t* low = a + n;
    uint32_t* mid = low + 2 * n + 2;
    uint32_t* high = mid + 2 * n + 2;
    const int width = 2 * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = start[i];
    __syncthreads();
    for (int s = 0; s < squarings; ++s) {
        if (threadIdx.x == 0) clear_edges(width, low, mid, high);
        for (int q = threadIdx.x; q < n; q += blockDim.x) column_pair<1>(a, n, q, 0, low, mid, high);
        __syncthreads();
        sum_columns(threadIdx.x, blockDim.x, width, low, mid, high);
        uint32_t* carry = mid;
        uint32_t* next = high;
        for (bool any = true; any;) {
            __syncthreads();
            any = __syncthreads_or(move_carries(threadIdx.x, blockDim.x, width, low, carry, next)) != 0;
            uint32_t* spent = carry;
            carry = next;
            next = spent;
        }
        if (s == 0)
            for (int k = threadIdx.x; k < width; k += blockDim.x) first_square[k] = low[k];
        for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = low[i];
        __syncthreads();
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) last[i] = a[i];
}

// The same chain spread over a cooperative grid, the numbers in global memory: the warps of
// every block share the column pairs (a warp a pair), then the threads the limbs; a grid-wide
// barrier follows each step (the columns, the limbs' sums, each round of carries, the next
// number). flags[3]: whether a round moved a carry, one word a round in turn (the round after
// next clears it).
__global__ void square_chain_grid_kernel(uint32_t* a, int n, int squarings, uint32_t* low, uint32_t* mid,
                                         uint32_t* high, uint32_t* flags, uint32_t* first_square) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int width = 2 * n;
    const int tid = int(grid.thread_rank()), threads = int(grid.size());
    unsigned round = 0;
    for (int s = 0; s < squarings; ++s) {
        if (tid == 0) clear_edges(width, low, mid, high);
        for (int q = tid / 32; q < n; q += threads / 32) column_pair<32>(a, n, q, tid % 32, low, mid, high);
        grid.sync();
        sum_columns(tid, threads, width, low, mid, high);
        uint32_t* carry = mid;
        uint32_t* next = high;
        for (bool any = true; any; ++round) {
            if (tid == 0) flags[(round + 1) % 3] = 0;
            grid.sync();
            const bool moved = move_carries(tid, threads, width, low, carry, next);
            // One atomic a block, and a plain read of the word from L2 after the barrier: every
            // thread's atomic on one word would queue at L2, tens of microseconds a round.
            if (__syncthreads_or(moved) && threadIdx.x == 0) atomicOr(&flags[round % 3], 1u);
            grid.sync();
            any = __ldcg(&flags[round % 3]) != 0;
            uint32_t* spent = carry;
            carry = next;
            next = spent;
        }
        if (s == 0)
            for (int k = tid; k < width; k += threads) first_square[k] = low[k];
        for (int i = tid; i < n; i += threads) a[i] = low[i];
        grid.sync();
    }
}

__global__ void grid_barrier_kernel(int barriers) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int i = 0; i < barriers; ++i) grid.sync();
}

constexpr int kGridThreads = 256;  // a block of the cooperative grids: one block on each multiprocessor

void require_cuda() {
    std::string reason;
    if (!cuda_available(&reason)) throw std::runtime_error("The GPU squarings cannot run: " + reason);
}

// The chain's arguments checked, and CUDA.
void check_chain(const std::vector<uint32_t>& start, int squarings) {
    if (start.size() < 2 || squarings < 1)
        throw std::invalid_argument("a squaring chain needs at least 2 limbs and 1 squaring");
    require_cuda();
}

// The blocks of a cooperative grid of `kernel` (kGridThreads a block): one on each
// multiprocessor of the current device. Throws where the device cannot run it.
template <class Kernel>
int cooperative_blocks(Kernel kernel, const char* what) {
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) throw std::runtime_error("this CUDA device cannot launch a cooperative grid");
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGridThreads, 0));
    if (per_sm < 1) throw std::runtime_error(std::string(what) + " does not fit on a multiprocessor");
    return sms;
}

// The chain's timing and its first square and last number, copied from the device.
GpuSquaringChain chain_result(float ms, int squarings, const uint32_t* first_square, const uint32_t* last, int n) {
    GpuSquaringChain chain;
    chain.us_per_squaring = 1000.0 * ms / squarings;
    chain.first_square.resize(2 * size_t(n));
    chain.last.resize(size_t(n));
    CUDA_CHECK(cudaMemcpy(chain.first_square.data(), first_square, chain.first_square.size() * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(chain.last.data(), last, chain.last.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return chain;
}

// Kernel time in milliseconds of launch(), between two CUDA events.
template <class Launch>
float timed_ms(Launch launch) {
    cudaEvent_t begin = nullptr, end = nullptr;
    CUDA_CHECK(cudaEventCreate(&begin));
    CUDA_CHECK(cudaEventCreate(&end));
    float ms = 0.0f;
    try {
        CUDA_CHECK(cudaEventRecord(begin));
        launch();
        CUDA_CHECK(cudaEventRecord(end));
        CUDA_CHECK(cudaEventSynchronize(end));
        CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
    } catch (...) {
        cudaEventDestroy(begin);
        cudaEventDestroy(end);
        throw;
    }
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    return ms;
}

}  // namespace

GpuSquaringChain gpu_squaring_chain(const std::vector<uint32_t>& start, int squarings) {
    check_chain(start, squarings);
    const int n = int(start.size());
    const size_t shared_bytes = (size_t(n) + 3 * (2 * size_t(n) + 2)) * sizeof(uint32_t);
    int device = 0, max_shared = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (shared_bytes > size_t(max_shared))
        throw std::invalid_argument("a squaring of " + std::to_string(n) + " limbs needs " +
                                    std::to_string(shared_bytes) + " bytes of shared memory; a block has " +
                                    std::to_string(max_shared));
    CUDA_CHECK(
        cudaFuncSetAttribute(square_chain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));
    CudaArray<uint32_t> d_start{size_t(n)}, d_first{2 * size_t(n)}, d_last{size_t(n)};
    CUDA_CHECK(cudaMemcpy(d_start.ptr, start.data(), size_t(n) * sizeof(uint32_t), cudaMemcpyHostToDevice));
    auto launch = [&](int count) {
        square_chain_kernel<<<1, kGpuSquaringThreads, shared_bytes>>>(d_start.ptr, n, count, d_first.ptr, d_last.ptr);
        CUDA_CHECK_LAUNCH();
    };
    timed_ms([&] { launch(1); });  // the module's load and a first launch, outside the timing
    const float ms = timed_ms([&] { launch(squarings); });
    return chain_result(ms, squarings, d_first.ptr, d_last.ptr, n);
}

GpuSquaringChain gpu_squaring_chain_grid(const std::vector<uint32_t>& start, int squarings) {
    check_chain(start, squarings);
    const int n = int(start.size());
    const int blocks = cooperative_blocks(square_chain_grid_kernel, "the grid's squaring kernel");
    const size_t words = 2 * size_t(n) + 2;
    CudaArray<uint32_t> d_a{size_t(n)}, d_low{words}, d_mid{words}, d_high{words}, d_flags{3}, d_first{2 * size_t(n)};
    auto reset = [&] {
        CUDA_CHECK(cudaMemcpy(d_a.ptr, start.data(), size_t(n) * sizeof(uint32_t), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_flags.ptr, 0, 3 * sizeof(uint32_t)));
    };
    auto launch = [&](int count) {
        int n_arg = n;
        void* args[] = {&d_a.ptr, &n_arg, &count, &d_low.ptr, &d_mid.ptr, &d_high.ptr, &d_flags.ptr, &d_first.ptr};
        CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(square_chain_grid_kernel), dim3(blocks),
                                               dim3(kGridThreads), args, 0, nullptr));
    };
    reset();
    timed_ms([&] { launch(1); });  // the module's load and a first launch, outside the timing
    reset();
    const float ms = timed_ms([&] { launch(squarings); });
    return chain_result(ms, squarings, d_first.ptr, d_a.ptr, n);
}

double gpu_grid_barrier_us(int barriers) {
    if (barriers < 1) throw std::invalid_argument("count at least one barrier");
    require_cuda();
    const int blocks = cooperative_blocks(grid_barrier_kernel, "the barrier kernel");
    auto launch = [&](int count) {
        void* args[] = {&count};
        CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(grid_barrier_kernel), dim3(blocks),
                                               dim3(kGridThreads), args, 0, nullptr));
    };
    timed_ms([&] { launch(1); });
    return 1000.0 * timed_ms([&] { launch(barriers); }) / barriers;
}

}  // namespace ms
