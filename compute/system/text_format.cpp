// text_format.cpp: see text_format.h.
#include "compute/system/text_format.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ms {

namespace {

std::string printed(const char* format, double value) {
    char text[48];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

}  // namespace

std::string format_duration_ms(double ms) {
    if (std::isnan(ms)) return "-";
    const double us = ms * 1e3;
    if (us < 1.0) return printed("%.3g ns", us * 1e3);
    if (us < 1e3) return printed("%.3g \u00b5s", us);
    if (ms < 1e3) return printed("%.3g ms", ms);
    return printed("%.3g s", ms * 1e-3);
}

std::string format_per_second(double per_second) {
    if (std::isnan(per_second)) return "-";
    if (per_second >= 1e6) return printed("%.2fM", per_second / 1e6);
    if (per_second >= 1e3) return printed("%.1fk", per_second / 1e3);
    return printed("%.0f", per_second);
}

std::string printf_text(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(length > 0 ? size_t(length) : 0, '\0');
    if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    return text;
}

}  // namespace ms
