// perf_stats.cpp: rings, statistics and the attribute filter of the performance panels
// (see perf_stats.h).
#include "render/perf/perf_stats.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace ms {

SampleRing make_sample_ring(int capacity) {
    SampleRing r;
    r.capacity = capacity;
    return r;
}

void ring_clear(SampleRing& r) {
    r.values.clear();
    r.next = 0;
}

void ring_push(SampleRing& r, double value) {
    if (r.capacity <= 0) return;
    if (int(r.values.size()) < r.capacity) {
        r.values.push_back(value);
        return;
    }
    r.values[size_t(r.next)] = value;
    r.next = (r.next + 1) % r.capacity;
}

int ring_size(const SampleRing& r) { return int(r.values.size()); }

std::vector<double> ring_values(const SampleRing& r) {
    std::vector<double> out;
    out.reserve(r.values.size());
    // Until the ring is full, `next` is 0 and values are already oldest first.
    for (size_t i = 0; i < r.values.size(); ++i) out.push_back(r.values[(size_t(r.next) + i) % r.values.size()]);
    return out;
}

double ring_latest(const SampleRing& r) {
    const size_t n = r.values.size();
    for (size_t i = 0; i < n; ++i) {
        // Newest first: the one just before `next`.
        double v = r.values[(size_t(r.next) + n - 1 - i) % n];
        if (!std::isnan(v)) return v;
    }
    return kNoSample;
}

SampleStats sample_stats(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
    SampleStats s;
    s.count = int(values.size());
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    s.min = values.front();
    s.max = values.back();
    s.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    // Nearest rank: the smallest value with at least 95% of the values at or below it.
    size_t rank = size_t(std::ceil(0.95 * double(n)));
    s.p95 = values[std::clamp<size_t>(rank, 1, n) - 1];
    return s;
}

SampleStats sample_stats(const SampleRing& ring) { return sample_stats(ring.values); }

const char* frame_stage_name(FrameStage stage) {
    switch (stage) {
    case FrameStage::Compute: return "compute";
    case FrameStage::Interop: return "map+unmap";
    case FrameStage::Upload: return "upload";
    case FrameStage::Ui: return "UI";
    case FrameStage::Present: return "present";
    }
    return "?";
}

void init_frame_timeline(FrameTimeline& t, int ui_frames, int rendered_frames, int throughput_frames) {
    t = FrameTimeline{};
    for (SampleRing& r : t.stages) r.capacity = ui_frames;
    t.frame_ms.capacity = ui_frames;
    t.panel_ms.capacity = ui_frames;
    for (SampleRing* r : {&t.compute_ms, &t.host_launch_ms, &t.render_interop_ms, &t.render_upload_ms})
        r->capacity = rendered_frames;
    for (SampleRing* r : {&t.cuda_iterations_per_second, &t.cpu_iterations_per_second, &t.cuda_steps_per_second,
                          &t.cpu_steps_per_second, &t.cuda_skipped_fraction, &t.cpu_skipped_fraction})
        r->capacity = throughput_frames;
}

double iterations_per_second(uint64_t iterations, double ms) {
    if (iterations == 0 || !(ms > 0.0)) return kNoSample;
    return double(iterations) / (ms * 1e-3);
}

void record_throughput(FrameTimeline& t, bool cuda, uint64_t iterations, uint64_t skipped_iterations,
                       double compute_ms) {
    const double rate = iterations_per_second(iterations, compute_ms);
    if (std::isnan(rate)) return;
    const uint64_t steps = iterations - std::min(skipped_iterations, iterations);
    ring_push(cuda ? t.cuda_iterations_per_second : t.cpu_iterations_per_second, rate);
    ring_push(cuda ? t.cuda_steps_per_second : t.cpu_steps_per_second, double(steps) / (compute_ms * 1e-3));
    ring_push(cuda ? t.cuda_skipped_fraction : t.cpu_skipped_fraction, 1.0 - double(steps) / double(iterations));
}

ThroughputFigures throughput_figures(double steps_per_second, double iterations_per_second, double skipped_fraction,
                                     const IterationLimit& limit) {
    ThroughputFigures f;
    f.steps_per_second = steps_per_second;
    f.effective_per_second = iterations_per_second;
    f.skipped_fraction = std::isnan(skipped_fraction) ? 0.0 : skipped_fraction;
    if (!std::isnan(steps_per_second)) f.percent_of_limit = percent_of_limit(steps_per_second, limit);
    return f;
}

