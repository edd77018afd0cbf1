// explorer_start.h: the explorer window's start, in the order run_explorer (explorer.cpp) calls
// it: the first view from the command line (with --open and --palette-file), the window and its
// OpenGL context, Dear ImGui, then the renderer, the panels and the test hooks. Each step that
// can fail prints one sentence and says so; run_explorer then returns its status.
#pragma once

#include <string>

#include "app/explorer/explorer_frame.h"
#include "app/explorer/explorer_options.h"

namespace ms {

// The first view, its settings and its palette. Returns -1 to go on, else the exit status (2 for
// a bad option, or for a view or palette file a scripted run cannot open; an interactive window
// starts anyway and its status line says what went wrong).
int set_up_first_view(const ExplorerOptions& options, ExplorerPicture* picture, StatusLineState& status);

// Opens the window (an OpenGL 3.3 core context, loaded through glad) at view's size, clamped to
// the screen and to what GL can draw, with that said on stderr. Returns false, after a sentence
// on stderr and with nothing left open, when there is no display or no such context.
bool open_window(View* view, bool vsync, ExplorerWindow* w);

// Dear ImGui's context, style and GLFW/OpenGL backends for w.window. The panels' sizes and
// collapsed states are kept between launches in the user's config folder (w.ini_path).
void set_up_imgui(ExplorerWindow& w);

// Starts the renderer (shaders, texture, the CPU worker). Without --backend, a machine where CUDA
// cannot run starts on the CPU (the status line says why); --backend=cuda there falls back,
// saying so as a warning. Returns false after a sentence on stderr.
bool start_renderer(const ExplorerOptions& options, FrameRenderer& renderer, ExplorerSettings* settings);

// The panels as the options open them (--panel, --julia-preview, the demos' start-up work).
void set_up_panels(const ExplorerOptions& options, ExplorerPanels& panels, ExplorerWorkers& workers);

// --bench-drag and --soak. Returns false after a sentence on stderr saying which option is wrong.
bool set_up_hooks(const ExplorerOptions& options, ExplorerHooks& hooks);

}  // namespace ms
