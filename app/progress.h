// progress.h: the progress bar that long command-line work shows on stderr. On a terminal it
// redraws one line ("label [#######.....]  58%  step"), at most ~10 times a second; otherwise
// (a pipe, a CI log) it prints one plain line per step, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include <unistd.h>

namespace ms {

class ProgressBar {
public:
    explicit ProgressBar(std::string label) : label_(std::move(label)), tty_(::isatty(2) == 1) {}
    ~ProgressBar() { finish(); }

    // fraction in [0, 1]; step names what is being done now. Thread-safe.
    void update(double fraction, const std::string& step = {}) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_) return;
        auto now = std::chrono::steady_clock::now();
        if (tty_) {
            if (fraction < 1.0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
            last_draw_ = now;
            constexpr int kWidth = 30;
            int filled = int(fraction * kWidth + 0.5);
            std::string bar(size_t(filled), '#');
            bar.append(size_t(kWidth - filled), '.');
            std::fprintf(stderr, "\r%s [%s] %3d%%  %-40.40s", label_.c_str(), bar.c_str(), int(fraction * 100 + 0.5),
                         step.c_str());
            std::fflush(stderr);
            drawn_ = true;
        } else if (!step.empty() && step != last_step_) {
            std::fprintf(stderr, "%s: %3d%% %s\n", label_.c_str(), int(fraction * 100 + 0.5), step.c_str());
            last_step_ = step;
        }
    }

    // Ends the bar's line (on a terminal).
    void finish() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_) return;
        finished_ = true;
        if (tty_ && drawn_) std::fprintf(stderr, "\r%*s\r", int(label_.size()) + 80, "");
    }

private:
    std::string label_;
    bool tty_ = false;
    bool drawn_ = false;
    bool finished_ = false;
    std::string last_step_;
    std::chrono::steady_clock::time_point last_draw_{};
    std::mutex mutex_;
};

}  // namespace ms
