// cmd_cnn.h: the two halves of `mandelscope cnn` (cmd_cnn.cpp parses and trains,
// cmd_cnn_eval.cpp evaluates). Internal to app/.
#pragma once

#include <cstdint>
#include <string>

namespace ms {

struct CnnTrainArgs {
    int epochs = 15;
    std::string backend = "cpu";  // cpu | cuda
    std::string out = "fashion_mnist.msw";
    uint64_t seed = 1;
    int limit = 0;  // 0 = all 60,000 training images
    int batch = 64;
    float learning_rate = 1e-3f;
    int threads = 0;
    bool no_augment = false;
    int max_shift = 0;     // augmentation shifts (pixels)
    std::string data_dir;  // empty = /usr/share/datasets/fashion-mnist
};

struct CnnEvalArgs {
    std::string backend = "all";  // cpu | cuda | cuda-unfused | cpu-reference | all
    int batch = 1000;
    std::string weights;  // empty = assets/cnn/fashion_mnist.msw
    std::string data_dir;
    int limit = 0;  // 0 = all 10,000 test images
    int passes = 1;
    int threads = 0;
    std::string conv_tiling;  // "4x8": force the CUDA conv tiling (benchmarks)
    std::string dump_logits;  // file: logits of the first dump_count images (text)
    int dump_count = 100;
    std::string json;  // file: the figures as JSON
};

int run_cnn_train(const CnnTrainArgs& args);  // exit status
int run_cnn_eval(const CnnEvalArgs& args);    // exit status

}  // namespace ms
