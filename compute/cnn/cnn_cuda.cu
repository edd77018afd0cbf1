// cnn_cuda.cu: the CUDA forward pass of the Fashion-MNIST network (FP32, our own kernels): the
// launcher (device state, CUDA graphs for small batches, timing, the public API). The kernels
// are split by concept: cnn_cuda_conv.cu (convolutions), cnn_cuda_dense.cu (dense layers),
// sharing cnn_cuda_kernels-inl.h.
// CPU reference: cnn_forward_cpu_reference (cnn_cpu_reference.cpp); tests/demos/test_cnn.cpp compares
// every variant and tiling with it (1e-4 on the logits).
//
// Napkin math per image: conv1 0.23 MFLOP, conv2 1.81 MFLOP, fc1 0.20 MFLOP: 2.2 MFLOP, so 10,000
// images are 22 GFLOP, little for a GPU's FP32 FMA units. Memory is no limit: 7.8 MB of input bytes
// in, 0.4 MB of logits out; the unfused variant adds 125 MB (pool1) written and read again.
//
// Layout on the device: one float array with the weights in the kCnnTensors order, except that
// conv1's weights are stored [tap][out] and conv2's [in][tap][out], so a thread reads the
// weights of several output channels of one tap with one float4 load (a broadcast: every
// thread of a warp reads the same address).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_cuda_kernels-inl.h"
#include "compute/system/cuda_info.h"

namespace ms {

using namespace cnn_cuda_detail;

// ---------------------------------------------------------------------------------------------
// Launchers

namespace {

constexpr int kEventCount = 6;
// Batches up to this size run as a captured CUDA graph (launch overhead dominates them).
constexpr int kGraphMaxImages = 256;
constexpr size_t kGraphCacheSize = 8;

// One captured forward pass from pinned staging memory to pinned staging memory.
struct ForwardGraph {
    int count = 0;
    CnnCudaVariant variant = CnnCudaVariant::Fused;
    ConvTiling tiling;
    cudaGraphExec_t exec = nullptr;
    int stages = 0;
    const char* names[4] = {};
};

}  // namespace

struct CnnCuda {
    int max_batch = 0;
    float* params = nullptr;  // device weights, permuted layout (see the file comment)
    uint8_t* images = nullptr;
    float* pool1 = nullptr;  // unfused variant only
    float* pool2 = nullptr;
    float* partial = nullptr;  // fc1's split-K partial sums
    float* logits = nullptr;
    uint8_t* images_pinned = nullptr;
    float* logits_pinned = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t events[kEventCount] = {};
    ConvTiling forced_tiling;  // images_per_block 0 = choose by batch size
    bool tiling_forced = false;
    std::vector<ForwardGraph> graphs;  // small batches, captured on first use
    size_t next_graph = 0;             // the slot to replace when the cache is full

