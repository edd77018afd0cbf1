// cmd_cnn_eval.cpp: `mandelscope cnn eval`: runs the test images through each chosen backend
// (cnn_evaluate) and prints accuracy, images/s with napkin math, time per layer, the confusion
// matrix, and how far the backends' logits are apart. Optional logits dump and JSON figures
// (tests/demos/cnn_pytorch_compare.py reads both).
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/modes/cmd_cnn.h"
#include "app/modes/progress.h"
#include "compute/system/number_text.h"
#include "compute/cnn/cnn_eval.h"
#include "compute/cnn/cnn_weights_file.h"
#include "compute/io/image_io.h"
#include "compute/system/text_format.h"

namespace ms {

namespace {

constexpr const char* kWho = "mandelscope cnn eval";
// The largest side of a conv tiling the kernels support (compute/cnn/cnn_cuda.h: up to 4x16).
constexpr int kCnnMaxConvTiling = 16;
// Multiply-adds per image: conv1 28*28*16*9, conv2 14*14*32*144, fc1 1568*64, fc2 64*10.
constexpr double kMacsPerImage = 112896.0 + 903168.0 + 100352.0 + 640.0;
constexpr double kFlopsPerImage = 2.0 * kMacsPerImage;  // 2.23 MFLOP

struct Run {
    CnnEvalResult result;
    bool ran = false;
    std::string skipped;  // why not, when !ran
};

void print_result(const CnnEvalResult& r) {
    std::printf("\n%s (%s), batch %d: accuracy %.2f%% (%d of %d)%s\n", r.backend.c_str(), r.device.c_str(), r.batch,
                100.0 * r.accuracy, r.correct, r.images, r.cancelled ? " [cancelled]" : "");
    const bool gpu = r.backend.rfind("cuda", 0) == 0;
    const double tflops = r.compute_ms > 0 ? r.images * kFlopsPerImage / (r.compute_ms * 1e-3) / 1e12 : 0;
    if (gpu) {
        std::printf("  kernels:     %s images/s (%.3f ms for %d images; %.1f GFLOP -> %.1f TFLOP/s FP32)\n",
                    format_per_second(r.compute_images_per_second).c_str(), r.compute_ms, r.images,
                    r.images * kFlopsPerImage / 1e9, tflops);
        std::printf("  with copies: %s images/s (%.3f ms; %.1f MB in as bytes, %.2f MB of logits out)\n",
                    format_per_second(r.images_per_second).c_str(), r.wall_ms, r.images * 784.0 / 1e6,
                    r.images * 40.0 / 1e6);
    } else {
        std::printf("  %s images/s (%.3f ms for %d images; %.1f GFLOP -> %.1f GFLOP/s)\n",
                    format_per_second(r.images_per_second).c_str(), r.wall_ms, r.images,
                    r.images * kFlopsPerImage / 1e9, tflops * 1e3);
    }
    if (r.batch_latency_ms < 1.0)
        std::printf("  median call of %d image%s: %.1f us (%.3f us per image)\n", r.batch, r.batch == 1 ? "" : "s",
                    r.batch_latency_ms * 1e3, r.batch_latency_ms * 1e3 / r.batch);
    else
        std::printf("  median call of %d images: %.3f ms (%.3f us per image)\n", r.batch, r.batch_latency_ms,
                    r.batch_latency_ms * 1e3 / r.batch);
    double sum = 0.0;
    for (const CnnLayerTime& l : r.layers) sum += l.ms;
    std::printf("  time per %s:", gpu ? "stage (CUDA events)" : "layer");
    for (const CnnLayerTime& l : r.layers)
        std::printf("  %s %.3f ms (%.0f%%)", l.name.c_str(), l.ms, sum > 0 ? 100.0 * l.ms / sum : 0.0);
    std::printf("\n");
}

void print_confusion(const CnnEvalResult& r) {
    std::printf("\nConfusion matrix (%s; rows: true class, columns: predicted):\n%-12s", r.backend.c_str(), "");
    for (int c = 0; c < kCnnClasses; ++c) std::printf(" %5.5s", kFashionMnistClassNames[c]);
    std::printf("  correct\n");
    for (int t = 0; t < kCnnClasses; ++t) {
        std::printf("%-12s", kFashionMnistClassNames[t]);
        int row = 0;
        for (int p = 0; p < kCnnClasses; ++p) {
            std::printf(" %5d", r.confusion[t][p]);
            row += r.confusion[t][p];
        }
        std::printf("  %6.1f%%\n", row ? 100.0 * r.confusion[t][t] / row : 0.0);
    }
}

// Max |logit difference| and differing predictions against the first backend that ran.
void print_agreement(const std::vector<Run>& runs) {
    const Run* base = nullptr;
    for (const Run& run : runs) {
        if (!run.ran || run.result.logits.empty()) continue;
        if (!base) {
            base = &run;
            continue;
        }
        const std::vector<float>& a = base->result.logits;
        const std::vector<float>& b = run.result.logits;
        double max_diff = 0.0;
        int differ = 0;
        for (size_t i = 0; i < a.size(); ++i) max_diff = std::max(max_diff, double(std::fabs(a[i] - b[i])));
        for (size_t n = 0; n < a.size() / kCnnClasses; ++n)
            differ += cnn_argmax(&a[n * kCnnClasses]) != cnn_argmax(&b[n * kCnnClasses]);
        std::printf(
            "%s against %s: max |logit difference| %.2e (tolerance 1e-4), %d different "
            "predictions\n",
            run.result.backend.c_str(), base->result.backend.c_str(), max_diff, differ);
    }
}

// Through the shared atomic writer: all or nothing, and the error as a sentence.
std::string write_logits(const std::string& path, const CnnEvalResult& r, int count) {
    count = std::min(count, r.images);
    std::string text = "# mandelscope cnn eval logits: backend " + r.backend + ", " + std::to_string(count) +
                       " images, " + std::to_string(kCnnClasses) + " logits per line\n";
    char value[32];
    for (int n = 0; n < count; ++n)
        for (int c = 0; c < kCnnClasses; ++c) {
            std::snprintf(value, sizeof value, "%.9g%c", r.logits[size_t(n) * kCnnClasses + c],
                          c + 1 == kCnnClasses ? '\n' : ' ');
            text += value;
        }
    try {
        AtomicFile file(path);
        file.write(text.data(), text.size());
        file.commit();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

nlohmann::json to_json(const Run& run, const std::string& backend) {
    nlohmann::json j;
    j["backend"] = backend;
    if (!run.ran) {
        j["skipped"] = run.skipped;
        return j;
    }
    const CnnEvalResult& r = run.result;
    j["device"] = r.device;
    j["images"] = r.images;
    j["accuracy"] = r.accuracy;
    j["batch"] = r.batch;
    j["wall_ms"] = r.wall_ms;
    j["images_per_second"] = r.images_per_second;
    j["compute_ms"] = r.compute_ms;
    j["compute_images_per_second"] = r.compute_images_per_second;
    j["batch_latency_ms"] = r.batch_latency_ms;
    for (const CnnLayerTime& l : r.layers) j["layers_ms"][l.name] = l.ms;
    return j;
}

}  // namespace

int run_cnn_eval(const CnnEvalArgs& a) {
    // Not sscanf's %d, which wraps 99999999999 silently: the one size parser.
    int tiling_images = 0, tiling_channels = 0;
    if (!a.conv_tiling.empty() &&
        !parse_size_text(a.conv_tiling, kCnnMaxConvTiling, &tiling_images, &tiling_channels).empty()) {
        std::fprintf(stderr, "%s: --conv-tiling wants IMAGESxCHANNELS from 1x1 to %dx%d such as 4x8, not '%s'.\n", kWho,
                     kCnnMaxConvTiling, kCnnMaxConvTiling, a.conv_tiling.c_str());
        return 2;
    }
    // A CUDA backend asked for by name, where none can run: say why now, as bad input. (With
    // --backend=all the CUDA rows are skipped with the same reason.)
    if (a.backend == "cuda" || a.backend == "cuda-unfused") {
        if (std::string reason; !cnn_cuda_available(&reason)) {
            std::fprintf(stderr, "%s: cannot run on CUDA: %s.\n", kWho, reason.c_str());
            return 2;
        }
    }
    // Output paths are checked before minutes of work, not after.
    for (const std::string* path : {&a.json, &a.dump_logits}) {
        if (path->empty()) continue;
        if (const std::string problem = check_writable(*path); !problem.empty()) {
            std::fprintf(stderr, "%s: %s.\n", kWho, problem.c_str());
            return 2;
        }
    }
    CnnWeights weights;
    FashionMnist test;
    std::string provenance, weights_path;
    try {
        weights_path = a.weights.empty() ? cnn_default_weights_path().string() : a.weights;
        weights = cnn_load_weights(weights_path, &provenance);
        test = load_fashion_mnist(a.data_dir, FashionMnistSplit::Test, a.limit);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kWho, e.what());
        return 2;
    }
    std::printf("Weights: %s\n  (%s)\nTest images: %d\n", weights_path.c_str(), provenance.c_str(), test.count);

    std::vector<std::string> backends;
    if (a.backend == "all") backends = {"cpu", "cuda", "cuda-unfused"};
    else backends = {a.backend};
    const bool compare = backends.size() > 1;

    std::vector<Run> runs(backends.size());
    CnnCudaHandle cuda;
    for (size_t i = 0; i < backends.size(); ++i) {
        const std::string& name = backends[i];
        CnnEvalOptions o;
        o.batch = std::min(a.batch, test.count);
        o.passes = a.passes;
        o.threads = a.threads;
        o.keep_logits = compare || !a.dump_logits.empty();
        o.backend = name == "cpu"             ? CnnBackend::Cpu
                    : name == "cpu-reference" ? CnnBackend::CpuReference
                                              : CnnBackend::Cuda;
        o.cuda_variant = name == "cuda-unfused" ? CnnCudaVariant::Unfused : CnnCudaVariant::Fused;
        try {
            if (o.backend == CnnBackend::Cuda) {
                std::string reason;
                if (!cnn_cuda_available(&reason)) {
                    runs[i].skipped = reason;
                    std::printf("\n%s: not run: %s\n", name.c_str(), reason.c_str());
                    continue;
                }
                if (!cuda) {
                    cuda = cnn_cuda_create(weights, o.batch);
                    if (tiling_images) cnn_cuda_set_conv_tiling(*cuda, tiling_images, tiling_channels);
                }
                o.cuda = cuda.get();
            }
            ProgressBar bar(name + " batch " + std::to_string(o.batch));
            o.on_progress = [&](int done, int total) {
                bar.update(double(done) / total, std::to_string(done) + " of " + std::to_string(total) + " images");
            };
            runs[i].result = cnn_evaluate(weights, test, o);
            runs[i].ran = true;
            bar.finish();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s: %s\n", kWho, name.c_str(), e.what());
            return 1;
        }
        print_result(runs[i].result);
    }

    const Run* first = nullptr;
    for (const Run& run : runs)
        if (run.ran && !first) first = &run;
    if (first) print_confusion(first->result);
    if (compare) {
        std::printf("\n");
        print_agreement(runs);
    }
    if (!a.dump_logits.empty() && first) {
        if (const std::string problem = write_logits(a.dump_logits, first->result, a.dump_count); !problem.empty()) {
            std::fprintf(stderr, "%s: %s.\n", kWho, problem.c_str());
            return 1;
        }
        std::printf("Wrote the logits of %d images (%s) to %s\n", std::min(a.dump_count, first->result.images),
                    first->result.backend.c_str(), a.dump_logits.c_str());
    }
    if (!a.json.empty()) {
        nlohmann::json j;
        j["weights"] = weights_path;
        for (size_t i = 0; i < runs.size(); ++i) j["runs"].push_back(to_json(runs[i], backends[i]));
        const std::string text = j.dump(2) + "\n";
        try {
            AtomicFile file(a.json);  // checks every write and the final flush
            file.write(text.data(), text.size());
            file.commit();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s.\n", kWho, e.what());
            return 1;
        }
    }
    return first ? 0 : 1;
}

}  // namespace ms
