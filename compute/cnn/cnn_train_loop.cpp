// cnn_train_loop.cpp: epochs, minibatches, the learning-rate schedule and the statistics, for
// both trainers (cnn_train_loop.h).
#include "compute/cnn/cnn_train_loop.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace ms {

void cnn_run_training(int train_count, const CnnTrainOptions& options, const CnnTrainSteps& steps,
                      std::chrono::steady_clock::time_point start, CnnTrainResult* result) {
    using Clock = std::chrono::steady_clock;
    CnnRng shuffle_rng{options.seed ^ 0x5EEDF00Dull};
    CnnRng augment_rng{options.seed ^ 0xA06E0000ull};
    std::vector<int> order(train_count);
    std::iota(order.begin(), order.end(), 0);
    std::vector<uint8_t> augmentation(train_count, kCnnAugmentIdentity);

    const int batches = (train_count + options.batch - 1) / options.batch;
    const int64_t total_steps = int64_t(batches) * options.epochs;
    int64_t global_step = 0;
    for (int epoch = 1; epoch <= options.epochs; ++epoch) {
        const Clock::time_point epoch_start = Clock::now();
        for (int i = train_count - 1; i > 0; --i)  // Fisher-Yates with our own generator
            std::swap(order[i], order[shuffle_rng.next_below(uint32_t(i + 1))]);
        if (options.augment)
            for (uint8_t& code : augmentation) code = cnn_random_augmentation(augment_rng, options.max_shift);
        steps.start_epoch(order, augmentation);
        CnnEpochStats stats;
        stats.epoch = epoch;
        double loss_sum = 0.0;
        int seen = 0, correct = 0;
        for (int batch = 0; batch < batches; ++batch) {
            if (options.cancel && options.cancel->load()) {
                result->cancelled = true;
                break;
            }
            const int first = batch * options.batch;
            const int n = std::min(options.batch, train_count - first);
            // Cosine decay over the whole run (from the full rate to zero).
            const double progress = double(global_step) / double(total_steps);
            const float lr = float(options.learning_rate * 0.5 * (1.0 + std::cos(M_PI * progress)));
            int batch_correct = 0;
            loss_sum += steps.train_batch(first, n, lr, ++global_step, &batch_correct);
            seen += n;
            correct += batch_correct;
            stats.learning_rate = lr;
            if (options.on_step)
                options.on_step({epoch, options.epochs, batch + 1, batches, loss_sum / seen, double(correct) / seen});
        }
        if (seen == 0) break;
        if (steps.finish_epoch) steps.finish_epoch();
        stats.train_loss = loss_sum / seen;
        stats.train_accuracy = double(correct) / seen;
        stats.seconds = std::chrono::duration<double>(Clock::now() - epoch_start).count();
        if (steps.test_accuracy) stats.test_accuracy = steps.test_accuracy();
        result->epochs.push_back(stats);
        if (options.on_epoch) options.on_epoch(stats);
        if (result->cancelled) break;
    }
    result->seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace ms