void record_ui_frame(FrameTimeline& t, const FrameSample& s, double frame_ms) {
    for (int i = 0; i < kFrameStages; ++i) ring_push(t.stages[size_t(i)], s.stage_ms[size_t(i)]);
    ring_push(t.frame_ms, frame_ms);
    ring_push(t.panel_ms, s.panel_ms);
    ++t.ui_frames;
    if (!s.rendered) return;
    ++t.rendered_frames;
    ring_push(t.compute_ms, s.stage_ms[size_t(FrameStage::Compute)]);
    ring_push(t.host_launch_ms, s.cuda ? s.host_launch_ms : kNoSample);
    ring_push(t.render_interop_ms, s.stage_ms[size_t(FrameStage::Interop)]);
    ring_push(t.render_upload_ms, s.stage_ms[size_t(FrameStage::Upload)]);
    record_throughput(t, s.cuda, s.iterations, s.skipped_iterations, s.stage_ms[size_t(FrameStage::Compute)]);
}

TimelineSummary summarize_timeline(const FrameTimeline& t) {
    TimelineSummary s;
    s.compute_ms = sample_stats(t.compute_ms);
    s.interop_ms = sample_stats(t.render_interop_ms);
    s.upload_ms = sample_stats(t.render_upload_ms);
    s.ui_ms = sample_stats(t.stages[size_t(FrameStage::Ui)]);
    s.present_ms = sample_stats(t.stages[size_t(FrameStage::Present)]);
    s.frame_ms = sample_stats(t.frame_ms);
    s.host_launch_ms = sample_stats(t.host_launch_ms);
    s.panel_ms = sample_stats(t.panel_ms);
    s.latest_compute_ms = ring_latest(t.compute_ms);
    s.latest_interop_ms = ring_latest(t.render_interop_ms);
    s.latest_upload_ms = ring_latest(t.render_upload_ms);
    s.latest_ui_ms = ring_latest(t.stages[size_t(FrameStage::Ui)]);
    s.latest_present_ms = ring_latest(t.stages[size_t(FrameStage::Present)]);
    s.latest_frame_ms = ring_latest(t.frame_ms);
    s.cuda_iterations_per_second = sample_stats(t.cuda_iterations_per_second).median;
    s.cpu_iterations_per_second = sample_stats(t.cpu_iterations_per_second).median;
    s.cuda_steps_per_second = sample_stats(t.cuda_steps_per_second).median;
    s.cpu_steps_per_second = sample_stats(t.cpu_steps_per_second).median;
    s.cuda_skipped_fraction = sample_stats(t.cuda_skipped_fraction).median;
    s.cpu_skipped_fraction = sample_stats(t.cpu_skipped_fraction).median;
    return s;
}

double ui_stage_ms(const FrameMarks& m) {
    return 1e3 *
           ((m.ui_built - m.frame_start) - (m.render_end - m.render_start) + (m.draw_data_end - m.draw_data_start));
}

double present_stage_ms(const FrameMarks& m) { return 1e3 * (m.swap_end - m.swap_start); }

double compare_speedup(const CompareRecord& r) {
    if (!(r.cpu_ms > 0.0) || !(r.cuda_ms > 0.0)) return kNoSample;
    return r.cpu_ms / r.cuda_ms;
}

std::string compare_summary(const CompareRecord& r) {
    char line[160];
    const double speedup = compare_speedup(r);
    // Speedups of thousands read better without decimals; below 10, one decimal says more.
    std::snprintf(line, sizeof line, "cpu %.1f ms, cuda %.*f ms, speedup %.*fx, %s %.2f%%", r.cpu_ms,
                  r.cuda_ms < 10.0 ? 2 : 1, r.cuda_ms, speedup < 10.0 ? 1 : 0, speedup, r.agree ? "agree" : "DISAGREE",
                  100.0 * r.agreement);
    return line;
}

bool same_computation(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom && a.formula == b.formula &&
           a.julia == b.julia && a.julia_re == b.julia_re && a.julia_im == b.julia_im &&
           a.max_iterations == b.max_iterations && a.width == b.width && a.height == b.height;
}

std::vector<int> filter_attributes(const std::vector<std::pair<std::string, int>>& attributes,
                                   const std::string& filter) {
    auto lower = [](std::string s) {
        for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    std::vector<std::string> words;
    std::istringstream in(lower(filter));
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<int> out;
    for (int i = 0; i < int(attributes.size()); ++i) {
        const std::string name = lower(attributes[size_t(i)].first);
        if (std::all_of(words.begin(), words.end(),
                        [&](const std::string& w) { return name.find(w) != std::string::npos; }))
            out.push_back(i);
    }
    return out;
}

}  // namespace ms
