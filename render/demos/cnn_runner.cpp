// cnn_runner.cpp: the CNN demo's worker thread and the main loop's side of it (cnn_runner.h).
#include "render/demos/cnn_runner.h"
#include "compute/system/text_format.h"
#include "render/ui/panels.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "compute/cnn/cnn_gemm.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;

// Grid predictions are made in slices, so the progress bar moves and shutdown is quick.
constexpr int kLoadSliceImages = 500;

// ---- Worker side -----------------------------------------------------------------------------

// The data set, the weights, the GPU, then the CPU's predictions for the grid. Each problem is
// kept as its sentence (the data set's names the package to install).
void run_load(CnnRunner& r) {
    std::shared_ptr<FashionMnist> test;
    std::shared_ptr<CnnWeights> weights;
    try {
        test = std::make_shared<FashionMnist>(load_fashion_mnist(r.data_dir, FashionMnistSplit::Test));
    } catch (const std::exception& e) {
        r.load_error = e.what();
    }
    try {
        const std::filesystem::path path = cnn_default_weights_path();
        std::string provenance;
        weights = std::make_shared<CnnWeights>(cnn_load_weights(path, &provenance));
        r.weights_note = path.filename().string() + ": " + provenance;
    } catch (const std::exception& e) {
        r.load_error += (r.load_error.empty() ? "" : " ") + std::string(e.what());
    }
    r.cpu_device = cnn_cpu_simd_target() + " x " + std::to_string(omp_get_max_threads()) + " threads";
    if (!r.load_error.empty()) return;

    std::string reason;
    if (cnn_cuda_available(&reason)) {
        try {
            r.cuda = cnn_cuda_create(*weights, kCnnMaxBatch);
            r.cuda_device = cnn_cuda_device_name();
        } catch (const std::exception& e) {
            r.cuda_unavailable = e.what();
        }
    } else {
        r.cuda_unavailable = reason;
    }

    r.total = test->count;
    std::vector<float> logits(size_t(test->count) * kCnnClasses);
    r.probabilities.assign(logits.size(), 0.0f);
    for (int first = 0; first < test->count && !r.cancel; first += kLoadSliceImages) {
        const int n = std::min(kLoadSliceImages, test->count - first);
        cnn_classify(*weights, CnnBackend::Cpu, nullptr, test->image(first), n, &logits[size_t(first) * kCnnClasses],
                     &r.probabilities[size_t(first) * kCnnClasses]);
        r.done = first + n;
    }
    if (r.cancel) {
        r.load_error = "Loading was cancelled.";
        return;
    }
    r.predicted.resize(test->count);
    for (int i = 0; i < test->count; ++i) r.predicted[i] = uint8_t(cnn_argmax(&logits[size_t(i) * kCnnClasses]));
    r.test = std::move(test);
    r.weights = std::move(weights);
}

CnnEvalOptions eval_options(CnnRunner& r, CnnBackend backend, int batch) {
    CnnEvalOptions o;
    o.backend = backend;
    o.batch = std::clamp(batch, 1, kCnnMaxBatch);
    o.cuda = r.cuda.get();
    o.cancel = &r.cancel;
    return o;
}

void run_classify_all(CnnRunner& r, const CnnJob& job) {
    if (job.backend == CnnBackend::Cuda && !r.cuda)
        throw std::runtime_error("the GPU cannot be used: " + r.cuda_unavailable);
    CnnEvalOptions o = eval_options(r, job.backend, job.batch);
    o.on_progress = [&r](int done, int total) {
        r.total = total;
        r.done = done;
    };
    r.result = cnn_evaluate(*r.weights, *r.test, o);
}

// Every usable backend at each batch size, on the first cnn_sweep_images images. The GPU gets
// three timed passes (they are cheap there); on the CPU one pass of many calls is steady enough.
void run_sweep(CnnRunner& r, const CnnJob& job) {
    std::vector<CnnBackend> backends = {CnnBackend::Cpu};
    if (r.cuda) backends.push_back(CnnBackend::Cuda);
    const std::vector<int> batches = cnn_sweep_batches(job.batch, std::min(kCnnMaxBatch, r.test->count));
    auto passes = [](CnnBackend b) { return b == CnnBackend::Cuda ? 3 : 1; };
    long total = 0;
    for (CnnBackend b : backends)
        for (int batch : batches) total += long(passes(b)) * cnn_sweep_images(batch, r.test->count);
    r.total = total;
    long before = 0;
    for (CnnBackend backend : backends) {
        for (int batch : batches) {
            if (r.cancel) return;
            FashionMnist subset;
            subset.count = cnn_sweep_images(batch, r.test->count);
            subset.images.assign(r.test->images.begin(), r.test->images.begin() + size_t(subset.count) * kCnnPixels);
            subset.labels.assign(r.test->labels.begin(), r.test->labels.begin() + subset.count);
            CnnEvalOptions o = eval_options(r, backend, batch);
            o.passes = passes(backend);
            o.on_progress = [&r, before](int done, int) { r.done = before + done; };
            CnnEvalResult result = cnn_evaluate(*r.weights, subset, o);
            if (result.cancelled) return;
            before += long(o.passes) * subset.count;
            CnnSweepPoint point{result.batch, subset.count, result.batch_latency_ms, result.images_per_second};
            std::lock_guard<std::mutex> lock(r.mutex);
            r.sweep_partial.emplace_back(backend, point);
        }
    }
}

