// explorer_video.h: the window's side of the Video panel (render/ui/panel_video.h): the facts it
// shows each frame (the keyframes' plan, the render's progress, its latest frame as a texture)
// and its requests carried out (path preview, even pace, save, load, render, cancel), and
// --video-render, the scripted run the window test uses: Dive to here on the start view, Render
// with the --video-* settings, then close with the render's status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/frame/video_render_job.h"
#include "render/ui/panel_video.h"
#include "render/ui/panels.h"

struct GLFWwindow;

namespace ms {

// --video-render and its settings (explorer_options.h).
struct VideoScript {
    std::string output;  // "": no scripted render
    int width = 64, height = 36;
    int fps = 10;
    double seconds = 2.0;
    bool started = false;
};

struct ExplorerVideo {
    VideoRenderJob job;
    std::vector<int> devices;  // --devices: the CUDA devices a video renders on; empty: every visible one
    unsigned texture = 0;  // the latest frame, for the panel's preview
    uint64_t serial = 0;
    std::vector<uint8_t> rgba;
    VideoScript script;
};

// The panel's facts for this frame; uploads the latest rendered frame into the texture.
void fill_video_panel(VideoPanelState& panel, ExplorerVideo& video, const View& view);
// What the panel asked for. The preview moves *view (and sets *view_moved); `cuda` is whether
// the frames may render with CUDA (the settings ask for it and a device is usable). A scripted
// run raises its requests here and, when its render ends, closes `window` with *exit_code.
void carry_out_video_panel(VideoPanelState& panel, ExplorerVideo& video, View* view, bool* view_moved,
                           const PaletteTable& palette, Precision precision, bool cuda, StatusLineState& status,
                           GLFWwindow* window, int* exit_code);
bool video_busy(const ExplorerVideo& video);
// Stops the render and frees the texture (the GL context still current).
void stop_explorer_video(ExplorerVideo& video);

}  // namespace ms