    const float* tensor(CnnTensor t) const { return params + kCnnTensors[t].offset; }
    ConvArgs conv_args() const {
        return {tensor(kConv1Weight), tensor(kConv1Bias), tensor(kConv2Weight), tensor(kConv2Bias), pool1, pool2};
    }
    DenseArgs dense_args() const {
        return {tensor(kFc1Weight), tensor(kFc1Bias), tensor(kFc2Weight), tensor(kFc2Bias), partial};
    }
};

void CnnCudaDeleter::operator()(CnnCuda* c) const {
    if (!c) return;
    // No throwing from a deleter: errors here only mean the context is already gone.
    for (ForwardGraph& g : c->graphs) cudaGraphExecDestroy(g.exec);
    for (cudaEvent_t e : c->events)
        if (e) cudaEventDestroy(e);
    if (c->stream) cudaStreamDestroy(c->stream);
    cudaFree(c->params);
    cudaFree(c->images);
    cudaFree(c->pool1);
    cudaFree(c->pool2);
    cudaFree(c->partial);
    cudaFree(c->logits);
    cudaFreeHost(c->images_pinned);
    cudaFreeHost(c->logits_pinned);
    delete c;
}

bool cnn_cuda_available(std::string* reason) {
    // compute/system/cuda_info.h's words, the same in every mode.
    const std::string why = cuda_unavailable_reason();
    if (reason) *reason = why;
    return why.empty();
}

std::string cnn_cuda_device_name() {
    std::string reason;
    if (!cnn_cuda_available(&reason)) return reason;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return std::string(prop.name) + ", sm_" + std::to_string(prop.major * 10 + prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs";
}

const char* cnn_cuda_variant_name(CnnCudaVariant variant) {
    return variant == CnnCudaVariant::Fused ? "cuda" : "cuda-unfused";
}

namespace {

ConvTiling choose_tiling(const CnnCuda& c, int count) {
    if (c.tiling_forced) return c.forced_tiling;
    return count >= 1024 ? ConvTiling{4, 8} : ConvTiling{1, 4};
}

// Launches the kernels of one slice (count <= max_batch) on c.stream, recording events
// `e0` (before), then one after each stage. Returns the stage names.
// cudaEventRecord inside a stream capture only marks a dependency; an event that must be
// recorded when the graph runs (for timing) needs cudaEventRecordExternal.
void record_event(cudaEvent_t event, cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
    if (status == cudaStreamCaptureStatusActive)
        CUDA_CHECK(cudaEventRecordWithFlags(event, stream, cudaEventRecordExternal));
    else CUDA_CHECK(cudaEventRecord(event, stream));
}

int launch_forward(CnnCuda& c, const uint8_t* images, int count, float* logits, CnnCudaVariant variant, int first_event,
                   const char** names) {
    int stages = 0;
    const ConvTiling tiling = choose_tiling(c, count);
    auto mark = [&](const char* name) {
        names[stages++] = name;
        record_event(c.events[first_event + stages], c.stream);
    };
    const ConvArgs conv = c.conv_args();
    if (variant == CnnCudaVariant::Fused) {
        launch_conv(tiling, images, count, true, conv, c.stream);
        mark("conv1+conv2 fused");
    } else {
        launch_conv1(images, count, conv, c.stream);
        mark("conv1+relu+pool");
        launch_conv(tiling, images, count, false, conv, c.stream);
        mark("conv2+relu+pool");
    }
    launch_dense(c.pool2, count, c.dense_args(), logits, c.stream);
    mark("fc1+relu+fc2");
    return stages;
}

void add_stage(CnnForwardStats& stats, const char* name, double ms) {
    for (CnnLayerTime& l : stats.layers)
        if (l.name == name) {
            l.ms += ms;
            return;
        }
    stats.layers.push_back({name, ms});
}

// Time between two recorded events; NaN (and the error cleared) where the runtime cannot say,
// so a timing problem shows in the figures instead of failing the forward pass.
float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        cudaGetLastError();
        return NAN;
    }
    return ms;
}

// Large copies go straight from pageable memory (the driver pipelines them); small ones
// through pinned staging memory, which cuts the latency of batch-1 calls.
constexpr int kPinnedBelowImages = 1024;

// The weights as the kernels read them: conv weights permuted for float4 loads over output
// channels (see the file comment), everything else as in the file.
std::vector<float> device_layout(const CnnWeights& weights) {
    std::vector<float> host(weights.values);
    const float* w1 = weights.tensor(kConv1Weight);
    float* w1t = host.data() + kCnnTensors[kConv1Weight].offset;
    for (int o = 0; o < kCnnConv1Channels; ++o)
        for (int tap = 0; tap < 9; ++tap) w1t[tap * kCnnConv1Channels + o] = w1[o * 9 + tap];
    const float* w2 = weights.tensor(kConv2Weight);
    float* w2t = host.data() + kCnnTensors[kConv2Weight].offset;
    for (int o = 0; o < kCnnConv2Channels; ++o)
        for (int i = 0; i < kCnnConv1Channels; ++i)
            for (int tap = 0; tap < 9; ++tap)
                w2t[(i * 9 + tap) * kCnnConv2Channels + o] = w2[(o * kCnnConv1Channels + i) * 9 + tap];
    return host;
}

}  // namespace

