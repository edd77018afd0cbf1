// redraw.h: when the explorer's main loop draws its next frame.
//
// The window draws only when something may have changed on screen, and otherwise sleeps in
// glfwWaitEventsTimeout (an idle window redrawing 60 times a second would take most of a small
// machine's cores under Mesa's llvmpipe). The main loop fills RedrawReasons at the end of each
// frame and waits for what next_frame_wait_s() returns:
//   0                    draw again at once: the user asked for continuous redraws, a benchmark
//                        or a scripted screenshot is running, or input arrived in the last few
//                        frames (ImGui needs a frame or two to settle after a click or a resize);
//   progress_wait_s()    something is under way that shows progress without input: a CPU
//                        frame (its rows arrive), an export, Compare, a demo's measurement, a
//                        wheel burst waiting to be recorded in the history, a text cursor;
//   kIdleWaitSeconds     nothing: sleep until an event (input, an expose, or a worker's
//                        glfwPostEmptyEvent) or this long.
#pragma once

namespace ms {

// Progress bars and arriving rows: the window redraws as often as it can while spending at
// most about a tenth of a core on it. The frames' interval is (1 + kProgressCostFactor) times
// the last frame's own cost, between 1/40 s (40 frames a second, so that jitter keeps the UI
// above 30) and 0.25 s (4); the wait is that interval less the frame's wall time. Under Mesa's
// llvmpipe a frame costs tens of milliseconds of CPU (the GL drawing, the texture upload, the X
// server's copy), so it redraws a few times a second there, leaving the cores to the frame
// being computed; with a GPU's GL a frame costs a few milliseconds and the UI stays at 40
// frames/s. The interval follows the frame's own cost (less a GPU GL's swap) and the wait is
// taken off it, not added: a fixed wait, or one added to the frame, would let the UI crawl
// while a long CPU frame computes beside it.
inline constexpr double kProgressMinWaitSeconds = 1.0 / 40.0;  // the shortest interval
inline constexpr double kProgressWaitSeconds = 0.25;           // the longest interval while work shows progress
inline constexpr double kProgressCostFactor = 10.0;
inline constexpr double kIdleWaitSeconds = 10.0;  // nothing changes: wake this rarely
inline constexpr int kSettleFrames = 3;           // frames drawn after an event

struct RedrawReasons {
    bool events = false;        // input, resize or expose reached the window this frame
    bool continuous = false;    // "redraw every frame" is on, or a benchmark or screenshot runs
    bool progress = false;      // work under way that shows progress (see above)
    double frame_s = 0.0;       // the last frame's cost: its own time, less a GPU GL's swap (0: unknown)
    double frame_wall_s = 0.0;  // the last frame's wall time, from its start to after its swap
};

// The interval between frames while work shows progress (see kProgressCostFactor).
double progress_interval_s(double frame_s);
// The wait before the next frame while work shows progress: the interval less the frame's wall time.
double progress_wait_s(double frame_s, double frame_wall_s);

struct RedrawState {
    int settle_frames = kSettleFrames;  // frames still to draw at once; the first ones settle too
};

// Seconds to wait for events before the next frame (0: poll and draw at once).
double next_frame_wait_s(RedrawState& state, const RedrawReasons& reasons);

}  // namespace ms
