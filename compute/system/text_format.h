// text_format.h: numbers as people read them, shared by the command-line modes and the panels
// so a figure reads the same in the terminal and in the window.
#pragma once

#include <string>

namespace ms {

// A duration in the unit that reads best, three significant digits: "85 ns", "4.2 µs",
// "1.23 ms", "2.5 s"; "-" for NaN (not measured).
std::string format_duration_ms(double ms);

// A rate with a k or M suffix: "13.78M", "178.6k", "950"; "-" for NaN.
std::string format_per_second(double per_second);

// printf into a std::string, of any length (formulas, table rows, panel facts).
std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ms
