// progress.h: the one progress bar that long command-line work (render, bench, cnn train/eval)
// shows on stderr. On a terminal it redraws one line, at most ~10 times a second:
//     bench [##########....................]  34%  seahorse valley 4K: CUDA fp32, shortcuts off
// Elsewhere (a pipe, a CI log) it prints a plain line each time the work passes another quarter
// (25%, 50%, 75%, 100%), so logs stay short even when the status changes at every step.
//
// update() may be called from worker threads (mandelbrot_cpu's progress hook does). The bar
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
    int last_quarter_ = 0;  // not a terminal: the last quarter printed
    std::chrono::steady_clock::time_point last_draw_{};
    std::mutex mutex_;
};

}  // namespace ms
