// terminal_progress.cpp: the stderr progress bar of terminal_progress.h.
#include "app/terminal_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ms {

namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

TerminalProgress progress_begin(const std::string& label) {
    TerminalProgress bar;
    bar.label = label;
    bar.tty = isatty(STDERR_FILENO) == 1;
    return bar;
}

void progress_update(TerminalProgress& bar, double fraction, const std::string& suffix) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    const int percent = int(fraction * 100.0);
    if (!bar.tty) {
        const int quarter = int(fraction * 4.0);
        if (quarter == bar.last_quarter || quarter == 0) return;
        bar.last_quarter = quarter;
        std::fprintf(stderr, "%s %3d%%  %s\n", bar.label.c_str(), percent, suffix.c_str());
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (bar.drawn && fraction < 1.0 && now - bar.last_draw < kRedrawInterval) return;
    bar.last_draw = now;
    bar.drawn = true;
    const int filled = int(fraction * kBarWidth);
    std::string cells(size_t(filled), '#');
    cells.append(size_t(kBarWidth - filled), '.');
    std::fprintf(stderr, "\r\033[K%s [%s] %3d%%  %s", bar.label.c_str(), cells.c_str(), percent,
                 suffix.c_str());
    std::fflush(stderr);
}

void progress_end(TerminalProgress& bar, const std::string& final_line) {
    if (bar.tty && bar.drawn) std::fprintf(stderr, "\r\033[K");
    if (!final_line.empty()) std::fprintf(stderr, "%s\n", final_line.c_str());
    std::fflush(stderr);
    bar.drawn = false;
}

}  // namespace ms
