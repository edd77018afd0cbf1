// redraw.h: when the explorer's main loop draws its next frame.
//
// The window draws only when something may have changed on screen, and otherwise sleeps in
// glfwWaitEventsTimeout (an idle window used to redraw 60 times a second: a core and a half of
// a 2-core machine under Mesa's llvmpipe). The main loop fills RedrawReasons at the end of each
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
// most a tenth of a core on it: the wait is kProgressCostFactor times the last frame's own time,
// between 1/30 s (30 frames a second) and 0.25 s (4). Under Mesa's llvmpipe a frame costs 20 to
// 40 ms of CPU (the GL drawing, the texture upload, the X server's copy), so it redraws 4 to 5
// times a second there, leaving the cores to the frame being computed (at 30 Hz it took a third
// of a 2-core machine); with a GPU's GL a frame costs a millisecond or two and the UI stays at
// 30 frames/s. (A fixed 0.25 s before: the "3.8 frames/s" measured on the H100 host while
// Compare's deep CPU frame ran was that cadence, not a starved UI thread.)
inline constexpr double kProgressMinWaitSeconds = 1.0 / 30.0;
inline constexpr double kProgressWaitSeconds = 0.25;  // the longest wait while work shows progress
inline constexpr double kProgressCostFactor = 10.0;
inline constexpr double kIdleWaitSeconds = 10.0;            // nothing changes: wake this rarely
inline constexpr int kSettleFrames = 3;                     // frames drawn after an event

struct RedrawReasons {
    bool events = false;        // input, resize or expose reached the window this frame
    bool continuous = false;    // "redraw every frame" is on, or a benchmark or screenshot runs
    bool progress = false;      // work under way that shows progress (see above)
    double frame_s = 0.0;       // the last frame's own time, from its events to its swap (0: unknown)
};

// The wait between frames while work shows progress (see kProgressCostFactor).
double progress_wait_s(double frame_s);

struct RedrawState {
    int settle_frames = kSettleFrames;  // frames still to draw at once; the first ones settle too
};

// Seconds to wait for events before the next frame (0: poll and draw at once).
double next_frame_wait_s(RedrawState& state, const RedrawReasons& reasons);

}  // namespace ms
