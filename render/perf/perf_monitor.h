// perf_monitor.h: what the explorer's main loop does for the performance panels, in one struct
// and a few calls, so the loop gains only a handful of lines:
//
//   PerfMonitor perf;
//   start_perf_monitor(perf, open, compare);
//   while (...) {
//       perf_mark(perf, PerfMark::FrameStart);               // before ImGui::NewFrame
//       ... draw_perf_panels(perf.panels) with the other panels ...
//       perf_mark(perf, PerfMark::RenderStart);  update_frame_renderer(...);  perf_mark(perf, PerfMark::RenderEnd);
//       update_perf_monitor(perf, view, precision, renderer, palette);  // facts, requests, Compare
//       ImGui::Render();  perf_mark(perf, PerfMark::UiBuilt);
//       ... the same around RenderDrawData (DrawDataStart/End) and glfwSwapBuffers (SwapStart/End)
//   }
//   stop_perf_monitor(perf);
//
// SwapEnd closes the frame: its stages go into the timeline (perf_stats.h). Compare runs on its
// own thread (compare_worker.h); this starts a job once the window has the new view on screen,
// cancels it when the view moves on, and files the result.
#pragma once

#include <cstdint>
#include <string>

#include "render/frame/frame_renderer.h"
#include "render/perf/compare_worker.h"
#include "render/perf/panel_perf.h"
#include "render/perf/perf_stats.h"

namespace ms {

enum class PerfMark { FrameStart, RenderStart, RenderEnd, UiBuilt, DrawDataStart, DrawDataEnd, SwapStart, SwapEnd };

struct PerfMonitor {
    PerfPanelsState panels;
    CompareWorker compare_worker;
    FrameMarks marks;  // this frame's, seconds on the steady clock
    double previous_frame_start = 0.0;
    uint64_t frames_finished_seen = 0;  // the renderer's counter at the last frame recorded
    FrameSample sample;                 // this frame's stages, filled by update_perf_monitor
    bool news_this_frame = false;       // a new picture or Compare result arrived after the panels drew
    double summary_time = 0.0;          // when the panels' statistics were last computed (seconds)
    // Compare: the view it is about, and its job.
    bool compare_has_view = false;
    View compare_view;
    Precision compare_precision = Precision::Fp64;
    double compare_view_since = 0.0;  // when compare_view became the view (seconds)
    uint64_t compare_id = 0;          // the job for compare_view; 0: not started yet
    bool compare_filed = false;       // its result is in the history
    int views_compared = 0;
};

void start_perf_monitor(PerfMonitor& monitor, bool open, bool compare, PerfTab tab = PerfTab::Timings);
void stop_perf_monitor(PerfMonitor& monitor);
void perf_mark(PerfMonitor& monitor, PerfMark mark);
// After update_frame_renderer: the frame's facts for the panels, their requests, Compare's
// bookkeeping (`precision` is the one asked for; Auto is resolved per view like the renderer's).
void update_perf_monitor(PerfMonitor& monitor, const View& view, Precision precision, const FrameRenderer& renderer,
                         const PaletteTable& palette);
// --screenshot waits for this: Compare is off, unavailable, or done with the current view, and
// the panels drawn this frame already show the latest picture's timings and Compare's result
// (they draw before the renderer runs, so news shows one frame later).
bool perf_settled(const PerfMonitor& monitor);
// The lines --screenshot logs: "compare: cpu 812.3 ms, cuda 1.20 ms, speedup 677x, agree 100.00%"
// or "compare: unavailable: <reason>", then the UI's frame rate while the CPU compared.
// Empty when Compare is off.
std::string perf_compare_log(const PerfMonitor& monitor);

}  // namespace ms
