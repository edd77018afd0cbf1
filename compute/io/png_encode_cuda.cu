// png_encode_cuda.cu: the PNG encoder on the GPU (see png_encode_cuda.h; the deflate's phases
// are in png_deflate_parallel.h, shared with the host emulation that is its CPU reference).
// Per call, on the encoder's own non-blocking stream:
//   filter_kernel     Up filter and RGBA -> RGB of all rows, into one filtered buffer
//   deflate_kernel    one block per segment: parse, plan, count + scan, emit, end
//   compact_kernel    the segments' pieces back to back (each block sums the sizes before it),
//                     and each one's CRC-32
// then the sizes, Adler-32s and CRC-32s to pinned host memory. The compressed bytes stay on the
// device (two buffers, used by turns) until the PNG writer's thread reads them: DeviceBytes
// copies them there, span by span, into two pinned staging buffers on a stream of its own.
#include "compute/io/png_encode_cuda.h"

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>

#include "compute/io/png_deflate_parallel.h"
#include "compute/system/cuda_check.h"

namespace ms {

using namespace pdeflate;

namespace {

// ---------------------------------------------------------------------------------------------
// Kernels

// Up filter (each byte less the one above it) with alpha dropped: filtered row r is the type
// byte 2 and 3 * width bytes. One thread a pixel.
__global__ void filter_kernel(const uint8_t* __restrict__ rgba, const uint8_t* __restrict__ above_first, int width,
                              int rows, uint8_t* __restrict__ filtered) {
    const size_t pixels = size_t(width) * size_t(rows), row_bytes = size_t(width) * 3 + 1;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += size_t(gridDim.x) * blockDim.x) {
        const size_t r = i / size_t(width), x = i % size_t(width);
        const uchar4 p = reinterpret_cast<const uchar4*>(rgba)[i];
        const uchar4 q = r == 0 ? reinterpret_cast<const uchar4*>(above_first)[x]
                                : reinterpret_cast<const uchar4*>(rgba)[i - size_t(width)];
        uint8_t* out = filtered + r * row_bytes;
        if (x == 0) out[0] = 2;
        out[1 + 3 * x] = uint8_t(p.x - q.x);
        out[2 + 3 * x] = uint8_t(p.y - q.y);
        out[3 + 3 * x] = uint8_t(p.z - q.z);
    }
}

// Items (bytes or 16-bit tokens) of one thread's sub-chunk, read 16 bytes at a time: the last
// two aligned 16-byte blocks read are kept in registers. A thread walks its sub-chunk forwards
// and looks back at most 3 bytes (or scans a match ahead), so nearly every item comes from them;
// byte loads straight from memory would be one 32-line transaction per byte per warp. The buffers
// read through it are padded to whole 16-byte blocks. `read_only`: through the non-coherent
// cache (__ldg), for data the kernel does not write (not the tokens, which it does).
template <class T, bool read_only>
struct CachedItems {
    const T* base;
    uintptr_t block = 0, previous_block = 0;  // 0: nothing held (no buffer starts at address 0)
    uint4 current = {}, previous = {};

