// progress.h: the one progress bar that long command-line work (render, bench, cnn train/eval)
// shows on stderr. On a terminal it redraws one line, at most ~10 times a second:
//     bench [##########....................]  34%  seahorse valley 4K: CUDA fp32, shortcuts off
// Elsewhere (a pipe, a CI log) it prints a plain line when the work starts, each time it passes
// another quarter (25%, 50%, 75%, 100%), and at least every 10 s in between, so logs stay
// short even when the status changes at every step, and a long job shows life from its start.
//
// update() may be called from worker threads (direct_cpu's progress hook does). The bar
// clears its line when finished or destroyed, so an exception never leaves it half drawn.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace ms {

class ProgressBar {
public:
    explicit ProgressBar(std::string label);
    ~ProgressBar() { finish(); }
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    // fraction in [0, 1] (clamped); status says what is being done now ("band 3 of 12",
    // "loss 0.312  acc 88.9%"). Thread-safe.
    void update(double fraction, const std::string& status = {});

    // Clears the bar's line so that the caller can print a result on a clean line; the next
    // update() draws the bar again. Thread-safe.
    void clear();

    // Clears the bar's line, then prints `final_line` (if not empty) on its own line. Later
    // updates are ignored.
    void finish(const std::string& final_line = {});

private:
    std::string label_;
    bool tty_ = false;
    bool drawn_ = false;
    bool finished_ = false;
    int last_quarter_ = -1;                              // not a terminal: the last quarter printed (-1: nothing yet)
    std::chrono::steady_clock::time_point last_line_{};  // not a terminal: when it last printed
    std::chrono::steady_clock::time_point last_draw_{};
    std::mutex mutex_;
};

}  // namespace ms
