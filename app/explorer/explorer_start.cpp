// explorer_start.cpp: the explorer window's start (see explorer_start.h).
#include "app/explorer/explorer_start.h"

#include <glad/gl.h>
// glad must come before GLFW, which then includes no GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "compute/io/assets.h"
#include "compute/system/number_text.h"
#include "render/platform/gl_check.h"
#include "render/platform/glfw_errors.h"

namespace ms {

namespace {

// A scripted run (--export, --screenshot, --frames) fails on a file it cannot open; an
// interactive window says so on its status line and keeps going.
bool scripted(const ExplorerOptions& options) {
    return !options.export_path.empty() || !options.screenshot.empty() || options.frames > 0;
}

// --open: the export, the screenshot and the window all start at the file's view, with the
// window's size and the command line's colouring. Returns -1 to go on, else the exit status.
int open_start_view(const ExplorerOptions& options, ExplorerPicture* picture, StatusLineState& status) {
    std::string error;
    std::optional<View> opened = read_view_file(options.open_path, &error);
    if (!opened && scripted(options)) {
        std::fprintf(stderr, "mandelscope: cannot open that view: %s.\n", error.c_str());
        return 2;
    }
    if (!opened) {  // the window starts at the default view
        show_message(status, "Cannot open that view: " + error + ".", true);
        return -1;
    }
    opened->width = picture->view.width;
    opened->height = picture->view.height;
    picture->view = *opened;
    apply_colouring_options(options, &picture->view.colouring);  // validated already: the command line's win
    picture->settings.auto_iterations = false;
    picture->default_framing = start_default_framing(picture->view, true);  // kept as opened
    show_message(status, "Opened the view saved in " + options.open_path + ".", false);
    return -1;
}

// The palette of the first view: --palette-file, or the view's palette by name. Returns -1 to go
// on, else the exit status.
int load_start_palette(const ExplorerOptions& options, ExplorerPicture* picture, StatusLineState& status) {
    if (!options.palette_file.empty() && options.open_path.empty()) {
        try {
            picture->palette = make_palette_table(load_palette_file(options.palette_file));
            picture->palette_name = picture->view.palette;  // the file's stem (apply_explorer_options)
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mandelscope: --palette-file: %s.\n", e.what());
            return 2;
        }
    }
    update_palette(&picture->view, &picture->palette_name, &picture->palette, status);
    if (picture->palette_name.empty()) {
        // A scripted run fails with the sentence already printed; an interactive window keeps
        // going with a built-in gradient and says so on its status line.
        if (scripted(options)) return 2;
        picture->palette = make_palette_table(builtin_grey_palette());
        picture->palette_name = picture->view.palette;
        show_message(status, status.message + "; showing a built-in grey gradient", true);
    }
    return -1;
}

}  // namespace

int set_up_first_view(const ExplorerOptions& options, ExplorerPicture* picture, StatusLineState& status) {
    if (std::string problem = apply_explorer_options(options, &picture->view, &picture->settings); !problem.empty()) {
        std::fprintf(stderr, "mandelscope: %s\n", problem.c_str());
        return 2;
    }
    // A view given on the command line stays as given; the default view fits the free area.
    const bool view_given = !options.center.empty() || !options.zoom.empty();
    picture->default_framing = start_default_framing(picture->view, view_given);
    if (!options.open_path.empty())
        if (int rc = open_start_view(options, picture, status); rc >= 0) return rc;
    return load_start_palette(options, picture, status);
}

bool open_window(View* view, bool vsync, ExplorerWindow* w) {
    install_glfw_error_callback();
    if (!glfwInit()) {
        std::fprintf(stderr,
                     "mandelscope: no display is available for the window (%s); `mandelscope render` makes images "
                     "without one.\n",
                     last_glfw_error().c_str());
        return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
    // A window larger than the screen (or than GL can draw, checked below) fails with a raw X
    // or GL error deep inside the first frame: clamp it here and say so.
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
        if (const GLFWvidmode* mode = glfwGetVideoMode(monitor))
            if (std::string clamped = clamp_window_size(&view->width, &view->height, mode->width, mode->height,
                                                        "the screen");
                !clamped.empty())
                std::fprintf(stderr, "mandelscope: %s.\n", clamped.c_str());
    }
    GLFWwindow* window = glfwCreateWindow(view->width, view->height, "Mandelscope", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "mandelscope: cannot open an OpenGL 3.3 window here (%s).\n", last_glfw_error().c_str());
        glfwTerminate();
        return false;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "mandelscope: cannot load the OpenGL functions of this context.\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return false;
    }
    glfwSwapInterval(vsync ? 1 : 0);
    std::printf("OpenGL: %s\n", gl_renderer_description().c_str());
    w->window = window;
    w->software_gl = gl_is_software_rasteriser();
    GLint max_texture = 0, max_viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_viewport);
    int width = view->width, height = view->height;
    if (std::string clamped = clamp_window_size(&width, &height, std::min(max_texture, max_viewport[0]),
                                                std::min(max_texture, max_viewport[1]), "what OpenGL can draw here");
        !clamped.empty()) {
        std::fprintf(stderr, "mandelscope: %s.\n", clamped.c_str());
        glfwSetWindowSize(window, width, height);
    }
    return true;
}

