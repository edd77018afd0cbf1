// perf_stats.h: the plain bookkeeping behind the performance panels, with no ImGui and no GL, so
// tests/perf/test_render_perf_stats.cpp checks it headless:
//   SampleRing      the last N values of one measurement (oldest dropped first)
//   sample_stats    min / median / p95 / max of a ring, skipping NaN ("did not happen")
//   FrameTimeline   one ring per frame stage (compute, map+unmap, upload, UI, present) over the
//                   last UI frames, rings over the last rendered frames, iterations per second
//   filter_attributes  the device panel's filter box over CUDA's attribute list
//
// How a frame is recorded: the main loop measures its stages and calls record_ui_frame() once
// per UI frame; stages that did not run that frame (no new view: no compute) are NaN, so the
// rolling plot shows gaps and the statistics skip them.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compute/fractal/view/view.h"
#include "compute/perf/perf_model.h"

namespace ms {

inline constexpr double kNoSample = NAN;  // a stage that did not run this frame

struct SampleRing {
    int capacity = 300;
    std::vector<double> values;  // storage, at most `capacity`; ring order from `next`
    int next = 0;                // where the next value goes once full
};

SampleRing make_sample_ring(int capacity);
void ring_push(SampleRing& ring, double value);
void ring_clear(SampleRing& ring);
int ring_size(const SampleRing& ring);
// The values oldest first.
std::vector<double> ring_values(const SampleRing& ring);
// The newest value that is not NaN; NaN when there is none.
double ring_latest(const SampleRing& ring);

struct SampleStats {
    int count = 0;  // values that are not NaN
    double min = NAN;
    double median = NAN;  // the mean of the two middle values for an even count
    double p95 = NAN;     // nearest rank: the ceil(0.95 * count)-th smallest value
    double max = NAN;
};
SampleStats sample_stats(const SampleRing& ring);
SampleStats sample_stats(std::vector<double> values);

// The stages of a UI frame, in the order they happen.
enum class FrameStage { Compute, Interop, Upload, Ui, Present };
inline constexpr int kFrameStages = 5;
const char* frame_stage_name(FrameStage stage);  // "compute", "map+unmap", "upload", "UI", "present"

// One UI frame's measurements, milliseconds; NaN where the stage did not run.
struct FrameSample {
    std::array<double, kFrameStages> stage_ms{kNoSample, kNoSample, kNoSample, kNoSample, kNoSample};
    bool rendered = false;              // a new picture was finished this frame (compute is its time)
    bool cuda = false;                  // ... by a CUDA path (else the CPU path)
    double host_launch_ms = kNoSample;  // CUDA: host clock around the launch, no sync (wrong)
    uint64_t iterations = 0;            // of the finished picture
    uint64_t skipped_iterations = 0;    // of those, skipped by BLA (deep frames; see record_throughput)
    double panel_ms = kNoSample;        // time spent drawing the performance panels this frame
};

struct FrameTimeline {
    // Over the last UI frames (the rolling plot): every stage, NaN where it did not run.
    std::array<SampleRing, kFrameStages> stages;
    SampleRing frame_ms;  // UI frame to UI frame
    SampleRing panel_ms;  // the performance panels' own drawing time
    // Over the last rendered frames (kept while the view stands still, when no UI frame renders).
    SampleRing compute_ms;      // events (CUDA) or wall time (CPU)
    SampleRing host_launch_ms;  // CUDA frames: the unsynchronised host timer, NaN on the CPU
    SampleRing render_interop_ms;
    SampleRing render_upload_ms;
    // The last frames of each path (the window's and Compare's): iterations per second (the
    // pixels' progress, BLA's skipped iterations included), steps per second (the work run) and
    // the share of iterations BLA skipped (0 on the direct paths).
    SampleRing cuda_iterations_per_second;
    SampleRing cpu_iterations_per_second;
    SampleRing cuda_steps_per_second;
    SampleRing cpu_steps_per_second;
    SampleRing cuda_skipped_fraction;
    SampleRing cpu_skipped_fraction;
    uint64_t ui_frames = 0;
    uint64_t rendered_frames = 0;
};

// Sets every ring's capacity: `ui_frames` for the per-UI-frame rings, `rendered_frames` for the
// per-rendered-frame ones, `throughput_frames` for iterations per second.
void init_frame_timeline(FrameTimeline& timeline, int ui_frames = 300, int rendered_frames = 300,
                         int throughput_frames = 16);
void record_ui_frame(FrameTimeline& timeline, const FrameSample& sample, double frame_ms);
// One frame's throughput, from the window's frames or from outside them (Compare's renders).
// `iterations` is what the pixels advanced, `skipped_iterations` the part of it BLA skipped (a
// deep frame's DeepFrameStats::bla_iterations; 0 on the direct paths). The rest was stepped one
// iteration at a time (a deep frame's perturbation_steps), and "% of the limit" divides only
// that: the limit is what the cores can step, and a deep frame whose BLA skipped most of its
// iterations would otherwise claim several times the hardware's peak.
void record_throughput(FrameTimeline& timeline, bool cuda, uint64_t iterations, uint64_t skipped_iterations,
                       double compute_ms);

// Iterations per second of `iterations` done in `ms`; NaN when either is 0.
double iterations_per_second(uint64_t iterations, double ms);

// What the panels show of the timeline, computed at most ~10 times a second (sorting a few
// thousand samples every frame would cost more than the panel's budget, and numbers that change
// 60 times a second cannot be read anyway).
struct TimelineSummary {
    SampleStats compute_ms, interop_ms, upload_ms;  // over the last rendered frames
    SampleStats ui_ms, present_ms, frame_ms;        // over the last UI frames
    SampleStats host_launch_ms;                     // CUDA frames only
    SampleStats panel_ms;
    double latest_compute_ms = kNoSample, latest_interop_ms = kNoSample, latest_upload_ms = kNoSample;
    double latest_ui_ms = kNoSample, latest_present_ms = kNoSample, latest_frame_ms = kNoSample;
    double cuda_iterations_per_second = kNoSample;  // medians of the last frames of each path
    double cpu_iterations_per_second = kNoSample;
    double cuda_steps_per_second = kNoSample;
    double cpu_steps_per_second = kNoSample;
    double cuda_skipped_fraction = kNoSample;
    double cpu_skipped_fraction = kNoSample;
};
TimelineSummary summarize_timeline(const FrameTimeline& timeline);

// One path's line of iterations per second in the Timings panel, from the summary's medians.
struct ThroughputFigures {
    double steps_per_second = kNoSample;      // the work run: what the percentage divides
    double percent_of_limit = 0.0;            // of steps_per_second; 0 when the limit is unknown
    double effective_per_second = kNoSample;  // iterations the pixels advanced, skipped ones included
    double skipped_fraction = 0.0;            // of the iterations, the share BLA skipped
};
ThroughputFigures throughput_figures(double steps_per_second, double iterations_per_second, double skipped_fraction,
                                     const IterationLimit& limit);

// ---- The UI thread's clock marks of one frame -------------------------------------------
// The main loop reads a steady clock at these points (seconds); the UI stage is the ImGui
// frame minus the rendering inside it, plus ImGui's draw calls. GL calls are asynchronous too:
// what the GPU does for them is paid at the swap, so "present" includes it (and the wait for
// vsync when it is on).
struct FrameMarks {
    double frame_start = 0.0;   // before ImGui::NewFrame
    double render_start = 0.0;  // around update_frame_renderer (compute, map, upload)
    double render_end = 0.0;
    double ui_built = 0.0;         // after ImGui::Render
    double draw_data_start = 0.0;  // around ImGui_ImplOpenGL3_RenderDrawData
    double draw_data_end = 0.0;
    double swap_start = 0.0;  // around glfwSwapBuffers
    double swap_end = 0.0;
};
double ui_stage_ms(const FrameMarks& marks);
double present_stage_ms(const FrameMarks& marks);

// ---- Compare ---------------------------------------------------------------------------------
// One compared view: the same frame on the CPU's fast path and on CUDA.
struct CompareRecord {
    int view_number = 0;  // 1, 2, ...: the order the views were compared in
    double zoom = 0.0;
    int iterations = 0;  // the view's maximum
    int width = 0;
    int height = 0;
    const char* precision = "";  // "fp32" or "fp64": both paths ran in it
    double cpu_ms = 0.0;
    double cuda_ms = 0.0;
    double agreement = 0.0;  // fraction of pixels that agree
    bool agree = false;
};
double compare_speedup(const CompareRecord& record);  // cpu_ms / cuda_ms; NaN when unknown
// "cpu 812.3 ms, cuda 1.2 ms, speedup 677x, agree 100.00%" ("... DISAGREE 97.10%" when the
// check failed): the line --screenshot logs after "compare: ".
std::string compare_summary(const CompareRecord& record);

// Two views that cost the same computation: same place, iterations and size (colours apart).
bool same_computation(const View& a, const View& b);

// The attributes whose name contains every space-separated word of `filter`, case-insensitively
// ("clock rate" finds CLOCK_RATE and MEMORY_CLOCK_RATE); indices into `attributes`, in order.
std::vector<int> filter_attributes(const std::vector<std::pair<std::string, int>>& attributes,
                                   const std::string& filter);

}  // namespace ms
