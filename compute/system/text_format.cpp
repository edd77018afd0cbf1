// text_format.cpp: see text_format.h.
#include "compute/system/text_format.h"

#include <cmath>
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

}  // namespace ms
