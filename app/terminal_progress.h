// terminal_progress.h: a progress bar on stderr for long command-line work. On a terminal it
// redraws one line ("label [#######.....] 58%  suffix"), at most every 100 ms; when stderr is
// not a terminal (CI logs, pipes) it prints a plain line at every 25% instead.
#pragma once

#include <chrono>
#include <string>

namespace ms {

struct TerminalProgress {
    std::string label;
    bool tty = false;                 // set by progress_begin
    int last_quarter = -1;            // non-tty: last 25% step printed
    std::chrono::steady_clock::time_point last_draw{};
    bool drawn = false;
};

TerminalProgress progress_begin(const std::string& label);
// fraction in [0, 1]; suffix is shown after the percentage ("loss 0.312  acc 88.9%").
void progress_update(TerminalProgress& bar, double fraction, const std::string& suffix = "");
// Clears the bar and prints `final_line` (if not empty) on its own line.
void progress_end(TerminalProgress& bar, const std::string& final_line = "");

}  // namespace ms
