// perf_monitor.cpp: the main loop's side of the performance panels: clock marks, the frame's
// facts, and Compare's jobs (see perf_monitor.h).
#include "render/perf/perf_monitor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ms {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Facts that cost a query (the CPU's clock is measured): once, when the panels first open.
void ensure_device_facts(PerfPanelsState& p) {
    if (p.device.facts_ready) return;
    p.device.cuda = query_cuda_system();
    p.device.cpu = query_cpu_info(true);
    p.device.facts_ready = true;
}

// The stages of this frame that the renderer knows: only when it finished a new picture.
void take_render_timings(PerfMonitor& m, const FrameRenderer& r) {
    FrameSample& s = m.sample;
    const bool cuda = r.path == RenderPath::Interop || r.path == RenderPath::Copy;
    if (r.frames_finished != m.frames_finished_seen) {
        m.frames_finished_seen = r.frames_finished;
        m.news_this_frame = true;
        s.rendered = true;
        s.cuda = cuda || r.path == RenderPath::DeepCuda;  // whose throughput the frame measures
        s.iterations = r.timings.iterations;
        s.skipped_iterations = r.timings.skipped_iterations;
        s.stage_ms[size_t(FrameStage::Compute)] = r.timings.compute_ms;
        s.host_launch_ms = cuda ? r.timings.host_launch_ms : kNoSample;
        if (r.path == RenderPath::Interop) s.stage_ms[size_t(FrameStage::Interop)] = r.timings.interop_ms;
        if (cuda) s.stage_ms[size_t(FrameStage::Upload)] = r.timings.upload_ms;
    }
    // The CPU path uploads its rows on many frames while it works.
    if (r.path == RenderPath::Cpu && r.rows_upload_ms > 0.0) s.stage_ms[size_t(FrameStage::Upload)] = r.rows_upload_ms;
}

void file_compare_result(PerfMonitor& m) {
    ComparePanelState& c = m.panels.compare;
    const CompareStatus& job = c.status;
    m.compare_filed = true;
    m.news_this_frame = true;
    if (!job.error.empty()) {
        std::fprintf(stderr, "mandelscope: compare: %s\n", job.error.c_str());
        return;
    }
    CompareRecord r;
    r.view_number = ++m.views_compared;
    r.zoom = job.view.zoom.value();
    r.iterations = int(std::min<int64_t>(job.view.max_iterations, INT32_MAX));  // window views: direct kernels
    r.width = job.view.width;
    r.height = job.view.height;
    r.precision = precision_name(job.precision);
    r.cpu_ms = job.cpu_ms;
    r.cuda_ms = job.cuda_ms;
    r.agreement = job.agreement;
    r.agree = job.agree;
    constexpr size_t kMaxHistory = 1000;
    if (c.history.size() >= kMaxHistory) c.history.erase(c.history.begin());
    c.history.push_back(r);
    record_throughput(m.panels.timings.timeline, true, job.cuda_iterations, job.cuda_skipped, job.cuda_ms);
    record_throughput(m.panels.timings.timeline, false, job.cpu_iterations, job.cpu_skipped, job.cpu_ms);
    if (!job.agree)
        std::fprintf(stderr, "mandelscope: compare: the CPU and CUDA frames of view %d disagree: %s\n", r.view_number,
                     job.disagreement.c_str());
}

// Compare: a job per view, started once the window shows it, cancelled when the view moves on.
void update_compare(PerfMonitor& m, const View& view, Precision requested, const FrameRenderer& r,
                    const PaletteTable& palette) {
    ComparePanelState& c = m.panels.compare;
    if (c.clear_history) {
        c.history.clear();
        ring_clear(c.ui_ms_while_comparing);
    }
    c.unavailable = r.cuda_unavailable;  // CUDA cannot render here: nothing to compare with
    if (!c.enabled || !c.unavailable.empty()) {
        if (m.compare_id && !m.compare_filed) cancel_compare(m.compare_worker);
        m.compare_has_view = false;  // switched on again, it compares the view on screen
        m.compare_id = 0;
        c.waiting_for_view = false;
        c.status.running = false;
        return;
    }
    const Precision precision = resolve_precision(view, requested);  // deep views compare the deep paths
    if (!m.compare_has_view || !same_computation(view, m.compare_view) || precision != m.compare_precision) {
        if (m.compare_id && !m.compare_filed) cancel_compare(m.compare_worker);  // stale: the view moved on
        m.compare_has_view = true;
        m.compare_view = view;
        m.compare_precision = precision;
        m.compare_view_since = now_seconds();
        m.compare_id = 0;
        c.waiting_for_view = true;
        c.status = CompareStatus{};
    }
    // Started once the window has had the view on screen for a moment: a drag or a zoom
    // animation is compared where it stops (not at every frame on the way, where its CUDA half
    // would queue behind the window's own frames), and the CPU never competes with the window's
    // own CPU frame.
    constexpr double kSettle_s = 0.25;
    if (c.waiting_for_view && r.complete && now_seconds() - m.compare_view_since >= kSettle_s) {
        m.compare_id = request_compare(m.compare_worker, view, requested, palette);
        m.compare_filed = false;
        c.waiting_for_view = false;
    }
    if (m.compare_id == 0) return;
    CompareStatus status = poll_compare(m.compare_worker);
    if (status.id != m.compare_id) {  // not picked up yet
        status = CompareStatus{};
        status.id = m.compare_id;
        status.running = true;
    }
    c.status = status;
    if (status.finished && !m.compare_filed) file_compare_result(m);
}

}  // namespace