void start_job(CnnRunner& r, const CnnJob& job) {
    r.job = job;
    r.cancel = false;
    r.finished = false;
    r.done = 0;
    r.total = 0;
    r.error.clear();
    r.load_error.clear();
    r.sweep_partial.clear();
    r.sweep_seen = 0;
    r.thread = std::thread([&r, job] {
        const Clock::time_point start = Clock::now();
        try {
            switch (job.task) {
            case CnnTask::Load: run_load(r); break;
            case CnnTask::ClassifyAll: run_classify_all(r, job); break;
            case CnnTask::Sweep: run_sweep(r, job); break;
            case CnnTask::None: break;
            }
        } catch (const std::exception& e) {
            r.error = e.what();
        }
        r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        r.finished = true;
    });
}

// ---- Main-loop side --------------------------------------------------------------------------

void say(CnnDemo& d, const std::string& text, bool error) {
    d.message = text;
    d.message_is_error = error;
    std::fprintf(error ? stderr : stdout, "cnn: %s\n", text.c_str());
    std::fflush(error ? stderr : stdout);
}

void log_classify_all(const CnnDemo& d, const CnnEvalResult& r) {
    std::printf("cnn: accuracy %.2f%% on %d images (%s, %s images/s, batch %d, %.3f ms per batch)\n",
                100.0 * r.accuracy, r.images, r.backend.c_str(), format_per_second(r.images_per_second).c_str(),
                r.batch, r.batch_latency_ms);
    if (double speedup = cnn_speedup(d.cpu_result, d.cuda_result); speedup > 0.0)
        std::printf("cnn: the GPU classifies %.1fx as many images/s as the CPU\n", speedup);
    std::fflush(stdout);
}

// The finished job's results into the panel's facts.
void finish_job(CnnDemo& d, CnnRunner& r) {
    r.thread.join();
    const CnnJob job = r.job;
    r.job = CnnJob{};
    if (!r.error.empty()) {
        if (job.task == CnnTask::Load) {
            d.load_error = r.error;
            std::fprintf(stderr, "cnn: the demo cannot run: %s\n", r.error.c_str());
            return;
        }
        say(d,
            std::string(job.task == CnnTask::Sweep ? "The batch-size sweep" : "Classify all") + " failed: " + r.error,
            true);
        return;
    }
    switch (job.task) {
    case CnnTask::Load:
        d.load_error = r.load_error;
        d.weights_note = r.weights_note;
        d.cpu_device = r.cpu_device;
        d.cuda_unavailable = r.cuda ? "" : r.cuda_unavailable;
        d.cuda_device = r.cuda_device;
        d.loaded = r.load_error.empty();
        if (!d.loaded) {  // the panel's header shows it
            std::fprintf(stderr, "cnn: the demo cannot run: %s\n", r.load_error.c_str());
            return;
        }
        d.test = r.test;
        d.predicted = std::move(r.predicted);
        d.probabilities = std::move(r.probabilities);
        d.misclassified = cnn_misclassified(d.test->labels, d.predicted);
        d.feature_maps_of = -1;
        std::printf("cnn: %d test images and the weights loaded in %.2f s; %zu misclassified on the CPU; GPU: %s\n",
                    d.test->count, r.seconds, d.misclassified.size(),
                    r.cuda ? d.cuda_device.c_str() : d.cuda_unavailable.c_str());
        std::fflush(stdout);
        break;
    case CnnTask::ClassifyAll:
        if (r.result.cancelled) {
            say(d,
                "Classify all on " + r.result.backend + " cancelled after " + std::to_string(r.result.images) +
                    " images.",
                false);
            return;
        }
        (job.backend == CnnBackend::Cuda ? d.cuda_result : d.cpu_result) = r.result;
        d.confusion_backend = job.backend == CnnBackend::Cuda ? 1 : 0;
        d.message.clear();
        log_classify_all(d, r.result);
        break;
    case CnnTask::Sweep:
        if (r.cancel) {
            say(d, "The batch-size sweep was cancelled.", false);
            return;
        }
        for (const auto* side : {&d.cpu_sweep, &d.cuda_sweep})
            for (const CnnSweepPoint& p : *side)
                std::printf("cnn sweep: %s batch %d: %.4f ms per batch, %s images/s\n",
                            side == &d.cpu_sweep ? "cpu" : "cuda", p.batch, p.batch_latency_ms,
                            format_per_second(p.images_per_second).c_str());
        std::printf("cnn sweep: done in %.1f s\n", r.seconds);
        std::fflush(stdout);
        d.message.clear();
        break;
    case CnnTask::None: break;
    }
}

