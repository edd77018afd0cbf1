// test_render_status_line.cpp: the status line's first line (render/ui/panels.h,
// status_line_text) says "CPU (no GPU: <reason>)" when the CPU runs because CUDA cannot, plain
// "CPU" or "CUDA" otherwise, and shows the UI's own time per frame (not a frame rate, which
// would count the idle waits of a window that draws only when something changes); on a deep
// path, the number type, the extended zoom, the reference and BLA figures and the GPUs a frame
// was spread over.
#include <gtest/gtest.h>

#include "render/ui/panels.h"

namespace ms {
namespace {

TEST(StatusLine, SaysWhyThereIsNoGpu) {
    StatusLineState s;
    s.backend = Backend::Cpu;
    s.path = RenderPath::Cpu;
    s.cuda_unavailable = "no NVIDIA driver is installed";
    s.ui_frame_ms = 12.5;
    const std::string text = status_line_text(s);
    EXPECT_EQ(text.rfind("CPU (no GPU: no NVIDIA driver is installed) | path: cpu", 0), 0u) << text;
    EXPECT_NE(text.find("UI 12.5 ms/frame"), std::string::npos) << text;
    EXPECT_EQ(text.find("fps"), std::string::npos) << text;
}

TEST(StatusLine, PlainBackendWhereTheGpuWorks) {
    StatusLineState s;
    s.backend = Backend::Cpu;
    EXPECT_EQ(status_line_text(s).rfind("CPU | ", 0), 0u);
    s.backend = Backend::Cuda;
    s.path = RenderPath::Interop;
    EXPECT_EQ(status_line_text(s).rfind("CUDA | path: interop", 0), 0u);
}

// A deep path: the number type, the extended zoom, and the reference and BLA figures.
TEST(StatusLine, DeepPathShowsReferenceAndBla) {
    StatusLineState s;
    s.backend = Backend::Cuda;
    s.path = RenderPath::DeepCuda;
    s.deep = true;
    s.precision = Precision::DeepFloatExp;
    ASSERT_EQ(ViewZoom::parse("4.00000000000E533", &s.zoom), "");
    s.iterations = 120000;
    std::string text = status_line_text(s);
    EXPECT_NE(text.find("CUDA | path: deep-cuda | perturbation floatexp"), std::string::npos) << text;
    EXPECT_NE(text.find("zoom 4E533 | 120000 iterations"), std::string::npos) << text;
    EXPECT_EQ(text.find("reference"), std::string::npos) << text;  // no frame yet: no figures
    s.deep_frame_done = true;
    s.deep_stats.precision_bits = 3434;  // 1034 decimal digits
    s.deep_stats.reference_iterations = 18449;
    s.deep_stats.reference_ms = 163.4;
    s.deep_stats.bla_levels = 16;
    s.deep_stats.iterations = 1000;
    s.deep_stats.bla_iterations = 994;
    text = status_line_text(s);
    EXPECT_NE(text.find("| reference 1034 digits, 18449 iterations, 163 ms, new | BLA 16 levels (CPU), 99.4% of "
                        "iterations skipped"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("spread over"), std::string::npos) << text;
    s.deep_devices = 2;  // a frame shared out over two GPUs (deep_multi_gpu.h)
    EXPECT_NE(status_line_text(s).find("| spread over 2 GPUs"), std::string::npos) << status_line_text(s);
    s.deep_devices = 1;
    // Where the table was built, and whether it was kept from an earlier frame.
    s.deep_stats.bla_on_device = true;
    s.deep_stats.bla_cached = true;
    text = status_line_text(s);
    EXPECT_NE(text.find("| BLA 16 levels (GPU, cached), 99.4%"), std::string::npos) << text;
    s.deep_stats.bla_on_device = false;
    s.deep_stats.bla_cached = false;
    s.deep_stats.reference_cached = true;
    text = status_line_text(s);
    EXPECT_NE(text.find("18449 iterations, cached |"), std::string::npos) << text;
    EXPECT_EQ(text.find("reused"), std::string::npos) << text;
    // An orbit that stopped at the period of a nucleus in view (deep_reference.h) says so.
    s.deep_stats.reference_period = 18449;
    text = status_line_text(s);
    EXPECT_NE(text.find("18449 iterations (stopped at a period), cached |"), std::string::npos) << text;
    s.deep_stats.reference_period = 0;
    // A whole-pixel pan of the last frame: the share of its pixels taken as they were.
    s.width = 1920;
    s.height = 1080;
    s.deep_stats.reused_pixels = uint64_t(1918) * 1080;
    s.deep_stats.pan_x = -2;
    text = status_line_text(s);
    EXPECT_NE(text.find("| reused 99.9% of pixels (panned 2 px)"), std::string::npos) << text;
}

}  // namespace
}  // namespace ms
