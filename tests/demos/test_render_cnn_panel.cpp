// test_render_cnn_panel.cpp: the CNN panel's logic without a window: the grid's pages, the
// misclassified list, probabilities in order, the sweep's batch sizes, the colours
// (render/demos/panel_cnn.h), and the runner (render/demos/cnn_runner.h) driven the way the main loop
// drives it: load, the grid's predictions, "Classify all" on the CPU, a refused GPU request.
// The runner tests need the data set (package dataset-fashion-mnist) and skip without it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "render/demos/cnn_runner.h"
#include "render/demos/panel_cnn.h"

namespace ms {
namespace {

TEST(CnnPanelLayout, GridPagesCoverTheTestSetAndClamp) {
    CnnGridPage p = cnn_grid_page(10000, 0);
    EXPECT_EQ(p.pages, 313);  // 312 full pages of 32 and one of 16
    EXPECT_EQ(p.first, 0);
    EXPECT_EQ(p.count, 32);
    p = cnn_grid_page(10000, 312);
    EXPECT_EQ(p.first, 9984);
    EXPECT_EQ(p.count, 16);
    EXPECT_EQ(cnn_grid_page(10000, 999).page, 312);  // past the end: the last page
    EXPECT_EQ(cnn_grid_page(10000, -3).page, 0);
    p = cnn_grid_page(0, 5);  // "wrong only" with nothing wrong
    EXPECT_EQ(p.pages, 1);
    EXPECT_EQ(p.page, 0);
    EXPECT_EQ(p.count, 0);
    p = cnn_grid_page(70, 2, 32);
    EXPECT_EQ(p.first, 64);
    EXPECT_EQ(p.count, 6);
}

TEST(CnnPanelLayout, PageOfAnImage) {
    EXPECT_EQ(cnn_page_of_image({}, 0), 0);
    EXPECT_EQ(cnn_page_of_image({}, 31), 0);
    EXPECT_EQ(cnn_page_of_image({}, 32), 1);
    EXPECT_EQ(cnn_page_of_image({}, 9999), 312);
    std::vector<int> wrong;
    for (int i = 0; i < 100; ++i) wrong.push_back(7 * i + 3);  // 3, 10, 17, ...
    EXPECT_EQ(cnn_page_of_image(wrong, 3), 0);
    EXPECT_EQ(cnn_page_of_image(wrong, 7 * 32 + 3), 1);  // the 33rd wrong one
    EXPECT_EQ(cnn_page_of_image(wrong, 7 * 99 + 3), 3);
    EXPECT_EQ(cnn_page_of_image(wrong, 4), -1);  // not in the list
    EXPECT_EQ(cnn_page_of_image(wrong, 10000), -1);
}

TEST(CnnPanelLayout, MisclassifiedAreTheImagesWhosePredictionIsNotTheLabel) {
    const std::vector<uint8_t> labels = {0, 1, 2, 3, 4, 5, 9};
    const std::vector<uint8_t> predicted = {0, 2, 2, 3, 6, 5, 7};
    EXPECT_EQ(cnn_misclassified(labels, predicted), (std::vector<int>{1, 4, 6}));
    EXPECT_TRUE(cnn_misclassified(labels, labels).empty());
}

TEST(CnnPanelLayout, ClassesByDecreasingProbabilityTiesByClass) {
    const float p[kCnnClasses] = {0.05f, 0.6f, 0.0f, 0.1f, 0.05f, 0.0f, 0.15f, 0.0f, 0.05f, 0.0f};
    const std::array<int, kCnnClasses> order = cnn_classes_by_probability(p);
    EXPECT_EQ(order, (std::array<int, kCnnClasses>{1, 6, 3, 0, 4, 8, 2, 5, 7, 9}));
}

TEST(CnnPanelLayout, SweepBatchSizesArePowersOfFourTheEndAndTheSlider) {
    EXPECT_EQ(cnn_sweep_batches(1000), (std::vector<int>{1, 4, 16, 64, 256, 1000, 1024, 4096, 10000}));
    EXPECT_EQ(cnn_sweep_batches(256), (std::vector<int>{1, 4, 16, 64, 256, 1024, 4096, 10000}));
    EXPECT_EQ(cnn_sweep_batches(0, 100), (std::vector<int>{1, 4, 16, 64, 100}));
    EXPECT_EQ(cnn_sweep_batches(5000, 100), (std::vector<int>{1, 4, 16, 64, 100}));  // clamped
    EXPECT_EQ(cnn_sweep_images(1, 10000), 512);
    EXPECT_EQ(cnn_sweep_images(256, 10000), 2048);
    EXPECT_EQ(cnn_sweep_images(4096, 10000), 10000);
    EXPECT_EQ(cnn_sweep_images(16, 300), 300);
}

TEST(CnnPanelLayout, SpeedupIsGpuOverCpuImagesPerSecond) {
    std::optional<CnnEvalResult> cpu, gpu;
    EXPECT_EQ(cnn_speedup(cpu, gpu), 0.0);
    cpu.emplace();
    cpu->images_per_second = 40000.0;
    EXPECT_EQ(cnn_speedup(cpu, gpu), 0.0);
    gpu.emplace();
    gpu->images_per_second = 2.9e6;
    EXPECT_DOUBLE_EQ(cnn_speedup(cpu, gpu), 72.5);
}

TEST(CnnPanelLayout, HeatColoursRunFromBlackToPaleYellowGettingBrighter) {
    EXPECT_EQ(cnn_heat_colour(0.0f), IM_COL32(0, 0, 4, 255));
    EXPECT_EQ(cnn_heat_colour(1.0f), IM_COL32(252, 255, 164, 255));
    EXPECT_EQ(cnn_heat_colour(0.5f), IM_COL32(188, 55, 84, 255));  // the middle stop
    EXPECT_EQ(cnn_heat_colour(-1.0f), cnn_heat_colour(0.0f));
    EXPECT_EQ(cnn_heat_colour(7.0f), cnn_heat_colour(1.0f));
    EXPECT_EQ(cnn_heat_colour(NAN), cnn_heat_colour(0.0f));
    auto brightness = [](ImU32 c) { return int(c & 0xff) + int((c >> 8) & 0xff) + int((c >> 16) & 0xff); };
    for (int i = 1; i <= 100; ++i)
        EXPECT_GT(brightness(cnn_heat_colour(i / 100.0f)), brightness(cnn_heat_colour((i - 1) / 100.0f))) << i;
}

TEST(CnnPanelLayout, ConfusionCellsGreenOnTheDiagonalRedOffIt) {
    EXPECT_EQ(cnn_confusion_colour(1000, 1000, true), IM_COL32(40, 150, 70, 255));
    EXPECT_EQ(cnn_confusion_colour(0, 1000, false), IM_COL32(28, 28, 28, 255));
    EXPECT_EQ(cnn_confusion_colour(0, 0, true), IM_COL32(28, 28, 28, 255));         // empty row
    EXPECT_EQ(cnn_confusion_colour(250, 1000, false), IM_COL32(200, 45, 45, 255));  // 25%: full red
    auto red = [](ImU32 c) { return int(c & 0xff); };
    EXPECT_GT(red(cnn_confusion_colour(10, 1000, false)), red(cnn_confusion_colour(0, 1000, false)) + 20)
        << "1% off the diagonal must show";
    EXPECT_GT(red(cnn_confusion_colour(100, 1000, false)), red(cnn_confusion_colour(10, 1000, false)));
}

// ---- The runner, as the main loop drives it -----------------------------------------------------

bool have_data(std::string* why) {
    const std::filesystem::path images = fashion_mnist_images_path(kFashionMnistDefaultDir, FashionMnistSplit::Test);
    if (std::filesystem::exists(images)) return true;
    *why = images.string() + " is missing (install the package " + std::string(kFashionMnistPackage) + ")";
    return false;
}

// Frames until the runner has nothing left (at most a few minutes: the CPU is shared).
void run_frames(CnnDemo& demo, CnnRunner& runner) {
    carry_out_cnn_demo(demo, runner);
    for (int i = 0; i < 600 * 100 && cnn_demo_busy(runner); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        carry_out_cnn_demo(demo, runner);
    }
    ASSERT_FALSE(cnn_demo_busy(runner));
}

TEST(CnnRunner, LoadsClassifiesTheGridAndClassifiesAllOnTheCpu) {
    std::string why;
    if (!have_data(&why)) GTEST_SKIP() << why;
    CnnDemo demo;
    CnnRunner runner;
    demo.open = true;  // opening the panel starts the load by itself
    demo.selected = 42;
    run_frames(demo, runner);
    ASSERT_TRUE(demo.loaded) << demo.load_error;
    ASSERT_TRUE(demo.test);
    EXPECT_EQ(demo.test->count, 10000);
    ASSERT_EQ(demo.predicted.size(), 10000u);
    ASSERT_EQ(demo.probabilities.size(), 100000u);
    // The committed weights get 91.77% of the test set right: 823 wrong.
    EXPECT_EQ(demo.misclassified.size(), 823u);
    for (int i : demo.misclassified) EXPECT_NE(demo.predicted[i], demo.test->labels[i]);
    double sum = 0.0;
    for (int c = 0; c < kCnnClasses; ++c) sum += demo.probabilities[42 * kCnnClasses + c];
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_FALSE(demo.cpu_device.empty());
    // The selected image's feature maps: 16 maps of 28x28, ReLU'd, not all zero.
    EXPECT_EQ(demo.feature_maps_of, 42);
    ASSERT_EQ(demo.feature_maps.size(), size_t(kCnnConv1Channels) * kCnnPixels);
    EXPECT_GE(*std::min_element(demo.feature_maps.begin(), demo.feature_maps.end()), 0.0f);
    EXPECT_GT(*std::max_element(demo.feature_maps.begin(), demo.feature_maps.end()), 0.0f);

    demo.classify_all_cpu = true;  // as the button would
    demo.batch = 2500;
    carry_out_cnn_demo(demo, runner);
    demo.classify_all_cpu = false;
    EXPECT_EQ(demo.task, CnnTask::ClassifyAll);
    run_frames(demo, runner);
    ASSERT_TRUE(demo.cpu_result.has_value()) << demo.message;
    EXPECT_EQ(demo.cpu_result->images, 10000);
    EXPECT_EQ(demo.cpu_result->correct, 10000 - 823);  // the same predictions as the grid's
    EXPECT_EQ(demo.cpu_result->batch, 2500);
    EXPECT_GT(demo.cpu_result->images_per_second, 0.0);
    EXPECT_EQ(demo.task, CnnTask::None);
    stop_cnn_runner(runner);
}

TEST(CnnRunner, ClassifyingOnAMissingGpuSaysWhyAndCancelStopsASweep) {
    std::string why;
    if (!have_data(&why)) GTEST_SKIP() << why;
    CnnDemo demo;
    CnnRunner runner;
    queue_cnn_job(runner, {CnnTask::ClassifyAll, CnnBackend::Cuda, 1000});  // queued before any load
    run_frames(demo, runner);
    ASSERT_TRUE(demo.loaded) << demo.load_error;  // the queued job loaded the data first
    if (demo.cuda_unavailable.empty()) {
        EXPECT_TRUE(demo.cuda_result.has_value()) << demo.message;  // a GPU machine
    } else {
        EXPECT_FALSE(demo.cuda_result.has_value());
        EXPECT_TRUE(demo.message_is_error);
        EXPECT_NE(demo.message.find(demo.cuda_unavailable), std::string::npos) << demo.message;
    }

    demo.start_sweep = true;
    carry_out_cnn_demo(demo, runner);
    demo.start_sweep = false;
    EXPECT_EQ(demo.task, CnnTask::Sweep);
    demo.cancel = true;
    carry_out_cnn_demo(demo, runner);
    demo.cancel = false;
    run_frames(demo, runner);
    EXPECT_NE(demo.message.find("cancelled"), std::string::npos) << demo.message;
    EXPECT_LT(demo.cpu_sweep.size(), cnn_sweep_batches(1000).size());
    stop_cnn_runner(runner);
}

}  // namespace
}  // namespace ms
