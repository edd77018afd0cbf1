// export_image.h: "Export PNG" from the window: the current view at any size (up to at least
// 16384x16384) with 1x1 to 4x4 supersampling, rendered in strips so memory stays bounded
// (about kExportStripSamples samples at a time, whatever the image size), through the same
// compute paths as `mandelscope render` (CUDA to host memory, or the CPU path), streamed into
// a PNG with the view in its tEXt chunk (render/frame/png_stream.h). Runs on its own thread with
// progress and cancel; the window keeps going meanwhile.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "compute/fractal/direct/direct.h"
#include "render/frame/frame_renderer.h"

namespace ms {

inline constexpr int kMaxExportSide = 65536;           // pixels; 16384 is the promise
inline constexpr long kExportStripSamples = 1L << 23;  // 8M samples: 32 MB of mu + 32 MB RGBA
// The most samples a whole-frame colouring (histogram, slopes) exports: 64M samples (8192 x 8192),
// about 1 GiB of smooth values, features and colours.
inline constexpr long kExportWholeFrameSamples = 1L << 26;

struct ExportSettings {
    std::filesystem::path path;
    int width = 0;  // pixels of the PNG
    int height = 0;
    int supersample = 1;  // 1..4: supersample x supersample samples per pixel, box-filtered
    Backend backend = Backend::Cpu;
    Precision precision = Precision::Auto;
};

struct ExportResult {
    bool ok = false;
    bool cancelled = false;
    std::string message;  // a sentence: where it went, or what went wrong
};

// Checks the settings; "" when they are usable, else the sentence saying what is wrong.
std::string validate_export_settings(const ExportSettings& settings);
// Renders and writes synchronously; `cancel` (may be null) is polled between rows,
// `progress` (may be empty) gets 0..1.
ExportResult export_view_png(const View& view, const PaletteTable& palette, const ExportSettings& settings,
                             const std::atomic<bool>* cancel, const std::function<void(double)>& progress);

// The same on a thread, for the window. One thread serves every export of the window's life,
// started with the first: a thread per export would leave host memory behind in the CUDA driver
// on each one, which the soak test sees as growth.
struct ExportJob {
    ~ExportJob();  // stop_export_job: the thread never outlives the job it writes into
    std::thread thread;
    std::mutex mutex;  // guards the request below and quit
    std::condition_variable wake;
    bool quit = false;
    bool has_request = false;
    View request_view;
    PaletteTable request_palette;
    ExportSettings request_settings;
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::atomic<double> progress{0.0};
    bool running = false;  // UI thread only
    ExportResult result;   // written by the thread before `finished`
};
void start_export_job(ExportJob& job, const View& view, const PaletteTable& palette, const ExportSettings& settings);
// When the export is done: sets *result and returns true.
bool poll_export_job(ExportJob& job, ExportResult* result);
void cancel_export_job(ExportJob& job);  // asks; poll_export_job reports the cancel when done
void stop_export_job(ExportJob& job);    // cancels and waits for the thread (shutdown)

}  // namespace ms
