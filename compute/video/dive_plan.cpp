// dive_plan.cpp: the straight dive's frames (dive_plan.h).
#include "compute/video/dive_plan.h"

#include <cmath>

namespace ms {

std::string check_dive(const DiveSettings& settings) {
    if (settings.fps < 1 || settings.fps > kVideoMaxFps)
        return "--fps must be between 1 and " + std::to_string(kVideoMaxFps) + " (got " +
               std::to_string(settings.fps) + ")";
    const bool by_doubling = settings.seconds_per_doubling != 0.0;
    if (by_doubling && settings.seconds != 0.0) return "give either --seconds or --seconds-per-doubling, not both";
    if (by_doubling && !(settings.seconds_per_doubling > 0.0 && std::isfinite(settings.seconds_per_doubling)))
        return "--seconds-per-doubling must be a positive number of seconds";
    if (!by_doubling && !(settings.seconds > 0.0 && std::isfinite(settings.seconds)))
        return "--seconds must be a positive number of seconds";
    if (std::string problem = validate_view(settings.target); !problem.empty()) return problem;
    if (!settings.from_zoom.is_valid() || settings.from_zoom.log10() < std::log10(kMinZoom))
        return "--from-zoom must be a zoom of at least " + ViewZoom(kMinZoom).text();
    if (!(settings.from_zoom.log10() < settings.target.zoom.log10()))
        return "the dive starts at zoom " + settings.from_zoom.text() + ", which is not below the location's zoom " +
               settings.target.zoom.text() + " (use a smaller --from-zoom)";
    const double frames = double(settings.fps) *
                          (by_doubling ? settings.seconds_per_doubling *
                                             (settings.target.zoom.log10() - settings.from_zoom.log10()) / std::log10(2.0)
                                       : settings.seconds);
    if (!(frames < double(kVideoMaxFrames)))
        return "the video would have more than " + std::to_string(kVideoMaxFrames) + " frames";
    if (std::llround(frames) < 2) return "the video needs at least 2 frames (fps x seconds is below 1.5)";
    return {};
}

int64_t dive_frame_count(const DiveSettings& settings) {
    double seconds = settings.seconds;
    if (settings.seconds_per_doubling > 0.0)
        seconds = settings.seconds_per_doubling * (settings.target.zoom.log10() - settings.from_zoom.log10()) /
                  std::log10(2.0);
    return std::max<int64_t>(2, std::llround(double(settings.fps) * seconds));
}

ViewZoom dive_zoom(const ViewZoom& from, const ViewZoom& to, double t) {
    if (t <= 0.0) return from;
    if (t >= 1.0) return to;
    // log10(zoom) = exponent10 + log10(mantissa): the exponents' difference is an exact integer,
    // so the step keeps double's relative precision whatever the depth.
    const DeepZoom a = from.deep(), b = to.deep();
    const double log_a = std::log10(a.mantissa);
    const double span = double(b.exponent10 - a.exponent10) + (std::log10(b.mantissa) - log_a);
    const double step = t * span;
    const double whole = std::floor(step);
    double fraction = (step - whole) + log_a;  // in [0, 2)
    int64_t exponent10 = a.exponent10 + int64_t(whole);
    const double carry = std::floor(fraction);
    exponent10 += int64_t(carry);
    fraction -= carry;
    double mantissa = std::pow(10.0, fraction);
    if (mantissa >= 10.0) {
        mantissa /= 10.0;
        ++exponent10;
    }
    if (mantissa < 1.0) mantissa = 1.0;
    return ViewZoom::from_deep(DeepZoom{mantissa, exponent10});
}

std::vector<View> plan_dive(const DiveSettings& settings) {
    const int64_t n = dive_frame_count(settings);
    std::vector<View> plan(size_t(n), settings.target);
    for (int64_t k = 0; k + 1 < n; ++k)
        plan[size_t(k)].zoom = dive_zoom(settings.from_zoom, settings.target.zoom, double(k) / double(n - 1));
    return plan;
}

}  // namespace ms