void start_perf_monitor(PerfMonitor& m, bool open, bool compare, PerfTab tab) {
    init_frame_timeline(m.panels.timings.timeline);
    m.panels.open = open;
    m.panels.tab = tab;
    m.panels.select_tab = true;
    m.panels.compare.enabled = compare;
    start_compare_worker(m.compare_worker);
}

void stop_perf_monitor(PerfMonitor& m) { stop_compare_worker(m.compare_worker); }

void perf_mark(PerfMonitor& m, PerfMark mark) {
    const double t = now_seconds();
    FrameMarks& k = m.marks;
    switch (mark) {
    case PerfMark::FrameStart:
        k = FrameMarks{};
        k.frame_start = t;
        m.sample = FrameSample{};
        m.news_this_frame = false;
        break;
    case PerfMark::RenderStart: k.render_start = t; break;
    case PerfMark::RenderEnd: k.render_end = t; break;
    case PerfMark::UiBuilt: k.ui_built = t; break;
    case PerfMark::DrawDataStart: k.draw_data_start = t; break;
    case PerfMark::DrawDataEnd: k.draw_data_end = t; break;
    case PerfMark::SwapStart: k.swap_start = t; break;
    case PerfMark::SwapEnd: {
        k.swap_end = t;
        FrameSample& s = m.sample;
        s.stage_ms[size_t(FrameStage::Ui)] = ui_stage_ms(k);
        s.stage_ms[size_t(FrameStage::Present)] = present_stage_ms(k);
        s.panel_ms = m.panels.open ? m.panels.draw_ms : kNoSample;
        const double frame_ms = m.previous_frame_start > 0.0 ? 1e3 * (k.frame_start - m.previous_frame_start)
                                                             : kNoSample;
        m.previous_frame_start = k.frame_start;
        record_ui_frame(m.panels.timings.timeline, s, frame_ms);
        // The 30 fps promise: UI frames while Compare's CPU render runs in the background.
        const CompareStatus& job = m.panels.compare.status;
        if (job.running && job.cuda_done && !job.cpu_done && !std::isnan(frame_ms))
            ring_push(m.panels.compare.ui_ms_while_comparing, frame_ms);
        // The statistics behind the tables, for the next frame's panels: ~10 times a second,
        // and at once when this frame brought news.
        constexpr double kSummaryInterval_s = 0.1;
        if (m.news_this_frame || t - m.summary_time >= kSummaryInterval_s) {
            m.summary_time = t;
            m.panels.timings.summary = summarize_timeline(m.panels.timings.timeline);
            m.panels.compare.ui_while_comparing = sample_stats(m.panels.compare.ui_ms_while_comparing);
        }
        break;
    }
    }
}

void update_perf_monitor(PerfMonitor& m, const View& view, Precision precision, const FrameRenderer& r,
                         const PaletteTable& palette) {
    PerfPanelsState& p = m.panels;
    take_render_timings(m, r);
    update_compare(m, view, precision, r, palette);
    if (p.open) ensure_device_facts(p);
    TimingsPanelState& t = p.timings;
    t.path = r.path;
    t.precision = r.precision_used;
    t.deep = is_deep_path(r.path) && r.deep_status.complete;
    t.deep_stats = r.deep_status.stats;
    if (p.device.facts_ready) {
        const int device = std::clamp(p.device.device, 0, std::max(0, int(p.device.cuda.devices.size()) - 1));
        t.cuda_limit = p.device.cuda.devices.empty()
                           ? IterationLimit{}
                           : cuda_iteration_limit(p.device.cuda.devices[size_t(device)], r.precision_used);
        t.cpu_limit = cpu_fast_iteration_limit(p.device.cpu, r.precision_used);
    }
    DevicePanelState& d = p.device;
    d.cuda_unavailable = r.cuda_unavailable;
    d.interop_unavailable = r.interop_unavailable;
    d.precision = r.precision_used;
    // The steps run: the estimates are about what the hardware can step (a deep frame's BLA
    // skips would make either side look faster than its peak).
    d.cuda_iterations_per_second = t.summary.cuda_steps_per_second;
    d.cpu_iterations_per_second = t.summary.cpu_steps_per_second;
}

bool perf_settled(const PerfMonitor& m) {
    const ComparePanelState& c = m.panels.compare;
    const bool compare_done = !c.enabled || !c.unavailable.empty() || (m.compare_id != 0 && m.compare_filed);
    return compare_done && !(m.panels.open && m.news_this_frame);
}

std::string perf_compare_log(const PerfMonitor& m) {
    const ComparePanelState& c = m.panels.compare;
    if (!c.enabled) return {};
    if (!c.unavailable.empty()) return "compare: unavailable: " + c.unavailable + "\n";
    if (!c.status.error.empty()) return "compare: failed: " + c.status.error + "\n";
    if (c.history.empty()) return "compare: no view compared\n";
    std::string log = "compare: " + compare_summary(c.history.back()) + "\n";
    const SampleStats ui = sample_stats(c.ui_ms_while_comparing);
    if (ui.count > 0) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "compare: UI while the CPU compared: median %.1f fps, slowest %.1f fps (%d frames)\n",
                      1000.0 / ui.median, 1000.0 / ui.max, ui.count);
        log += line;
    }
    return log;
}

}  // namespace ms