void set_up_imgui(ExplorerWindow& w) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    // The layout file lives in the user's config folder, never in whatever directory the
    // program was started from.
    std::string ini_error;
    w.ini_path = panel_settings_path(&ini_error);
    io.IniFilename = w.ini_path.empty() ? nullptr : w.ini_path.c_str();
    if (w.ini_path.empty())
        std::fprintf(stderr, "mandelscope: the panels' layout will not be kept: %s.\n", ini_error.c_str());
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(w.window, true);
    install_key_release_delay(w.window);  // no key tap is lost between two frames (navigation.h)
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

bool start_renderer(const ExplorerOptions& options, FrameRenderer& renderer, ExplorerSettings* settings) {
    renderer.cpu.on_news = [] { glfwPostEmptyEvent(); };  // wakes the main loop from its wait
    renderer.deep.on_news = [] { glfwPostEmptyEvent(); };
    renderer.deep.devices = settings->devices;  // empty: every visible one, found by the deep worker
    try {
        // On the CPU by choice, the driver starts only if the user turns to CUDA.
        init_frame_renderer(renderer, find_data_dir("shaders"), options.backend != "cpu");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        return false;
    }
    if (options.backend.empty() && !renderer.cuda_unavailable.empty()) {
        settings->backend = Backend::Cpu;
        std::printf("backend: CPU (no GPU: %s)\n", renderer.cuda_unavailable.c_str());
    }
    return true;
}

void set_up_panels(const ExplorerOptions& options, ExplorerPanels& panels, ExplorerWorkers& workers) {
    panels.view.palettes = list_palettes();
    panels.view.julia_preview = options.julia_preview;
    panels.palette_editor.open = panel_requested(options, "palette");
    panels.video.open = panel_requested(options, "video") || !options.video_render.empty();
    if (!options.video_render.empty()) {
        VideoScript& script = workers.video.script;
        script.output = options.video_render;
        parse_size_text(options.video_size, 16384, &script.width, &script.height);  // checked by apply_explorer_options
        script.fps = options.video_fps;
        script.seconds = options.video_seconds;
    }
    apply_panel_options(options, &panels.vecadd, &workers.vecadd_runner);
    apply_cnn_panel_options(options, &panels.cnn, &workers.cnn_runner);
}

bool set_up_hooks(const ExplorerOptions& options, ExplorerHooks& hooks) {
    hooks.bench.frames = options.bench_drag_frames;
    SoakTest& soak = hooks.soak;
    soak.frames = options.soak_frames;
    soak.seed = options.soak_seed;
    if (std::string problem = parse_soak_skip(options.soak_skip, &soak.skipped_actions); !problem.empty()) {
        std::fprintf(stderr, "mandelscope: %s.\n", problem.c_str());
        return false;
    }
    soak.export_path =
        (std::filesystem::temp_directory_path() / ("mandelscope-soak-" + std::to_string(getpid()) + ".png")).string();
    return true;
}

}  // namespace ms
