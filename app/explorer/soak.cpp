// soak.cpp: the random navigation of `--soak=N` and its memory bookkeeping (soak.h).
#include "app/explorer/soak.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/glm.hpp>

#include "compute/system/cuda_info.h"
#include "compute/system/process_memory.h"
#include "render/frame/view_math.h"

namespace ms {

namespace {

// How often each action is drawn, out of the sum: mostly navigation, as a person would.
constexpr int kWeights[int(SoakAction::Count)] = {
    /*Pan*/ 30,          /*ZoomIn*/ 14, /*ZoomOut*/ 12, /*BoxZoom*/ 5,     /*Back*/ 8,
    /*Forward*/ 5,       /*Reset*/ 2,
    /*ToggleBackend*/ 4, /*Palette*/ 6, /*Resize*/ 4,   /*ExportStart*/ 2, /*ExportCancel*/ 2};

// The walk stays where FP64 resolves the picture and the frames stay cheap.
constexpr double kSoakMaxZoom = 1e9;
constexpr double kSoakMinZoom = 0.5;

SoakAction draw_action(std::mt19937_64& rng, uint32_t skipped) {
    auto weight = [&](int i) { return (skipped >> i) & 1u ? 0 : kWeights[i]; };
    int total = 0;
    for (int i = 0; i < int(SoakAction::Count); ++i) total += weight(i);
    if (total == 0) return SoakAction::Pan;
    int pick = int(rng() % uint64_t(total));
    for (int i = 0; i < int(SoakAction::Count); ++i) {
        if (pick < weight(i)) return SoakAction(i);
        pick -= weight(i);
    }
    return SoakAction::Pan;
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
    return lo + (hi - lo) * (double(rng() >> 11) / double(1ull << 53));
}

glm::dvec2 random_pixel(std::mt19937_64& rng, const View& view) {
    return {uniform(rng, 0.0, view.width), uniform(rng, 0.0, view.height)};
}

}  // namespace

const char* soak_action_name(SoakAction action) {
    static const char* names[] = {"pan",   "zoom in", "zoom out", "box zoom", "back",   "forward",
                                  "reset", "backend", "palette",  "resize",   "export", "cancel"};
    return names[int(action)];
}

std::string parse_soak_skip(const std::string& names, uint32_t* skipped) {
    *skipped = 0;
    size_t start = 0;
    while (start < names.size()) {
        size_t end = names.find(',', start);
        if (end == std::string::npos) end = names.size();
        const std::string name = names.substr(start, end - start);
        bool known = false;
        for (int i = 0; i < int(SoakAction::Count); ++i)
            if (name == soak_action_name(SoakAction(i))) {
                *skipped |= 1u << i;
                known = true;
            }
        if (!known)
            return "--soak-skip: unknown action '" + name +
                   "' (pan, zoom in, zoom out, box zoom, back, "
                   "forward, reset, backend, palette, resize, export, cancel)";
        start = end + 1;
    }
    return {};
}

int soak_warmup_frames(const SoakTest& soak) { return std::min(soak.frames, std::max(200, soak.frames / 4)); }

bool step_soak(SoakTest& soak, const SoakTargets& t) {
    if (soak.frame == 0) {
        soak.rng.seed(soak.seed);
        glfwGetWindowSize(t.window, &soak.base_width, &soak.base_height);
    }
    if (soak.frame >= soak.frames) return true;
    ++soak.frame;
    View& view = *t.view;
    const SoakAction action = draw_action(soak.rng, soak.skipped_actions);
    ++soak.actions[int(action)];
    switch (action) {
    case SoakAction::Pan:
        view = pan_view_by_fraction(view, {uniform(soak.rng, -0.2, 0.2), uniform(soak.rng, -0.2, 0.2)});
        t.nav->record_history = true;
        break;
    case SoakAction::ZoomIn:
    case SoakAction::ZoomOut: {
        const double factor = action == SoakAction::ZoomIn ? uniform(soak.rng, 1.1, 3.0)
                                                           : 1.0 / uniform(soak.rng, 1.1, 3.0);
        view = zoom_view_about(view, random_pixel(soak.rng, view), factor);
        t.nav->record_history = true;
        break;
    }
    case SoakAction::BoxZoom:
        view = box_zoom_view(view, random_pixel(soak.rng, view), random_pixel(soak.rng, view));
        t.nav->record_history = true;
        break;
    case SoakAction::Back: t.nav->back = true; break;
    case SoakAction::Forward: t.nav->forward = true; break;
    case SoakAction::Reset: t.view_panel->reset = true; break;
    case SoakAction::ToggleBackend: t.nav->toggle_backend = true; break;
    case SoakAction::Palette:
        if (!t.view_panel->palettes.empty())
            view.palette = t.view_panel->palettes[soak.rng() % t.view_panel->palettes.size()];
        break;
    case SoakAction::Resize: {
        // Away to a random size, and back to the first size the next time, so that memory
        // is compared at one size (sample_soak_memory).
        int width = 0, height = 0;
        glfwGetWindowSize(t.window, &width, &height);
        const int new_width = 320 + int(soak.rng() % 960), new_height = 240 + int(soak.rng() % 560);
        if (width == soak.base_width && height == soak.base_height) glfwSetWindowSize(t.window, new_width, new_height);
        else glfwSetWindowSize(t.window, soak.base_width, soak.base_height);
        break;
    }
    case SoakAction::ExportStart:
        // Small enough to finish now and then, large enough to be cancelled mid-way often.
        t.export_dialog->path = soak.export_path;
        t.export_dialog->width = 256 + int(soak.rng() % 1800);
        t.export_dialog->height = 144 + int(soak.rng() % 1000);
        t.export_dialog->supersample = 1 + int(soak.rng() % 2);
        t.export_dialog->start = true;
        break;
    case SoakAction::ExportCancel: t.export_dialog->cancel = true; break;
    case SoakAction::Count: break;
    }
    // Keep the walk inside the depths the direct kernels resolve.
    if (!(view.zoom.value() <= kSoakMaxZoom && view.zoom.value() >= kSoakMinZoom)) t.view_panel->reset = true;
    return false;
}

void sample_soak_memory(SoakTest& soak, bool export_running, bool at_base_size) {
    if (soak.frame == soak_warmup_frames(soak))
        soak.gpu_used_start_bytes = cuda_device_memory_used_bytes();  // the frame buffers exist by now
    // Every 25th frame: freed heap pages go back to the system first, so the reading follows
    // live memory rather than the allocator's caching. Not while an export holds its strips:
    // that is work in flight, not memory kept. And only at the window's first size: the frame's
    // buffers (the worker's smooth values and colours, the rows for the UI), the GL texture and
    // llvmpipe's and X's copies of the window all scale with it, about 25 bytes a pixel, so a
    // reading at 1280x800 holds some 20 MB more than one at 320x240. Compared across sizes,
    // that would look like a creep of the heap; at one size it is flat.
    if (soak.frame % 25 != 0 || export_running || !at_base_size) return;
    const int64_t rss = process_resident_bytes_trimmed();
    const int quarter = std::min(3, 4 * (soak.frame - 1) / std::max(1, soak.frames));
    soak.rss_quarter_peak_bytes[quarter] = std::max(soak.rss_quarter_peak_bytes[quarter], rss);
    soak.heap_quarter_peak_bytes[quarter] = std::max(soak.heap_quarter_peak_bytes[quarter],
                                                     process_heap_in_use_bytes());
    if (soak.frame <= soak_warmup_frames(soak)) soak.rss_warm_bytes = std::max(soak.rss_warm_bytes, rss);
    if (soak.frame > soak_warmup_frames(soak)) soak.rss_peak_bytes = std::max(soak.rss_peak_bytes, rss);
}

double soak_rss_growth_percent(const SoakTest& soak) {
    if (soak.rss_warm_bytes <= 0 || soak.rss_peak_bytes <= 0) return 0.0;
    return 100.0 * double(soak.rss_peak_bytes - soak.rss_warm_bytes) / double(soak.rss_warm_bytes);
}

double soak_heap_growth_percent(const SoakTest& soak) {
    const int64_t warm = soak.heap_quarter_peak_bytes[0];
    const int64_t after = std::max(
        {soak.heap_quarter_peak_bytes[1], soak.heap_quarter_peak_bytes[2], soak.heap_quarter_peak_bytes[3]});
    return warm > 0 && after > 0 ? 100.0 * double(after - warm) / double(warm) : 0.0;
}

bool soak_passed(const SoakTest& soak) { return soak.frame >= soak.frames && soak.errors == 0; }

bool soak_memory_goal_met(const SoakTest& soak) { return soak_rss_growth_percent(soak) < kSoakResidentGoalPercent; }

std::string soak_report(const SoakTest& soak, int64_t gpu_used_end_bytes) {
    std::string text;
    char line[256];
    std::snprintf(line, sizeof line, "soak: %d frames (seed %llu), actions:", soak.frame,
                  static_cast<unsigned long long>(soak.seed));
    text += line;
    for (int i = 0; i < int(SoakAction::Count); ++i) {
        std::snprintf(line, sizeof line, " %s %d%s", soak_action_name(SoakAction(i)), soak.actions[i],
                      i + 1 < int(SoakAction::Count) ? "," : "\n");
        text += line;
    }
    std::snprintf(line, sizeof line,
                  "soak: resident memory at most %.1f MB in %d warm-up frames, at most %.1f MB after: %+.2f%%\n",
                  soak.rss_warm_bytes / 1e6, soak_warmup_frames(soak), soak.rss_peak_bytes / 1e6,
                  soak_rss_growth_percent(soak));
    text += line;
    std::snprintf(line, sizeof line,
                  "soak: high-water marks by quarter: resident %.1f, %.1f, %.1f, %.1f MB; heap in use %.1f, %.1f, "
                  "%.1f, %.1f MB\n",
                  soak.rss_quarter_peak_bytes[0] / 1e6, soak.rss_quarter_peak_bytes[1] / 1e6,
                  soak.rss_quarter_peak_bytes[2] / 1e6, soak.rss_quarter_peak_bytes[3] / 1e6,
                  soak.heap_quarter_peak_bytes[0] / 1e6, soak.heap_quarter_peak_bytes[1] / 1e6,
                  soak.heap_quarter_peak_bytes[2] / 1e6, soak.heap_quarter_peak_bytes[3] / 1e6);
    text += line;
    if (soak.gpu_used_start_bytes >= 0 && gpu_used_end_bytes >= 0) {
        std::snprintf(line, sizeof line,
                      "soak: GPU memory in use %.1f MB after the warm-up, %.1f MB at the end: %+.1f MB\n",
                      soak.gpu_used_start_bytes / 1e6, gpu_used_end_bytes / 1e6,
                      (gpu_used_end_bytes - soak.gpu_used_start_bytes) / 1e6);
        text += line;
    } else {
        text += "soak: GPU memory not measured (no usable CUDA device)\n";
    }
    std::snprintf(line, sizeof line,
                  "soak: after the warm-up the heap in use grew %+.2f%% and resident memory %+.2f%%: the soak's goal "
                  "(resident under %.0f%%) %s (window_soak.sh fails at %.0f%%)\n",
                  soak_heap_growth_percent(soak), soak_rss_growth_percent(soak), kSoakResidentGoalPercent,
                  soak_memory_goal_met(soak) ? "met" : "MISSED", kSoakResidentGatePercent);
    text += line;
    std::snprintf(line, sizeof line, "soak: %d errors; %s\n", soak.errors,
                  soak_passed(soak) ? "every frame ran" : "FAIL (errors, or not every frame ran)");
    text += line;
    return text;
}

}  // namespace ms
