// test_render_status_line.cpp: the status line's first line (render/ui/panels.h,
// status_line_text) says "CPU (no GPU: <reason>)" when the CPU runs because CUDA cannot, plain
// "CPU" or "CUDA" otherwise, and shows the UI's own time per frame (not a frame rate, which
// would count the idle waits of a window that draws only when something changes).
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

}  // namespace
}  // namespace ms