CnnCudaHandle cnn_cuda_create(const CnnWeights& weights, int max_batch) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) throw std::runtime_error("cannot use CUDA: " + reason);
    if (max_batch < 1) throw std::runtime_error("max_batch must be at least 1");
    CnnCudaHandle c(new CnnCuda);
    c->max_batch = max_batch;

    const std::vector<float> host = device_layout(weights);
    const size_t n = size_t(max_batch);
    CUDA_CHECK(cuda_malloc(&c->params, sizeof(float) * kCnnParameterCount));
    CUDA_CHECK(cudaMemcpy(c->params, host.data(), sizeof(float) * kCnnParameterCount, cudaMemcpyHostToDevice));
    CUDA_CHECK(cuda_malloc(&c->images, n * kCnnPixels));
    CUDA_CHECK(cuda_malloc(&c->pool1, sizeof(float) * n * kPool1Size));
    CUDA_CHECK(cuda_malloc(&c->pool2, sizeof(float) * n * kCnnFlat));
    CUDA_CHECK(cuda_malloc(&c->partial, sizeof(float) * partial_floats(max_batch)));
    CUDA_CHECK(cuda_malloc(&c->logits, sizeof(float) * n * kCnnClasses));
    const size_t pinned = std::min(n, size_t(kPinnedBelowImages));
    CUDA_CHECK(cudaMallocHost(&c->images_pinned, pinned * kCnnPixels));
    CUDA_CHECK(cudaMallocHost(&c->logits_pinned, sizeof(float) * pinned * kCnnClasses));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    for (cudaEvent_t& e : c->events) CUDA_CHECK(cudaEventCreate(&e));
    set_conv_smem_limits();
    return c;
}

void cnn_cuda_set_weights(CnnCuda& c, const CnnWeights& weights) {
    const std::vector<float> host = device_layout(weights);
    CUDA_CHECK(cudaMemcpy(c.params, host.data(), sizeof(float) * kCnnParameterCount, cudaMemcpyHostToDevice));
}

void cnn_cuda_set_conv_tiling(CnnCuda& c, int images_per_block, int channels_per_thread) {
    if (images_per_block == 0) {
        c.tiling_forced = false;
        return;
    }
    ConvTiling t{images_per_block, channels_per_thread};
    if (!conv_tiling_supported(t))
        throw std::runtime_error("unsupported conv tiling " + std::to_string(images_per_block) + "x" +
                                 std::to_string(channels_per_thread) + " (supported: 1x4 1x8 2x8 2x16 4x8 4x16)");
    c.forced_tiling = t;
    c.tiling_forced = true;
}

namespace {

// Upload from pinned staging memory, kernels, download to pinned staging memory, recording
// events[0] before and one event after each step. Returns the number of kernel stages.
int enqueue_pinned_forward(CnnCuda& c, int n, CnnCudaVariant variant, const char** names) {
    record_event(c.events[0], c.stream);
    CUDA_CHECK(cudaMemcpyAsync(c.images, c.images_pinned, size_t(n) * kCnnPixels, cudaMemcpyHostToDevice, c.stream));
    record_event(c.events[1], c.stream);
    const int stages = launch_forward(c, c.images, n, c.logits, variant, 1, names);
    CUDA_CHECK(
        cudaMemcpyAsync(c.logits_pinned, c.logits, sizeof(float) * n * kCnnClasses, cudaMemcpyDeviceToHost, c.stream));
    record_event(c.events[stages + 2], c.stream);
    return stages;
}

// The captured graph of enqueue_pinned_forward for this batch size, variant and tiling.
const ForwardGraph& forward_graph(CnnCuda& c, int n, CnnCudaVariant variant) {
    const ConvTiling tiling = choose_tiling(c, n);
    for (const ForwardGraph& g : c.graphs)
        if (g.count == n && g.variant == variant && g.tiling == tiling) return g;
    ForwardGraph g;
    g.count = n;
    g.variant = variant;
    g.tiling = tiling;
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal));
    try {
        g.stages = enqueue_pinned_forward(c, n, variant, g.names);
    } catch (...) {
        cudaStreamEndCapture(c.stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(c.stream, &graph));
    const cudaError_t err = cudaGraphInstantiate(&g.exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(err);
    if (c.graphs.size() < kGraphCacheSize) {
        c.graphs.push_back(g);
        return c.graphs.back();
    }
    ForwardGraph& slot = c.graphs[c.next_graph++ % kGraphCacheSize];
    CUDA_CHECK(cudaGraphExecDestroy(slot.exec));
    slot = g;
    return slot;
}

}  // namespace