bool load_waiting(const CnnRunner& r) {
    if (r.job.task == CnnTask::Load) return true;
    return std::any_of(r.queue.begin(), r.queue.end(), [](const CnnJob& j) { return j.task == CnnTask::Load; });
}

}  // namespace

void queue_cnn_job(CnnRunner& runner, const CnnJob& job) { runner.queue.push_back(job); }

bool cnn_demo_busy(const CnnRunner& runner) { return runner.job.task != CnnTask::None || !runner.queue.empty(); }

void carry_out_cnn_demo(CnnDemo& d, CnnRunner& r) {
    // The panel's requests. Loading starts by itself the first time the panel is open.
    const bool never_loaded = !d.loaded && d.load_error.empty();
    if ((d.load || (d.open && never_loaded) || (never_loaded && !r.queue.empty())) && !d.loaded && !load_waiting(r))
        r.queue.push_front(CnnJob{CnnTask::Load});
    if (d.classify_all_cpu) queue_cnn_job(r, {CnnTask::ClassifyAll, CnnBackend::Cpu, d.batch});
    if (d.classify_all_cuda) queue_cnn_job(r, {CnnTask::ClassifyAll, CnnBackend::Cuda, d.batch});
    if (d.start_sweep) queue_cnn_job(r, {CnnTask::Sweep, CnnBackend::Cpu, d.batch});
    if (d.cancel) {
        r.cancel = true;
        r.queue.clear();
    }

    // The running job: sweep points as they come, then its end (`ended` read first, so the
    // last points are copied before finish_job reports the sweep).
    const bool ended = r.job.task != CnnTask::None && r.finished;
    if (r.job.task == CnnTask::Sweep) {
        std::lock_guard<std::mutex> lock(r.mutex);
        for (; r.sweep_seen < r.sweep_partial.size(); ++r.sweep_seen) {
            const auto& [backend, point] = r.sweep_partial[r.sweep_seen];
            (backend == CnnBackend::Cuda ? d.cuda_sweep : d.cpu_sweep).push_back(point);
        }
    }
    if (ended) finish_job(d, r);

    // The next job, once the worker is free. Jobs that need the data wait for a Load; when it
    // failed they are dropped with its reason (the panel shows it too).
    while (r.job.task == CnnTask::None && !r.queue.empty()) {
        CnnJob next = r.queue.front();
        r.queue.pop_front();
        if (next.task != CnnTask::Load && !d.loaded) {
            std::fprintf(stderr, "cnn: cannot %s: %s\n", next.task == CnnTask::Sweep ? "sweep batch sizes" : "classify",
                         d.load_error.empty() ? "nothing is loaded" : d.load_error.c_str());
            continue;
        }
        if (next.task == CnnTask::ClassifyAll && next.backend == CnnBackend::Cuda && !d.cuda_unavailable.empty()) {
            say(d, "Cannot classify on the GPU: " + d.cuda_unavailable, true);
            continue;
        }
        if (next.task == CnnTask::Load) {
            d.loaded = false;
            d.load_error.clear();
            d.test.reset();
        }
        if (next.task == CnnTask::Sweep) {
            d.cpu_sweep.clear();
            d.cuda_sweep.clear();
        }
        start_job(r, next);
    }

    d.task = r.job.task;
    d.task_backend = r.job.backend;
    const long total = r.total;
    d.progress = total > 0 ? std::clamp(double(r.done) / double(total), 0.0, 1.0) : 0.0;

    // The selected image's feature maps (see cnn_runner.h: cheap enough for the main loop).
    if (d.loaded && d.test) {
        d.selected = std::clamp(d.selected, 0, d.test->count - 1);
        if (d.feature_maps_of != d.selected) {
            d.feature_maps.resize(size_t(kCnnConv1Channels) * kCnnPixels);
            cnn_conv1_feature_maps(*r.weights, d.test->image(d.selected), d.feature_maps.data());
            d.feature_maps_of = d.selected;
        }
    }
}

CnnRunner::~CnnRunner() { stop_cnn_runner(*this); }

void stop_cnn_runner(CnnRunner& runner) {
    runner.queue.clear();
    if (!runner.thread.joinable()) return;
    runner.cancel = true;
    runner.thread.join();
    runner.job = CnnJob{};
}

}  // namespace ms
