// cmd_cnn.cpp: `mandelscope cnn train|eval`: the command line of the Fashion-MNIST network,
// and training (evaluation is in cmd_cnn_eval.cpp).
//
//   mandelscope cnn train [--epochs=N] [--backend=cpu|cuda] [--out=FILE] [--seed=S] [--limit=N]
//                         [--batch=N] [--lr=X] [--threads=N] [--data=DIR]
//   mandelscope cnn eval  [--backend=cpu|cuda|cuda-unfused|cpu-reference|all] [--batch=N]
//                         [--weights=FILE] [--data=DIR] [--limit=N] [--passes=N] ...
#include <omp.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "app/modes/cmd_cnn.h"
#include "app/commands.h"
#include "app/modes/progress.h"
#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_gemm.h"
#include "compute/cnn/cnn_train.h"
#include "compute/cnn/cnn_weights_file.h"
#include "compute/cnn/fashion_mnist.h"
#include "compute/io/image_io.h"
#include "compute/system/text_format.h"

namespace ms {

int run_cnn_train(const CnnTrainArgs& a) {
    const char* who = "mandelscope cnn train";
    const CnnBackend backend = a.backend == "cuda" ? CnnBackend::Cuda : CnnBackend::Cpu;
    std::string reason;
    if (backend == CnnBackend::Cuda && !cnn_cuda_available(&reason)) {
        std::fprintf(stderr, "%s: cannot train on CUDA: %s.\n", who, reason.c_str());
        return 2;
    }
    // The weights file is written after minutes of training: check its path first.
    if (const std::string problem = check_writable(a.out); !problem.empty()) {
        std::fprintf(stderr, "%s: %s.\n", who, problem.c_str());
        return 2;
    }
    FashionMnist train, test;
    try {
        train = load_fashion_mnist(a.data_dir, FashionMnistSplit::Train, a.limit);
        test = load_fashion_mnist(a.data_dir, FashionMnistSplit::Test);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        return 2;
    }
    const int threads = a.threads > 0 ? a.threads : omp_get_max_threads();
    const std::string device = backend == CnnBackend::Cuda
                                   ? cnn_cuda_device_name()
                                   : cnn_cpu_simd_target() + " x " + std::to_string(threads) + " threads";
    std::printf(
        "Training on %d Fashion-MNIST images (%s: %s): %d epochs, batch %d, Adam lr %g "
        "with cosine decay, seed %llu, %s\n",
        train.count, cnn_backend_name(backend), device.c_str(), a.epochs, a.batch, double(a.learning_rate),
        static_cast<unsigned long long>(a.seed),
        a.no_augment  ? "no augmentation"
        : a.max_shift ? ("random flips and shifts of up to " + std::to_string(a.max_shift) + " px").c_str()
                      : "random horizontal flips");
    std::fflush(stdout);

    CnnTrainOptions options;
    options.backend = backend;
    options.epochs = a.epochs;
    options.batch = a.batch;
    options.learning_rate = a.learning_rate;
    options.seed = a.seed;
    options.threads = a.threads;
    options.augment = !a.no_augment;
    options.max_shift = a.max_shift;
    std::optional<ProgressBar> bar;  // one per epoch
    options.on_step = [&](const CnnTrainProgress& p) {
        if (p.step == 1 || !bar) bar.emplace("epoch " + std::to_string(p.epoch) + "/" + std::to_string(p.epochs));
        bar->update(double(p.step) / p.steps, printf_text("loss %.4f  acc %.2f%%", p.loss, 100.0 * p.accuracy));
    };
    options.on_epoch = [&](const CnnEpochStats& s) {
        bar.reset();
        std::printf("epoch %2d/%d  loss %.4f  train %.2f%%  test %.2f%%  lr %.2e  %.1f s\n", s.epoch, a.epochs,
                    s.train_loss, 100.0 * s.train_accuracy, 100.0 * s.test_accuracy, s.learning_rate, s.seconds);
        std::fflush(stdout);
    };
    CnnTrainResult result;
    try {
        result = cnn_train(train, &test, options);
    } catch (const std::exception& e) {
        bar.reset();
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        return 1;
    }
    const double test_accuracy = result.epochs.empty() ? 0.0 : result.epochs.back().test_accuracy;
    char provenance[512];
    std::snprintf(provenance, sizeof provenance,
                  "mandelscope cnn train --epochs=%d --batch=%d --lr=%g --seed=%llu%s%s%s "
                  "(backend %s: %s); %d training images; test accuracy %.2f%%; %.1f s; "
                  "Mandelscope %s",
                  a.epochs, a.batch, double(a.learning_rate), static_cast<unsigned long long>(a.seed),
                  a.limit > 0 ? (" --limit=" + std::to_string(a.limit)).c_str() : "",
                  a.no_augment ? " --no-augment" : "",
                  a.max_shift ? (" --shift=" + std::to_string(a.max_shift)).c_str() : "", cnn_backend_name(backend),
                  device.c_str(), train.count, 100.0 * test_accuracy, result.seconds, MANDELSCOPE_VERSION);
    try {
        cnn_save_weights(a.out, result.weights, provenance);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        return 1;
    }
    std::printf("Wrote %s: test accuracy %.2f%%, training took %.1f s (%.1f min)\n", a.out.c_str(),
                100.0 * test_accuracy, result.seconds, result.seconds / 60.0);
    return 0;
}

int run_cnn_command(int argc, char** argv) {
    CLI::App app{"The small CNN on Fashion-MNIST: train it, evaluate it on the CPU and the GPU.", "cnn"};
    app.require_subcommand(1);

    CnnTrainArgs t;
    CLI::App* train = app.add_subcommand("train",
                                         "Train the network with our own code and "
                                         "write its weights file.");
    train->add_option("--epochs", t.epochs, "passes over the training images")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    train->add_option("--backend", t.backend, "where to train")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    train->add_option("--out", t.out, "weights file to write")->capture_default_str();
    train->add_option("--seed", t.seed, "seed of the initial weights and the shuffling")->capture_default_str();
    train->add_option("--limit", t.limit, "train on the first N images only (0 = all)")->check(CLI::Range(0, 60000));
    train->add_option("--batch", t.batch, "minibatch size")->check(CLI::Range(1, 4096))->capture_default_str();
    train->add_option("--lr", t.learning_rate, "Adam's initial learning rate")
        ->check(CLI::Range(1e-6, 1.0))
        ->capture_default_str();
    train->add_option("--threads", t.threads, "CPU threads (0 = all cores)")->check(CLI::Range(0, 1024));
    train->add_flag("--no-augment", t.no_augment, "train without random horizontal flips");
    train->add_option("--shift", t.max_shift, "also shift training images randomly by up to N pixels (0..2)")
        ->check(CLI::Range(0, 2))
        ->capture_default_str();
    train->add_option("--data", t.data_dir,
                      "folder with the Fashion-MNIST .gz files "
                      "(default /usr/share/datasets/fashion-mnist)");

    CnnEvalArgs e;
    CLI::App* eval = app.add_subcommand("eval",
                                        "Classify the 10,000 test images: accuracy, "
                                        "confusion matrix, images/s, time per layer.");
    eval->add_option("--backend", e.backend,
                     "cpu, cuda (fused kernels), cuda-unfused, "
                     "cpu-reference (slow), or all (cpu and both cuda)")
        ->check(CLI::IsMember({"cpu", "cuda", "cuda-unfused", "cpu-reference", "all"}))
        ->capture_default_str();
    eval->add_option("--batch", e.batch, "images per forward call")->check(CLI::Range(1, 60000))->capture_default_str();
    eval->add_option("--weights", e.weights, "weights file (default assets/cnn/fashion_mnist.msw)");
    eval->add_option("--data", e.data_dir,
                     "folder with the Fashion-MNIST .gz files "
                     "(default /usr/share/datasets/fashion-mnist)");
    eval->add_option("--limit", e.limit, "evaluate the first N test images only (0 = all)")
        ->check(CLI::Range(0, 10000));
    eval->add_option("--passes", e.passes, "timed passes over the images (median reported)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    eval->add_option("--threads", e.threads, "CPU threads (0 = all cores)")->check(CLI::Range(0, 1024));
    eval->add_option("--conv-tiling", e.conv_tiling,
                     "CUDA conv tiling IMAGESxCHANNELS, e.g. 4x8 (default: by batch size)");
    eval->add_option("--dump-logits", e.dump_logits,
                     "write the logits of the first --dump-count images to this text file");
    eval->add_option("--dump-count", e.dump_count, "images in the logits dump")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    eval->add_option("--json", e.json, "write the figures to this JSON file");

    // CLI11 would only say "a subcommand is required" for `cnn bogus`: name the culprit.
    if (argc >= 2 && argv[1][0] != '-' && std::string(argv[1]) != "train" && std::string(argv[1]) != "eval") {
        std::fprintf(stderr,
                     "mandelscope cnn: unknown subcommand '%s' (expected train or eval; "
                     "see --help)\n",
                     argv[1]);
        return 2;
    }
    const int rc = parse_command_line(app, argc, argv);
    if (rc >= 0) return rc;
    return train->parsed() ? run_cnn_train(t) : run_cnn_eval(e);
}

}  // namespace ms
