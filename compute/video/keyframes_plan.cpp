// keyframes_plan.cpp: frames along the keyframes' flight paths (see keyframes_plan.h).
#include "compute/video/keyframes_plan.h"

#include <algorithm>
#include <cmath>

namespace ms {

namespace {

// The segment that holds `time_s` (clamped) and the share f of it.
size_t segment_at(const KeyframePlan& plan, double time_s, double* f) {
    const std::vector<Keyframe>& k = plan.keyframes;
    time_s = std::clamp(time_s, k.front().time_s, k.back().time_s);
    // The first segment whose end is at or after time_s: a time on a keyframe ends its segment
    // (f = 1), which gives that keyframe exactly.
    size_t i = 0;
    while (i + 2 < k.size() && time_s > k[i + 1].time_s) ++i;
    *f = std::clamp((time_s - k[i].time_s) / (k[i + 1].time_s - k[i].time_s), 0.0, 1.0);
    return i;
}

int64_t interpolate_iterations(int64_t a, int64_t b, double f) {
    if (f <= 0.0) return a;
    if (f >= 1.0) return b;
    const double value = std::exp((1.0 - f) * std::log(double(a)) + f * std::log(double(b)));
    return std::clamp<int64_t>(std::llround(value), std::min(a, b), std::max(a, b));
}

}  // namespace

std::string make_keyframe_plan(const std::vector<Keyframe>& keyframes, const View& base, double fps, double rho,
                               KeyframePlan* out) {
    if (std::string problem = validate_keyframes(keyframes); !problem.empty()) return problem;
    if (!(fps > 0.0) || fps > kKeyframesMaxFps)
        return "The frame rate must be above 0 and at most 240 frames a second.";
    KeyframePlan plan;
    plan.base = base;
    plan.keyframes = keyframes;
    plan.fps = fps;
    for (size_t i = 0; i + 1 < keyframes.size(); ++i) {
        FlightPath path;
        if (std::string problem = make_flight_path(keyframes[i], keyframes[i + 1], base.width, base.height, rho, &path);
            !problem.empty())
            return problem;
        plan.segments.push_back(std::move(path));
    }
    const double frames = std::round(fps * keyframe_plan_seconds(plan));
    if (frames < 2.0)
        return "The keyframes span too short a time for two frames at this frame rate.";
    if (frames > 1e8) return "The keyframes span more than 100 million frames at this frame rate.";
    plan.frame_count = int64_t(frames);
    *out = std::move(plan);
    return "";
}

double keyframe_plan_seconds(const KeyframePlan& plan) {
    return plan.keyframes.back().time_s - plan.keyframes.front().time_s;
}

double keyframe_plan_frame_time(const KeyframePlan& plan, int64_t frame) {
    if (frame <= 0) return plan.keyframes.front().time_s;
    if (frame >= plan.frame_count - 1) return plan.keyframes.back().time_s;
    return plan.keyframes.front().time_s +
           keyframe_plan_seconds(plan) * double(frame) / double(plan.frame_count - 1);
}

View keyframe_plan_view_at(const KeyframePlan& plan, double time_s) {
    double f = 0.0;
    const size_t i = segment_at(plan, time_s, &f);
    const FlightPath& path = plan.segments[i];
    const FlightPoint point = flight_point(path, f);
    View view = plan.base;
    view.center_re = point.center_re;
    view.center_im = point.center_im;
    view.zoom = point.zoom;
    view.max_iterations = interpolate_iterations(path.a.max_iterations, path.b.max_iterations, f);
    view.palette_offset = f >= 1.0 ? path.b.palette_offset
                                   : path.a.palette_offset + f * (path.b.palette_offset - path.a.palette_offset);
    return view;
}

View keyframe_plan_frame(const KeyframePlan& plan, int64_t frame) {
    return keyframe_plan_view_at(plan, keyframe_plan_frame_time(plan, frame));
}

std::vector<View> keyframe_plan_frames(const KeyframePlan& plan) {
    std::vector<View> views;
    views.reserve(size_t(plan.frame_count));
    for (int64_t k = 0; k < plan.frame_count; ++k) views.push_back(keyframe_plan_frame(plan, k));
    return views;
}

std::string keyframe_times_by_length(std::vector<Keyframe>* keyframes, const View& base, double seconds, double rho) {
    if (keyframes->size() < 2) return "A keyframed path needs at least two keyframes.";
    if (!(seconds > 0.0) || !std::isfinite(seconds)) return "The video's length must be a positive number of seconds.";
    std::vector<double> lengths;
    double total = 0.0;
    for (size_t i = 0; i + 1 < keyframes->size(); ++i) {
        FlightPath path;
        if (std::string problem = make_flight_path((*keyframes)[i], (*keyframes)[i + 1], base.width, base.height, rho, &path);
            !problem.empty())
            return problem;
        lengths.push_back(path.length);
        total += path.length;
    }
    double weights = 0.0;
    for (double& length : lengths) {
        length = total > 0.0 ? std::max(length, 0.01 * total) : 1.0;
        weights += length;
    }
    double t = 0.0;
    (*keyframes)[0].time_s = 0.0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        t += seconds * lengths[i] / weights;
        (*keyframes)[i + 1].time_s = i + 2 == keyframes->size() ? seconds : t;
    }
    return "";
}

}  // namespace ms