void cnn_cuda_forward(CnnCuda& c, const uint8_t* images, int count, float* logits, CnnForwardStats* stats,
                      CnnCudaVariant variant) {
    const auto wall_start = std::chrono::steady_clock::now();
    if (stats) *stats = CnnForwardStats{};
    for (int first = 0; first < count; first += c.max_batch) {
        const int n = std::min(c.max_batch, count - first);
        const uint8_t* src = images + size_t(first) * kCnnPixels;
        float* dst = logits + size_t(first) * kCnnClasses;
        const bool pinned = n <= kPinnedBelowImages;
        const char* names[4] = {};
        int stages = 0;
        if (pinned) {
            std::memcpy(c.images_pinned, src, size_t(n) * kCnnPixels);
            if (n <= kGraphMaxImages) {
                const ForwardGraph& g = forward_graph(c, n, variant);
                CUDA_CHECK(cudaGraphLaunch(g.exec, c.stream));
                stages = g.stages;
                std::copy(g.names, g.names + 4, names);
            } else {
                stages = enqueue_pinned_forward(c, n, variant, names);
            }
        } else {
            CUDA_CHECK(cudaEventRecord(c.events[0], c.stream));
            CUDA_CHECK(cudaMemcpyAsync(c.images, src, size_t(n) * kCnnPixels, cudaMemcpyHostToDevice, c.stream));
            CUDA_CHECK(cudaEventRecord(c.events[1], c.stream));
            stages = launch_forward(c, c.images, n, c.logits, variant, 1, names);
            CUDA_CHECK(
                cudaMemcpyAsync(dst, c.logits, sizeof(float) * n * kCnnClasses, cudaMemcpyDeviceToHost, c.stream));
            CUDA_CHECK(cudaEventRecord(c.events[stages + 2], c.stream));
        }
        // The whole stream, not only the last event: completion must not depend on how events
        // inside a graph behave.
        CUDA_CHECK(cudaStreamSynchronize(c.stream));
        if (pinned) std::memcpy(dst, c.logits_pinned, sizeof(float) * n * kCnnClasses);
        if (stats) {
            add_stage(*stats, "upload", elapsed_ms(c.events[0], c.events[1]));
            for (int s = 0; s < stages; ++s) add_stage(*stats, names[s], elapsed_ms(c.events[s + 1], c.events[s + 2]));
            add_stage(*stats, "download", elapsed_ms(c.events[stages + 1], c.events[stages + 2]));
        }
    }
    if (stats)
        stats->total_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
}

void cnn_cuda_forward_device(CnnCuda& c, const uint8_t* images_device, int count, float* logits_device,
                             CnnForwardStats* stats, CnnCudaVariant variant) {
    if (stats) *stats = CnnForwardStats{};
    for (int first = 0; first < count; first += c.max_batch) {
        const int n = std::min(c.max_batch, count - first);
        CUDA_CHECK(cudaEventRecord(c.events[0], c.stream));
        const char* names[4];
        const int stages = launch_forward(c, images_device + size_t(first) * kCnnPixels, n,
                                          logits_device + size_t(first) * kCnnClasses, variant, 0, names);
        CUDA_CHECK(cudaEventSynchronize(c.events[stages]));
        if (stats)
            for (int s = 0; s < stages; ++s) {
                const double ms = elapsed_ms(c.events[s], c.events[s + 1]);
                add_stage(*stats, names[s], ms);
                stats->total_ms += ms;
            }
    }
}

uint8_t* cnn_cuda_upload_images(const uint8_t* images, int count) {
    uint8_t* d = nullptr;
    CUDA_CHECK(cuda_malloc(&d, size_t(count) * kCnnPixels));
    CUDA_CHECK(cudaMemcpy(d, images, size_t(count) * kCnnPixels, cudaMemcpyHostToDevice));
    return d;
}

float* cnn_cuda_alloc_logits(int count) {
    float* d = nullptr;
    CUDA_CHECK(cuda_malloc(&d, sizeof(float) * size_t(count) * kCnnClasses));
    return d;
}

void cnn_cuda_download_logits(const float* logits_device, int count, float* logits) {
    CUDA_CHECK(cudaMemcpy(logits, logits_device, sizeof(float) * size_t(count) * kCnnClasses, cudaMemcpyDeviceToHost));
}

void cnn_cuda_free(void* device_pointer) { CUDA_CHECK(cudaFree(device_pointer)); }

}  // namespace ms
