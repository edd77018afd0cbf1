// soak.h: `--soak=N` (a test hook): N frames of scripted random navigation in the real window,
// to show that a long run neither crashes, errs nor grows. Every frame one action is drawn
// from a seeded generator and carried out through the same requests the mouse, the keys and
// the panels raise: pan, zoom in and out about a random pixel, box zoom, back, forward, reset,
// backend toggle, palette change, window resize, an export started and one cancelled.
//
// It measures what a leak would show: the most resident memory of the warm-up (the first quarter
// of the frames, at least 200) against the most it reaches afterwards. High-water marks, not
// single readings: an export in flight or a larger window holds buffers for a while, and both
// phases see such moments; a leak raises the mark again and again. It also reads the GPU's used
// memory after the warm-up and at the end, once the window's renderer has released its buffers.
// The verdict: every frame ran and no error was shown; the memory figures are reported beside
// it. (The GPU figure is reported, not judged: the CUDA frame keeps its scratch buffers between
// frames and grows them with the window, so it is read on the GPU machine's run.)
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compute/fractal/view/view.h"
#include "render/frame/navigation.h"
#include "render/ui/panels.h"

struct GLFWwindow;

namespace ms {

enum class SoakAction {
    Pan,
    ZoomIn,
    ZoomOut,
    BoxZoom,
    Back,
    Forward,
    Reset,
    ToggleBackend,
    Palette,
    Resize,
    ExportStart,
    ExportCancel,
    Count
};
const char* soak_action_name(SoakAction action);
// Parses --soak-skip's comma-separated action names ("resize,export") into bits; returns "" or
// the sentence naming an unknown action.
std::string parse_soak_skip(const std::string& names, uint32_t* skipped);

struct SoakTest {
    int frames = 0;  // 0: off
    uint64_t seed = 1;
    std::string export_path;       // where the exports it starts go (removed at the end)
    uint32_t skipped_actions = 0;  // bit per SoakAction never drawn (--soak-skip), to isolate a cause
    // Progress and findings.
    int frame = 0;
    std::mt19937_64 rng;
    std::array<int, int(SoakAction::Count)> actions{};  // how often each ran
    int errors = 0;                                     // error messages shown (other than "CUDA unavailable")
    int base_width = 0;                                 // the window's size at the first frame: memory is read at
    int base_height = 0;                                // this size only (sample_soak_memory says why)
    int64_t rss_warm_bytes = -1;                        // the most resident memory during the warm-up
    int64_t rss_peak_bytes = -1;                        // the most seen after it
    int64_t gpu_used_start_bytes = -1;                  // at the end of the warm-up
    std::array<int64_t, 4> rss_quarter_peak_bytes{};    // the high-water mark in each quarter
    std::array<int64_t, 4> heap_quarter_peak_bytes{};   // the same for the heap in use (malloc)
};

int soak_warmup_frames(const SoakTest& soak);

// Everything a soak action may touch this frame.
struct SoakTargets {
    View* view = nullptr;
    NavigationRequests* nav = nullptr;
    ViewPanelState* view_panel = nullptr;  // reset, and the palette names
    ExportDialogState* export_dialog = nullptr;
    GLFWwindow* window = nullptr;
};

// Draws and applies this frame's action; returns true once all frames are done.
bool step_soak(SoakTest& soak, const SoakTargets& targets);
// Records the memory after this frame (call once per frame, after it is drawn); frames with an
// export in flight, and frames drawn at another window size than the first, are left out.
void sample_soak_memory(SoakTest& soak, bool export_running, bool at_base_size);

// The growth of the resident memory after the warm-up, in percent of the warm figure.
double soak_rss_growth_percent(const SoakTest& soak);
// The same for the heap in use (malloc's bytes held): the leak signal of our own code, which
// allocator caching, thread stacks and the GL driver's mappings do not blur.
double soak_heap_growth_percent(const SoakTest& soak);

// The soak's goal: resident memory grows by less than 5% after the warm-up. The exit status
// says whether every frame ran without an error; tests/window/window_soak.sh gates the memory
// (at kSoakResidentGatePercent). Memory is read at one window size (sample_soak_memory). What
// keeps exports from creeping: the window keeps large blocks mapped (keep_large_blocks_mapped,
// process_memory.h; glibc's dynamic mmap threshold would send later exports' strips to the
// arenas and fragment them), the PNG encoder frees its scratch with each file, and the CPU
// kernel's chunk scratch in each thread of the export thread's OpenMP team, which grows with
// the cores, is freed after each export (release_cpu_render_scratch). The figures of the soak
// runs are in docs/performance.md.
inline constexpr double kSoakResidentGoalPercent = 5.0;
// What the test fails on: the goal itself.
inline constexpr double kSoakResidentGatePercent = 5.0;
bool soak_memory_goal_met(const SoakTest& soak);
bool soak_passed(const SoakTest& soak);
// The report printed at the end (several lines: actions, memory, the verdict).
std::string soak_report(const SoakTest& soak, int64_t gpu_used_end_bytes);

}  // namespace ms
