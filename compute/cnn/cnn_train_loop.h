// cnn_train_loop.h: the training bookkeeping that the CPU trainer (cnn_train.cpp) and the CUDA
// trainer (cnn_train_cuda.cu) share, written once: the seeded shuffle and augmentation of each
// epoch, the cosine learning-rate schedule, cancelling, progress reports and the per-epoch
// statistics. A backend supplies only what differs: how a minibatch is trained and how the test
// set is scored. Both trainers therefore see the same image order, augmentation and learning
// rates for the same seed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "compute/cnn/cnn_train.h"

namespace ms {

struct CnnTrainSteps {
    // Before each epoch's steps: that epoch's order of the training images and their
    // augmentation codes (kCnnAugmentIdentity for all when options.augment is off).
    std::function<void(const std::vector<int>& order, const std::vector<uint8_t>& augmentation)> start_epoch;
    // One minibatch, the images order[first, first + count), trained at learning rate `lr`;
    // `step` counts the optimiser's steps over the whole run from 1. Returns the batch's summed
    // loss and sets *correct to its number of right predictions.
    std::function<double(int first, int count, float lr, int64_t step, int* correct)> train_batch;
    // After an epoch's last step (optional; the CUDA trainer waits for its stream here).
    std::function<void()> finish_epoch;
    // Accuracy on the test set after an epoch, 0..1 (optional: without it, -1 is reported).
    std::function<double()> test_accuracy;
};

// Runs options.epochs epochs over `train_count` images: fills result->epochs and
// result->cancelled, and result->seconds as the time since `start` (the backend's setup counts).
// The weights are the backend's to put into result->weights.
void cnn_run_training(int train_count, const CnnTrainOptions& options, const CnnTrainSteps& steps,
                      std::chrono::steady_clock::time_point start, CnnTrainResult* result);

}  // namespace ms
