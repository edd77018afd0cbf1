// panel_perf.h: the performance panels, one "Performance" window with a Compare
// switch on top and three tabs, each drawn by its own function over plain state:
//   draw_timings_panel  (panel_timings.cpp)  where each frame's time goes, rolling plot,
//                                            min/median/p95, iterations/s against the limit,
//                                            and the unsynchronised host timer, labelled wrong
//   draw_speedup_panel  (panel_speedup.cpp)  Compare: the view on the CPU and on CUDA, the
//                                            speedup per view and whether the frames agree
//   draw_device_panel   (panel_device.cpp)   the GPU and the CPU side by side, every CUDA
//                                            attribute, the napkin estimates against measurements
// As for panels.h: the main loop fills the facts (render/perf/perf_monitor.h does it for the
// explorer), the panels only show them, edit settings in place and raise requests.
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "compute/perf/perf_model.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"
#include "compute/system/text_format.h"
#include "render/frame/frame_renderer.h"
#include "render/perf/compare_worker.h"
#include "render/perf/perf_stats.h"

namespace ms {

// ---- Device (panel_device.cpp) -------------------------------------------------------------
struct DevicePanelState {
    // Filled once, when the panel is first shown (query_cpu_info measures the clock, which takes
    // a calibration loop).
    bool facts_ready = false;
    CudaSystemInfo cuda;
    CpuInfo cpu;
    // Filled every frame.
    std::string cuda_unavailable;             // the renderer's: why CUDA does not render here ("" if it does)
    std::string interop_unavailable;          // the renderer's: why CUDA cannot share the GL buffer
    Precision precision = Precision::Fp64;    // the current view's: estimates and measurements use it
    double cuda_iterations_per_second = NAN;  // measured here: median of the last frames of each path
    double cpu_iterations_per_second = NAN;
    // The panel's own.
    std::string filter;
    int device = 0;  // which device's attributes are listed
};
void draw_device_panel(DevicePanelState& state);

// ---- Frame timings (panel_timings.cpp) -----------------------------------------------------
struct TimingsPanelState {
    FrameTimeline timeline;   // recorded by the main loop every frame (the plot)
    TimelineSummary summary;  // its statistics, refreshed ~10 times a second (the tables)
    // Facts of the latest frame.
    RenderPath path = RenderPath::None;
    Precision precision = Precision::Fp64;
    IterationLimit cuda_limit;  // iterations/s each path can issue (compute/perf/perf_model.h);
    IterationLimit cpu_limit;   // 0 when unknown
    bool deep = false;          // a deep path: its last frame's parts (reference, BLA, pixels)
    DeepFrameStats deep_stats;
    // The panel's own.
    std::array<bool, kFrameStages> hidden{};  // plot series the legend switched off, per stage
};
void draw_timings_panel(TimingsPanelState& state);

// ---- Speedup: Compare (panel_speedup.cpp) --------------------------------------------------
struct ComparePanelState {
    bool enabled = false;                // the switch (edited in place by the window's checkbox)
    std::string unavailable;             // why Compare cannot run here; "" when it can
    CompareStatus status;                // the job of the current view (or the last one)
    bool waiting_for_view = false;       // the view is still moving or being rendered: the job starts
                                         // once it has stood still on screen for a moment
    std::vector<CompareRecord> history;  // one per compared view, oldest first
    SampleRing ui_ms_while_comparing = make_sample_ring(600);  // UI frame times while a job runs (the 30 fps promise)
    SampleStats ui_while_comparing;                            // its statistics, refreshed with the timings' summary
    // The panel's own.
    std::array<bool, 3> hidden{};  // plot series the legend switched off: speedup, CPU ms, CUDA ms
    // Requests.
    bool clear_history = false;
};
void draw_speedup_panel(ComparePanelState& state);

// ---- The window ----------------------------------------------------------------------------
enum class PerfTab { Timings, Speedup, Device };
const char* perf_tab_name(PerfTab tab);  // "timings", "speedup", "device"

struct PerfPanelsState {
    bool open = false;
    PerfTab tab = PerfTab::Timings;  // the tab to bring to the front (--perf-tab) ...
    bool select_tab = true;          // ... while this is set (cleared once it is shown)
    bool raise = false;              // request: bring the Performance tab of the column to the front
    DevicePanelState device;
    TimingsPanelState timings;
    ComparePanelState compare;
    double draw_ms = 0.0;  // this window's own drawing time, last frame
};
// The "Performance" tab of the right column (when open and the column is drawn, panel_layout.h):
// Compare switch, then its own tabs. Times itself into draw_ms.
void draw_perf_panels(PerfPanelsState& state, bool in_column);

std::string format_rate(double iterations_per_second);  // "2.50e12 it/s", "-" when NaN
std::string format_speedup(double times);               // "2.4x", "677x", "8330x", "-" when NaN

}  // namespace ms
