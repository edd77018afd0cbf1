// cnn_eval.cpp: batched evaluation over a data set on any backend (cnn_eval.h).
#include "compute/cnn/cnn_eval.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "compute/cnn/cnn_gemm.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;

struct Pass {
    double wall_ms = 0.0;
    double compute_ms = 0.0;
    std::vector<CnnLayerTime> layers;
};

void merge_layers(std::vector<CnnLayerTime>& into, const std::vector<CnnLayerTime>& add) {
    for (const CnnLayerTime& a : add) {
        auto it = std::find_if(into.begin(), into.end(), [&](const CnnLayerTime& l) { return l.name == a.name; });
        if (it == into.end()) into.push_back(a);
        else it->ms += a.ms;
    }
}

bool is_transfer(const std::string& name) { return name == "upload" || name == "download"; }

}  // namespace

void cnn_classify(const CnnWeights& w, CnnBackend backend, CnnCuda* cuda, const uint8_t* images, int count,
                  float* logits, float* probabilities) {
    switch (backend) {
    case CnnBackend::CpuReference: cnn_forward_cpu_reference(w, images, count, logits); break;
    case CnnBackend::Cpu: cnn_forward_cpu(w, images, count, logits); break;
    case CnnBackend::Cuda:
        if (!cuda) throw std::runtime_error("cnn_classify: the CUDA backend needs a CnnCuda");
        cnn_cuda_forward(*cuda, images, count, logits);
        break;
    }
    if (probabilities) cnn_softmax(logits, count, probabilities);
}

CnnEvalResult cnn_evaluate(const CnnWeights& w, const FashionMnist& data, const CnnEvalOptions& o) {
    if (o.batch < 1) throw std::runtime_error("the batch size must be at least 1");
    if (o.passes < 1) throw std::runtime_error("the number of passes must be at least 1");
    if (data.count < 1) throw std::runtime_error("no images to evaluate");
    CnnEvalResult r;
    r.batch = std::min(o.batch, data.count);
    r.backend = o.backend == CnnBackend::Cuda ? cnn_cuda_variant_name(o.cuda_variant) : cnn_backend_name(o.backend);
    CnnCudaHandle own_cuda;
    CnnCuda* cuda = o.cuda;
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    if (o.backend == CnnBackend::Cuda) {
        if (!cuda) {
            own_cuda = cnn_cuda_create(w, r.batch);
            cuda = own_cuda.get();
        }
        r.device = cnn_cuda_device_name();
    } else if (o.backend == CnnBackend::Cpu) {
        r.device = cnn_cpu_simd_target() + " x " + std::to_string(threads) + " threads";
    } else {
        r.device = "scalar, 1 thread";
    }

    auto run = [&](const uint8_t* images, int n, float* logits, CnnForwardStats* stats) {
        switch (o.backend) {
        case CnnBackend::CpuReference: {
            const Clock::time_point t0 = Clock::now();
            cnn_forward_cpu_reference(w, images, n, logits);
            stats->total_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            stats->layers = {{"all layers", stats->total_ms}};
            break;
        }
        case CnnBackend::Cpu: cnn_forward_cpu(w, images, n, logits, stats, threads); break;
        case CnnBackend::Cuda: cnn_cuda_forward(*cuda, images, n, logits, stats, o.cuda_variant); break;
        }
    };

    std::vector<float> batch_logits(size_t(r.batch) * kCnnClasses);
    if (o.keep_logits) r.logits.assign(size_t(data.count) * kCnnClasses, 0.0f);
    CnnForwardStats stats;
    run(data.images.data(), r.batch, batch_logits.data(), &stats);  // warm-up, untimed

    std::vector<Pass> passes;
    std::vector<double> batch_ms;
    const int total = data.count * o.passes;
    int done = 0;
    for (int p = 0; p < o.passes && !r.cancelled; ++p) {
        Pass pass;
        for (int first = 0; first < data.count; first += r.batch) {
            if (o.cancel && o.cancel->load()) {
                r.cancelled = true;
                break;
            }
            const int n = std::min(r.batch, data.count - first);
            float* logits = o.keep_logits && p == 0 ? &r.logits[size_t(first) * kCnnClasses] : batch_logits.data();
            run(data.image(first), n, logits, &stats);
            pass.wall_ms += stats.total_ms;
            batch_ms.push_back(stats.total_ms);
            double compute = 0.0;
            for (const CnnLayerTime& l : stats.layers)
                if (!is_transfer(l.name)) compute += l.ms;
            pass.compute_ms += o.backend == CnnBackend::Cuda ? compute : stats.total_ms;
            merge_layers(pass.layers, stats.layers);
            if (p == 0) {
                for (int i = 0; i < n; ++i) {
                    const int truth = data.labels[first + i];
                    const int predicted = cnn_argmax(logits + size_t(i) * kCnnClasses);
                    ++r.confusion[truth][predicted];
                    r.correct += truth == predicted;
                }
                r.images += n;
            }
            done += n;
            if (o.on_progress) o.on_progress(done, total);
        }
        if (!r.cancelled) passes.push_back(std::move(pass));
    }
    r.accuracy = r.images ? double(r.correct) / r.images : 0.0;
    if (!passes.empty()) {
        std::sort(passes.begin(), passes.end(), [](const Pass& a, const Pass& b) { return a.wall_ms < b.wall_ms; });
        const Pass& median = passes[passes.size() / 2];
        r.wall_ms = median.wall_ms;
        r.compute_ms = median.compute_ms;
        r.layers = median.layers;
        r.images_per_second = r.wall_ms > 0.0 ? data.count / (r.wall_ms / 1e3) : 0.0;
        r.compute_images_per_second = r.compute_ms > 0.0 ? data.count / (r.compute_ms / 1e3) : 0.0;
    }
    if (!batch_ms.empty()) {
        std::nth_element(batch_ms.begin(), batch_ms.begin() + batch_ms.size() / 2, batch_ms.end());
        r.batch_latency_ms = batch_ms[batch_ms.size() / 2];
    }
    return r;
}

}  // namespace ms
