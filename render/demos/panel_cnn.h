// panel_cnn.h: the CNN demo panel: the small convolutional network of
// compute/cnn/cnn.h classifying Fashion-MNIST's 10,000 test images, on this machine's CPU and
// GPU.
//
// Like the panels in panels.h it is one function over a plain struct. The user pages through a
// grid of test images (predicted label, confidence, true label; wrong ones framed in red),
// selects one (its class probabilities as bars, the first layer's 16 feature maps as heat
// maps), and asks for "Classify all 10,000" on the CPU or the GPU, or for a sweep of batch
// sizes (latency per call against images/s, plotted with render/ui/plot.h). The panel computes
// nothing and owns no GPU resource: the main loop hands its requests to a worker thread
// (render/demos/cnn_runner.h, carry_out_cnn_demo), which loads the data set and the weights,
// classifies, and holds the CUDA context, and fills the facts back in each frame.
//
// The layout maths (pages of the grid, the misclassified list, probabilities in order, the
// sweep's batch sizes, colours) are plain functions below, checked headless by
// tests/test_render_cnn_panel.cpp.
#pragma once

#include <imgui.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/cnn/cnn.h"

namespace ms {

inline constexpr int kCnnGridColumns = 8;
inline constexpr int kCnnGridRows = 4;
inline constexpr int kCnnGridPerPage = kCnnGridColumns * kCnnGridRows;  // 32 images a page
inline constexpr int kCnnMaxBatch = 10000;                              // the slider's end and the CUDA buffers' size

// What the worker is doing, as the panel shows it.
enum class CnnTask { None, Load, ClassifyAll, Sweep };

// One batch size of a sweep: the median call's latency and the throughput at that size.
struct CnnSweepPoint {
    int batch = 0;
    int images = 0;                 // timed per pass
    double batch_latency_ms = 0.0;  // median call of `batch` images (host memory in and out)
    double images_per_second = 0.0;
};

struct CnnDemo {
    bool open = false;
    bool raise = false;  // request: bring its tab of the right column to the front

    // Settings the user edits (kept between frames).
    int page = 0;               // of the grid (of the misclassified images when wrong_only)
    bool wrong_only = false;    // the grid shows only the images the network gets wrong
    int selected = 0;           // test image shown in detail
    int batch = 1000;           // "Classify all"'s images per call: 1..kCnnMaxBatch
    int confusion_backend = 0;  // 0: the CPU's confusion matrix, 1: the GPU's
    bool plot_hidden[2] = {};   // the sweep plots' legend: CPU, GPU hidden

    // Facts, filled by the main loop (carry_out_cnn_demo) each frame.
    bool loaded = false;                       // data, weights and the grid's predictions
    std::string load_error;                    // why the demo cannot run ("" when it can)
    std::shared_ptr<const FashionMnist> test;  // the 10,000 test images (read only)
    std::vector<uint8_t> predicted;            // per test image (CPU, at load)
    std::vector<float> probabilities;          // per test image, kCnnClasses each
    std::vector<int> misclassified;            // test images with predicted != label
    std::string weights_note;                  // the weights file and its provenance
    std::string cpu_device;                    // "AVX3 x 2 threads"
    std::string cuda_unavailable;              // why the GPU cannot be used; "" when it can
    std::string cuda_device;                   // "NVIDIA H100 80GB HBM3, sm_90"
    int feature_maps_of = -1;                  // the image `feature_maps` belong to
    std::vector<float> feature_maps;           // kCnnConv1Channels x kCnnPixels, after ReLU
    CnnTask task = CnnTask::None;              // running on the worker
    CnnBackend task_backend = CnnBackend::Cpu;
    double progress = 0.0;                    // 0..1 of the task
    std::optional<CnnEvalResult> cpu_result;  // the latest complete "Classify all" per side
    std::optional<CnnEvalResult> cuda_result;
    std::vector<CnnSweepPoint> cpu_sweep;  // the latest sweep per side (grows as it runs)
    std::vector<CnnSweepPoint> cuda_sweep;
    std::string message;  // the latest outcome (cancelled, failed, ...)
    bool message_is_error = false;

    // Requests raised this frame (cleared at the start of each draw).
    bool load = false;  // (again) after a failure, e.g. once the package is installed
    bool classify_all_cpu = false;
    bool classify_all_cuda = false;
    bool start_sweep = false;  // every usable backend, cnn_sweep_batches(batch)
    bool cancel = false;
};

// The "CNN" tab of the right column (when open and the column is drawn, panel_layout.h).
void draw_cnn_panel(CnnDemo& demo, bool in_column);

// ---- Layout maths (no ImGui context needed) ----------------------------------------------------

// Short class names for the grid's captions ("T-shirt", ..., "Boot"); the full ones are
// kFashionMnistClassNames.
extern const char* const kCnnShortClassNames[kCnnClasses];

// One page of a grid over `shown` images: `page` clamped to the pages there are (0 when empty).
struct CnnGridPage {
    int page = 0;
    int pages = 0;  // at least 1
    int first = 0;  // position in the shown list of the page's first image
    int count = 0;  // images on this page (the last page may be short)
};
CnnGridPage cnn_grid_page(int shown, int page, int per_page = kCnnGridPerPage);

// The page (of `per_page` images) on which `image` appears in `shown` (a sorted list of test
// image indices; empty = all images in order), or -1 when it is not in it.
int cnn_page_of_image(const std::vector<int>& shown, int image, int per_page = kCnnGridPerPage);

// Indices of the images whose prediction is not their label, in order.
std::vector<int> cnn_misclassified(const std::vector<uint8_t>& labels, const std::vector<uint8_t>& predicted);

// The classes by decreasing probability (ties: the lower class first).
std::array<int, kCnnClasses> cnn_classes_by_probability(const float* probabilities);

// The batch sizes a sweep measures: 1, 4, 16, ... 4096 and `max_batch`, plus `also` (the
// slider's), sorted, each at most `max_batch`.
std::vector<int> cnn_sweep_batches(int also, int max_batch = kCnnMaxBatch);

// Images timed at one batch size: enough calls for a steady median (at least 8 calls and 512
// images), at most `available`.
int cnn_sweep_images(int batch, int available);

// Images per second of the GPU over the CPU (with copies on both sides); 0 when either is missing.
double cnn_speedup(const std::optional<CnnEvalResult>& cpu, const std::optional<CnnEvalResult>& cuda);

// Heat-map colour of t in [0, 1] (clamped): black, purple, red, orange, pale yellow (like
// matplotlib's "inferno"), so brightness grows with the activation.
ImU32 cnn_heat_colour(float t);

// A confusion-matrix cell: the fraction of its row (true class) in it, green on the diagonal
// (right), red elsewhere (wrong), brighter for larger fractions; near-empty cells stay dark.
ImU32 cnn_confusion_colour(int count, int row_total, bool diagonal);

}  // namespace ms