    __device__ explicit CachedItems(const T* items) : base(items) {}
    __device__ static T pick(const uint4& v, unsigned k) {  // the item at byte k of v
        const uint32_t word = k < 8 ? (k < 4 ? v.x : v.y) : (k < 12 ? v.z : v.w);
        return T(word >> (8 * (k & 3)));
    }
    __device__ T operator[](size_t i) {
        const uintptr_t address = reinterpret_cast<uintptr_t>(base + i), b = address & ~uintptr_t(15);
        const unsigned k = unsigned(address & 15);
        if (b == block) return pick(current, k);
        if (b == previous_block) return pick(previous, k);
        const uint4* p = reinterpret_cast<const uint4*>(b);
        const uint4 v = read_only ? __ldg(p) : *p;
        if (b > block) {  // onwards: the block held becomes the previous one
            previous = current;
            previous_block = block;
            current = v;
            block = b;
        } else {
            previous = v;
            previous_block = b;
        }
        return pick(v, k);
    }
};

// What one segment's block keeps in shared memory.
struct SegmentShared {
    uint32_t histogram[kTokenSymbols];
    uint32_t lit_freq[kLitLenSymbols];
    uint32_t dist_freq[kDistSymbols];
    uint32_t table[kTokenSymbols];             // each token's bits << 5 | count
    AdlerPart adler[kPngDeflateThreads / 32];  // each warp's sums of its threads' Adler-32 terms
    size_t start[kPngDeflateThreads + 1];      // where each thread's tokens begin (phase 1b)
    int lit_leaves;                            // literal/length symbols that occur
    BlockPlan plan;
    HuffmanScratch scratch;
};

using BlockScan = cub::BlockScan<unsigned long long, kPngDeflateThreads>;

// One block per segment: segment s is rows [s * rows_per_segment, ...) of the filtered rows.
// Its tokens go to the same offsets of `tokens` as its bytes have in `filtered`, its output to
// slot s of `out` (slot_bytes each, a multiple of 16).
__global__ void __launch_bounds__(kPngDeflateThreads, 3)
    deflate_kernel(const uint8_t* __restrict__ filtered, size_t row_bytes, int rows, int rows_per_segment,
                   uint16_t* __restrict__ tokens, uint32_t* __restrict__ masks, size_t mask_stride,
                   uint8_t* __restrict__ out, size_t slot_bytes, uint32_t* __restrict__ segment_bytes,
                   uint32_t* __restrict__ segment_adler) {
    __shared__ SegmentShared sh;
    __shared__ typename BlockScan::TempStorage scan_storage;
    const int s = blockIdx.x, t = threadIdx.x;
    const int first = s * rows_per_segment, count = min(rows_per_segment, rows - first);
    const size_t n = size_t(count) * row_bytes;
    const uint8_t* const data = filtered + size_t(first) * row_bytes;
    uint16_t* const my_tokens = tokens + size_t(first) * row_bytes;
    uint8_t* const slot = out + size_t(s) * slot_bytes;
    uint32_t* const words = reinterpret_cast<uint32_t*>(slot);

    for (int i = t; i < kTokenSymbols; i += kPngDeflateThreads) sh.histogram[i] = 0;
    for (int i = t; i < kLitLenSymbols; i += kPngDeflateThreads) sh.lit_freq[i] = 0;
    for (int i = t; i < kDistSymbols; i += kPngDeflateThreads) sh.dist_freq[i] = 0;
    __syncthreads();

    // Phase 0: the match masks, a word per thread in turn (neighbours read neighbouring bytes).
    uint32_t* const eq1 = masks + size_t(s) * mask_stride;
    uint32_t* const eq3 = eq1 + mask_stride / 2;
    {
        const size_t words = mask_words(n);
        CachedItems<uint8_t, true> bytes(data);
        for (size_t w = size_t(t); w < words; w += kPngDeflateThreads) mask_word(bytes, n, w, eq1, eq3);
    }
    __syncthreads();

    // Phase 1a: this thread's greedy parse (tokens stored by position); its Adler-32 sums.
    const int threads = chunk_threads(n);
    const size_t lo = chunk_start(n, t, threads), hi = chunk_start(n, t + 1, threads);
    CachedItems<uint8_t, true> bytes(data);
    const size_t end = parse_chunk(bytes, eq1, eq3, lo, hi, n, my_tokens);
    {
        AdlerPart term = adler_term(adler_part(bytes, lo, hi), n - hi);
        for (int lane = 16; lane > 0; lane /= 2) {
            term.a += __shfl_xor_sync(0xffffffffu, term.a, lane);
            term.b += __shfl_xor_sync(0xffffffffu, term.b, lane);
        }
        if (t % 32 == 0) sh.adler[t / 32] = term;
    }
    if (t == 0) sh.start[0] = 0;
    __syncthreads();
    // Phase 1b: joined to the next thread's parse.
    if (t < threads) {
        CachedItems<uint16_t, false> next_tokens(my_tokens);
        sh.start[t + 1] = t + 1 < threads ? join_chunks(bytes, eq1, eq3, hi, end, next_tokens, my_tokens) : n;
    }
    __syncthreads();
    const size_t from = t < threads ? sh.start[t] : n, to = t < threads ? sh.start[t + 1] : n;

    // Phase 2: the counts (walking this thread's tokens), folded into symbols, then the plan.
    {
        CachedItems<uint16_t, false> mine(my_tokens);
        walk_tokens(mine, from, to, [&](uint16_t token) { atomicAdd(&sh.histogram[token], 1u); });
    }
    __syncthreads();
    for (int i = t; i < kTokenSymbols; i += kPngDeflateThreads)
        fold_token_count(i, sh.histogram[i], sh.lit_freq, sh.dist_freq,
                         [](uint32_t* counter, uint32_t c) { atomicAdd(counter, c); });
    // The literal/length leaves sorted by all threads at once (thread 0's serial sort would be
    // most of the plan, during which the block's other threads wait).
    if (t == 0) {
        sh.lit_freq[kEndOfBlock] = 1;
        sh.lit_leaves = 0;
    }
    __syncthreads();
    for (int i = t; i < kLitLenSymbols; i += kPngDeflateThreads) {
        if (sh.lit_freq[i] == 0) continue;
        sh.scratch.sorted[huffman_leaf_rank(sh.lit_freq, kLitLenSymbols, i)] = uint64_t(sh.lit_freq[i]) << 16 |
                                                                               uint64_t(i);
        atomicAdd(&sh.lit_leaves, 1);
    }
    __syncthreads();
    if (t == 0) {
        uint32_t a_sum = 0, b_sum = 0;
        for (int w = 0; w < kPngDeflateThreads / 32; ++w) {
            a_sum += sh.adler[w].a;
            b_sum += sh.adler[w].b;
        }
        segment_adler[s] = adler_from_terms(a_sum, b_sum, n);
        plan_block(sh.lit_freq, sh.dist_freq, n, sh.plan, sh.scratch, sh.scratch.sorted, sh.lit_leaves);
    }
    __syncthreads();

    if (sh.plan.stored) {
        if (t == 0) {
            stored_headers(n, slot);
            segment_bytes[s] = uint32_t(stored_size(n));
        }
        stored_copy(data, lo, hi, slot);
        return;
    }

    // The token table, and the output zeroed as far as the block and its sync flush reach.
    for (int i = t; i < kTokenSymbols; i += kPngDeflateThreads) sh.table[i] = token_code(sh.plan, i);
    const size_t zero_words = size_t((sh.plan.total_bits + 3 + 7) / 8 + 4 + 3) / 4;
    for (size_t i = size_t(t); i < zero_words; i += kPngDeflateThreads) words[i] = 0;
    __syncthreads();

    // Phase 3: this thread's bits, and the bits before it.
    unsigned long long bits = 0;
    {
        CachedItems<uint16_t, false> mine(my_tokens);
        walk_tokens(mine, from, to, [&](uint16_t token) { bits += sh.table[token] & 31; });
    }
    unsigned long long before = 0, all = 0;
    BlockScan(scan_storage).ExclusiveSum(bits, before, all);

    // Phase 4: the header (thread 0) and every thread's tokens, or-ed where words are shared.
    if (t == 0) {
        WordSink header(words, 0, sh.plan.header_bits);
        write_header(sh.plan, header);
        header.flush();
    }
    {
        WordSink sink(words, sh.plan.header_bits + before, bits);
        CachedItems<uint16_t, false> mine(my_tokens);
        walk_tokens(mine, from, to, [&](uint16_t token) { sink.put(sh.table[token] >> 5, sh.table[token] & 31); });
        sink.flush();
    }
    // Phase 5: the end of block and the sync flush (its bytes are or-ed: no barrier needed).
    if (t == kPngDeflateThreads - 1) {
        const uint64_t at = sh.plan.header_bits + all;
        const uint32_t eob = sh.table[kEndOfBlock];
        WordSink end(words, at, eob & 31);
        end.put(eob >> 5, eob & 31);
        end.flush();
        segment_bytes[s] = uint32_t(end_segment(words, at + (eob & 31)));
    }
}

// The pieces back to back: block s sums the sizes before it and copies its slot's bytes; then
// each thread takes the CRC-32 of its part of them (png_deflate_parallel.h, 6.) and the parts are
// joined in a reduction: the xor of each part's CRC moved in front of the bytes after it.
__global__ void compact_kernel(const uint8_t* __restrict__ slots, size_t slot_bytes, const uint32_t* __restrict__ sizes,
                               uint8_t* __restrict__ packed, uint32_t* __restrict__ segment_crc) {
    __shared__ unsigned long long partial[kPngDeflateThreads];
    __shared__ uint32_t table[256];
    __shared__ uint32_t warp_crc[kPngDeflateThreads / 32];
    static_assert(kPngDeflateThreads >= 256, "one table entry per thread");
    const int s = blockIdx.x, t = threadIdx.x;
    if (t < 256) table[t] = crc32_table_entry(uint32_t(t));
    unsigned long long sum = 0;
    for (int k = t; k < s; k += blockDim.x) sum += sizes[k];
    partial[t] = sum;
    __syncthreads();
    for (int stride = kPngDeflateThreads / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    const size_t offset = size_t(partial[0]);
    const uint8_t* from = slots + size_t(s) * slot_bytes;
    const size_t n = sizes[s];
    for (size_t i = size_t(t); i < n; i += blockDim.x) packed[offset + i] = from[i];

    const size_t lo = crc_part_start(n, t, kPngDeflateThreads), hi = crc_part_start(n, t + 1, kPngDeflateThreads);
    CachedItems<uint8_t, true> bytes(from);
    uint32_t crc = crc32_shift(crc32_part(bytes, lo, hi, table), n - hi);
    for (int lane = 16; lane > 0; lane /= 2) crc ^= __shfl_xor_sync(0xffffffffu, crc, lane);
    if (t % 32 == 0) warp_crc[t / 32] = crc;
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < kPngDeflateThreads / 32; ++w) crc ^= warp_crc[w];
        segment_crc[s] = crc;
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Launcher

namespace {

// The staging buffers the compressed bytes pass through on their way to the writer: two, so that
// the next span is copied while the writer writes this one; 2 MiB each, so that a copy over PCIe
// is short beside writing the span to disk, and pinning them hides behind the first call's
// kernels (larger buffers take longer to pin than those kernels run; see docs/performance.md).
constexpr int kStagingSlots = 2;
constexpr size_t kStagingSlotBytes = size_t(2) << 20;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct PngCudaEncoder::Impl {
    // One call's compressed bytes on the device, read in order into the staging buffers: span i
    // (kStagingSlotBytes of the bytes) goes to slot i % kStagingSlots. When the reader moves on
    // from span i, its slot takes span i + kStagingSlots, so a copy is always ahead of the writer.
    struct DeviceBytes final : PngByteReader {
        Impl* owner = nullptr;
        const uint8_t* device = nullptr;
        size_t total = 0, read_so_far = 0;
        size_t span = 0, in_span = 0, issued = 0;  // the span being read, the bytes read of it, copies issued
        bool started = false, span_ready = false, active = false;

        size_t spans() const { return (total + kStagingSlotBytes - 1) / kStagingSlotBytes; }
        size_t span_bytes(size_t i) const { return std::min(kStagingSlotBytes, total - i * kStagingSlotBytes); }
        void reset(const uint8_t* bytes, size_t n) {
            device = bytes;
            total = n;
            read_so_far = span = in_span = issued = 0;
            started = span_ready = false;
            active = n > 0;
        }
        void issue() {
            Impl& m = *owner;
            const size_t i = issued++;
            const int slot = int(i % kStagingSlots);
            CUDA_CHECK(cudaEventRecord(m.copy_begin[slot], m.copy_stream));
            CUDA_CHECK(cudaMemcpyAsync(m.staging[slot], device + i * kStagingSlotBytes, span_bytes(i),
                                       cudaMemcpyDeviceToHost, m.copy_stream));
            CUDA_CHECK(cudaEventRecord(m.copy_end[slot], m.copy_stream));
            ++m.stats.spans;
        }
        const uint8_t* read(size_t wanted, size_t* got) override {
            Impl& m = *owner;
            if (!active || wanted == 0 || read_so_far >= total)
                throw std::runtime_error(
                    "internal error: the GPU encoder's bytes were read past their end, or after the call after next");
            if (!started) {
                m.start_reading(this);
                started = true;
                while (issued < spans() && issued < size_t(kStagingSlots)) issue();
            }
            if (in_span == span_bytes(span)) {  // span done: its slot takes the next copy
                ++span;
                in_span = 0;
                span_ready = false;
                if (issued < spans()) issue();
            }
            const int slot = int(span % kStagingSlots);
            if (!span_ready) {
                const auto wait_start = std::chrono::steady_clock::now();
                CUDA_CHECK(cudaEventSynchronize(m.copy_end[slot]));
                m.stats.copy_wait_ms += milliseconds_since(wait_start);
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, m.copy_begin[slot], m.copy_end[slot]));
                m.stats.copy_ms += ms;
                span_ready = true;
            }
            const size_t n = std::min(wanted, span_bytes(span) - in_span);
            const uint8_t* p = m.staging[slot] + in_span;
            in_span += n;
            read_so_far += n;
            m.stats.bytes += n;
            if (read_so_far == total) active = false;  // every copy has been waited for
            *got = n;
            return p;
        }
        // Stops reading these bytes (their buffer takes a new call's): waits for copies in flight.
        void abandon() {
            if (active && started) CUDA_CHECK(cudaStreamSynchronize(owner->copy_stream));
            active = false;
        }
    };

    int width = 0;
    cudaStream_t stream = nullptr, copy_stream = nullptr;
    cudaEvent_t start = nullptr, filtered_done = nullptr, deflated = nullptr, compacted = nullptr;
    cudaEvent_t copy_begin[kStagingSlots] = {}, copy_end[kStagingSlots] = {};
    uint8_t* above = nullptr;  // the row before the next call's first (RGBA), zero at first
    uint8_t* filtered = nullptr;
    uint16_t* tokens = nullptr;
    uint32_t* masks = nullptr;  // the match masks, mask_stride words a segment
    uint8_t* slots = nullptr;
    uint32_t* sizes = nullptr;  // segment bytes, Adler-32s, CRC-32s: 3 * segments entries
    size_t filtered_capacity = 0, segments_capacity = 0, slots_capacity = 0, masks_capacity = 0;
    // The compressed bytes, two buffers used by turns: call k's are read from one while call k+1
    // fills the other. Each is grown only when its own reader has stopped.
    uint8_t* packed[2] = {nullptr, nullptr};
    size_t packed_capacity[2] = {0, 0};
    DeviceBytes readers[2];
    int turn = 0;
    uint8_t* staging[kStagingSlots] = {};  // pinned, on a helper thread (staging_ready)
    std::future<void> staging_ready;
    bool staging_ok = false;
    PngCudaCopyStats stats;
    uint32_t* host_sizes = nullptr;  // pinned: 3 * segments, then the last row (width * 4 bytes)
    uint8_t* rows_buffer[2] = {nullptr, nullptr};
    size_t rows_buffer_bytes[2] = {0, 0};
    PngCudaEncoded result;

    // A reader starts: the other one, if it was being read, is done with the staging buffers.
    // (The reading thread starts a reader while the encoding thread may be resetting the other:
    // both under this mutex.)
    std::mutex readers_mutex;
    void start_reading(DeviceBytes* reader) {
        std::lock_guard<std::mutex> lock(readers_mutex);
        for (DeviceBytes& other : readers)
            if (&other != reader && other.started) other.abandon();
    }

    void free_work() {
        cudaFree(filtered);
        cudaFree(tokens);
        cudaFree(masks);
        cudaFree(slots);
        cudaFree(sizes);
        cudaFreeHost(host_sizes);
        filtered = slots = nullptr;
        tokens = nullptr;
        masks = nullptr;
        sizes = host_sizes = nullptr;
        filtered_capacity = segments_capacity = slots_capacity = masks_capacity = 0;
    }
    ~Impl() {
        // Errors ignored: this also runs while an exception unwinds.
        if (staging_ready.valid()) staging_ready.wait();
        if (copy_stream) cudaStreamSynchronize(copy_stream);
        free_work();
        for (uint8_t* p : packed) cudaFree(p);
        for (uint8_t* p : staging) cudaFreeHost(p);
        cudaFree(above);
        cudaFree(rows_buffer[0]);
        cudaFree(rows_buffer[1]);
        for (cudaEvent_t e :
             {start, filtered_done, deflated, compacted, copy_begin[0], copy_begin[1], copy_end[0], copy_end[1]})
            if (e) cudaEventDestroy(e);
        if (stream) cudaStreamDestroy(stream);
        if (copy_stream) cudaStreamDestroy(copy_stream);
    }

    // Room for n filtered bytes and `segments` slots of slot_bytes and masks of mask_stride words.
    void ensure(size_t n, size_t segments, size_t slot_bytes, size_t mask_stride) {
        if (n <= filtered_capacity && segments <= segments_capacity && segments * slot_bytes <= slots_capacity &&
            segments * mask_stride <= masks_capacity)
            return;
        free_work();
        const size_t slots_bytes = segments * slot_bytes;
        CUDA_CHECK(cuda_malloc(&filtered, n + 16));  // + 16: CachedItems reads whole 16-byte blocks
        CUDA_CHECK(cuda_malloc(&tokens, n * sizeof(uint16_t) + 16));
        CUDA_CHECK(cuda_malloc(&masks, segments * mask_stride * sizeof(uint32_t)));
        CUDA_CHECK(cuda_malloc(&slots, slots_bytes));
        CUDA_CHECK(cuda_malloc(&sizes, 3 * segments * sizeof(uint32_t)));
        CUDA_CHECK(cudaMallocHost(&host_sizes, 3 * segments * sizeof(uint32_t) + size_t(width) * 4));
        filtered_capacity = n;
        segments_capacity = segments;
        slots_capacity = slots_bytes;
        masks_capacity = segments * mask_stride;
    }
    // packed[b] of at least `bytes` (its reader has stopped).
    void ensure_packed(int b, size_t bytes) {
        if (bytes <= packed_capacity[b]) return;
        CUDA_CHECK(cudaFree(packed[b]));
        packed[b] = nullptr;
        packed_capacity[b] = 0;
        CUDA_CHECK(cuda_malloc(&packed[b], bytes));
        packed_capacity[b] = bytes;
    }
};

PngCudaEncoder::PngCudaEncoder(int width) : impl_(std::make_unique<Impl>()) {
    if (width <= 0) throw std::invalid_argument("PngCudaEncoder: width must be positive");
    Impl& m = *impl_;
    m.width = width;
    for (Impl::DeviceBytes& r : m.readers) r.owner = &m;
    CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&m.copy_stream, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&m.start, &m.filtered_done, &m.deflated, &m.compacted, &m.copy_begin[0], &m.copy_begin[1],
                           &m.copy_end[0], &m.copy_end[1]})
        CUDA_CHECK(cudaEventCreate(e));
    CUDA_CHECK(cuda_malloc(&m.above, size_t(width) * 4));
    CUDA_CHECK(cudaMemset(m.above, 0, size_t(width) * 4));
    m.stats.staging_bytes = kStagingSlots * kStagingSlotBytes;
}

