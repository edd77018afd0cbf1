// progress.cpp: the stderr progress bar of progress.h: thread-safe, cleaned up when it ends,
// redrawn in place with the terminal escape "clear to end of line" on a terminal, and written
// as quarter-step lines to a log.
#include "app/modes/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ms {

namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr auto kQuietInterval = std::chrono::seconds(10);  // not a terminal: a line at least this often
}  // namespace

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), tty_(isatty(STDERR_FILENO) == 1) {}

void ProgressBar::update(double fraction, const std::string& status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    fraction = std::clamp(fraction, 0.0, 1.0);
    const int percent = int(fraction * 100.0 + 0.5);
    if (!tty_) {
        const int quarter = int(fraction * 4.0);
        const auto now = std::chrono::steady_clock::now();
        if (quarter <= last_quarter_ && now - last_line_ < kQuietInterval) return;
        last_quarter_ = std::max(quarter, last_quarter_);
        last_line_ = now;
        std::fprintf(stderr, "%s %3d%%  %s\n", label_.c_str(), percent, status.c_str());
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && fraction < 1.0 && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    drawn_ = true;
    const int filled = int(fraction * kBarWidth);
    std::string cells(size_t(filled), '#');
    cells.append(size_t(kBarWidth - filled), '.');
    // \r back to the line's start, ESC[K clears what a longer previous status left behind.
    std::fprintf(stderr, "\r\033[K%s [%s] %3d%%  %s", label_.c_str(), cells.c_str(), percent, status.c_str());
    std::fflush(stderr);
}

void ProgressBar::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tty_ && drawn_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
    drawn_ = false;
}

void ProgressBar::finish(const std::string& final_line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
    if (!final_line.empty()) std::fprintf(stderr, "%s\n", final_line.c_str());
    std::fflush(stderr);
}

}  // namespace ms