PngCudaEncoder::~PngCudaEncoder() = default;

uint8_t* PngCudaEncoder::device_rows(int which, size_t bytes) {
    Impl& m = *impl_;
    if (which < 0 || which > 1) throw std::invalid_argument("PngCudaEncoder::device_rows: buffer 0 or 1");
    if (m.rows_buffer_bytes[which] < bytes) {
        CUDA_CHECK(cudaFree(m.rows_buffer[which]));
        m.rows_buffer[which] = nullptr;
        m.rows_buffer_bytes[which] = 0;
        CUDA_CHECK(cuda_malloc(&m.rows_buffer[which], bytes));
        m.rows_buffer_bytes[which] = bytes;
    }
    return m.rows_buffer[which];
}

uint8_t* PngCudaEncoder::upload_rows(int which, const uint8_t* rgba_host, size_t bytes) {
    uint8_t* rows = device_rows(which, bytes);
    CUDA_CHECK(cudaMemcpy(rows, rgba_host, bytes, cudaMemcpyHostToDevice));
    return rows;
}

PngCudaCopyStats PngCudaEncoder::copy_stats() const { return impl_->stats; }

const PngCudaEncoded& PngCudaEncoder::encode_rows_device(const uint8_t* rgba_device, int rows) {
    Impl& m = *impl_;
    if (rows <= 0) throw std::invalid_argument("PngCudaEncoder: no rows to encode");
    const size_t row_bytes = size_t(m.width) * 3 + 1;
    const int rows_per_segment = png_rows_per_segment(m.width, rows);
    const int segments = (rows + rows_per_segment - 1) / rows_per_segment;
    // A segment of more than 2^31 bytes would overflow the 32-bit sizes (a row of 700 million
    // pixels): not an image this encoder meets, but say so rather than write a broken file.
    if (size_t(rows_per_segment) * row_bytes > (size_t(1) << 31))
        throw std::runtime_error("the GPU's PNG encoder takes rows of up to 2 GB");
    const size_t slot = segment_slot_bytes(size_t(rows_per_segment) * row_bytes);
    const size_t mask_stride = 2 * mask_words(size_t(rows_per_segment) * row_bytes);
    // This call's bytes go where the call before last's were: those are no longer read.
    const int b = m.turn;
    m.turn ^= 1;
    {
        std::lock_guard<std::mutex> lock(m.readers_mutex);
        m.readers[b].abandon();
    }
    m.ensure(size_t(rows) * row_bytes, size_t(segments), slot, mask_stride);
    m.ensure_packed(b, size_t(segments) * slot);

    CUDA_CHECK(cudaEventRecord(m.start, m.stream));
    const size_t pixels = size_t(m.width) * size_t(rows);
    const int filter_blocks = int(std::min<size_t>((pixels + 255) / 256, 65535));
    filter_kernel<<<filter_blocks, 256, 0, m.stream>>>(rgba_device, m.above, m.width, rows, m.filtered);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(m.filtered_done, m.stream));
    deflate_kernel<<<segments, kPngDeflateThreads, 0, m.stream>>>(m.filtered, row_bytes, rows, rows_per_segment,
                                                                  m.tokens, m.masks, mask_stride, m.slots, slot,
                                                                  m.sizes, m.sizes + segments);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(m.deflated, m.stream));
    compact_kernel<<<segments, kPngDeflateThreads, 0, m.stream>>>(m.slots, slot, m.sizes, m.packed[b],
                                                                  m.sizes + 2 * segments);
    CUDA_CHECK_LAUNCH();
    // The last row is the next call's predictor, on the device and (for a CPU fallback) here.
    const uint8_t* last = rgba_device + size_t(rows - 1) * size_t(m.width) * 4;
    CUDA_CHECK(cudaMemcpyAsync(m.above, last, size_t(m.width) * 4, cudaMemcpyDeviceToDevice, m.stream));
    CUDA_CHECK(cudaMemcpyAsync(m.host_sizes, m.sizes, 3 * size_t(segments) * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                               m.stream));
    uint8_t* const last_row = reinterpret_cast<uint8_t*>(m.host_sizes + 3 * size_t(segments));
    CUDA_CHECK(cudaMemcpyAsync(last_row, last, size_t(m.width) * 4, cudaMemcpyDeviceToHost, m.stream));
    CUDA_CHECK(cudaEventRecord(m.compacted, m.stream));
    if (!m.staging_ok && !m.staging_ready.valid()) {
        // The staging buffers are pinned on a helper thread while the first call's kernels run
        // (this thread only waits for them): pinning takes milliseconds, and pinned from the
        // constructor it would hold up the caller's own CUDA calls.
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        m.staging_ready = std::async(std::launch::async, [&m, device] {
            const auto pin_start = std::chrono::steady_clock::now();
            CUDA_CHECK(cudaSetDevice(device));
            for (uint8_t*& slot : m.staging) CUDA_CHECK(cudaMallocHost(&slot, kStagingSlotBytes));
            m.stats.staging_ms = milliseconds_since(pin_start);
        });
    }
    CUDA_CHECK(cudaStreamSynchronize(m.stream));
    size_t total = 0;
    for (int s = 0; s < segments; ++s) total += m.host_sizes[s];
    if (!m.staging_ok) {  // the first call: the staging buffers must be pinned by now
        const auto wait_start = std::chrono::steady_clock::now();
        m.staging_ready.get();  // rethrows the helper thread's CUDA error (a later call tries again)
        m.stats.staging_wait_ms = milliseconds_since(wait_start);
        m.staging_ok = true;
    }
    {
        std::lock_guard<std::mutex> lock(m.readers_mutex);
        m.readers[b].reset(m.packed[b], total);
    }

    float filter_ms = 0, deflate_ms = 0, compact_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&filter_ms, m.start, m.filtered_done));
    CUDA_CHECK(cudaEventElapsedTime(&deflate_ms, m.filtered_done, m.deflated));
    CUDA_CHECK(cudaEventElapsedTime(&compact_ms, m.deflated, m.compacted));
    PngCudaEncoded& r = m.result;
    r.rows.rows = rows;
    r.rows.segments = size_t(segments);
    r.rows.bytes = nullptr;
    r.rows.reader = &m.readers[b];
    r.rows.segment_bytes = m.host_sizes;
    r.rows.segment_adler = m.host_sizes + segments;
    r.rows.segment_crc = m.host_sizes + 2 * segments;
    r.rows.last_row_rgba = last_row;
    r.filter_ms = filter_ms;
    r.deflate_ms = deflate_ms;
    r.compact_ms = compact_ms;
    return r;
}

}  // namespace ms
