// test_png_bench.cpp: where one core's time goes per byte of RGB when a big fractal frame is
// written as PNG, as DISABLED_ tests (never run by CTest; run by hand). Prints figures and
// asserts only that the steps produced output. It serves the goal that a 16384x16384 CUDA
// export be bound by the disk, not by deflate (see docs/performance.md).
//
// The frame: bands of rows of the default view at 16384x16384 (the frame of the goal), computed
// by direct_cpu and coloured by colourize as the CUDA kernels would colour them (same
// escape counts, same palette). Each step then runs on one thread over the bands, one segment
// of kPngSegmentBytes at a time as png_encode.cpp cuts them, its buffers reused: colouring (the
// CPU path only: CUDA colours on the GPU), the filter (RGBA to RGB in the same pass), the Adler-32, our
// deflate and the CRC-32 of its output; then PngEncoder::encode_rows on one thread, the real
// thing (its sum of the above, less the colouring). The steps take turns within each round so
// that a load on the machine touches them alike; figures are medians of the rounds, in MB/s of
// RGB (3 bytes a pixel) and ns a pixel, timed by the thread's CPU clock (everything runs on the
// calling thread), so that time spent waiting for a core on a loaded machine is not counted; the
// median wall time of the whole encode is printed beside it.
//   build/bin/test_png_bench --gtest_also_run_disabled_tests
//   MANDELSCOPE_PNG_BENCH_SIZE=3840x2160 MANDELSCOPE_PNG_BENCH_ROUNDS=9 build/bin/test_png_bench ...
// (default 16384x16384, four bands of 512 rows at 1/8, 3/8, 5/8 and 7/8 of the height; a frame
// of at most 4096 rows is taken whole).
#include <gtest/gtest.h>
#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/io/png_deflate.h"
#include "compute/io/png_encode.h"

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Band {
    int rows = 0;
    std::vector<float> mu;
    std::vector<uint8_t> rgba;
};

struct Frame {
    int width = 0;
    std::vector<Band> bands;
    size_t pixels() const {
        size_t n = 0;
        for (const Band& b : bands) n += size_t(b.rows) * size_t(width);
        return n;
    }
};

Frame make_frame(const ms::PaletteTable& table, ms::View* view_out) {
    ms::View view;
    view.width = 16384;
    view.height = 16384;
    if (const char* s = std::getenv("MANDELSCOPE_PNG_BENCH_SIZE")) std::sscanf(s, "%dx%d", &view.width, &view.height);
    *view_out = view;
    Frame frame;
    frame.width = view.width;
    std::vector<ms::PixelRect> rects;
    if (view.height <= 4096) {
        rects.push_back(ms::full_rect(view));
    } else {
        for (int k = 0; k < 4; ++k) rects.push_back({0, (2 * k + 1) * view.height / 8 - 256, view.width, 512});
    }
    for (const ms::PixelRect& rect : rects) {
        Band band;
        band.rows = rect.height;
        band.mu.resize(size_t(rect.width) * size_t(rect.height));
        band.rgba.resize(band.mu.size() * 4);
        ms::direct_cpu(view, ms::Precision::Fp32, ms::Shortcuts{}, rect, band.mu.data());
        ms::colourize(band.mu.data(), int64_t(band.mu.size()), table, view, band.rgba.data());
        frame.bands.push_back(std::move(band));
    }
    return frame;
}

// Calls step(band, first_row, rows) for each segment of each band, in order.
void for_each_segment(const Frame& frame, const std::function<void(const Band&, int, int)>& step) {
    const size_t row_bytes = size_t(frame.width) * 3 + 1;
    const int seg_rows = int(std::max<size_t>(1, ms::kPngSegmentBytes / row_bytes));
    for (const Band& band : frame.bands)
        for (int y = 0; y < band.rows; y += seg_rows) step(band, y, std::min(seg_rows, band.rows - y));
}

TEST(PngBench, DISABLED_StepsOnOneCore) {
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    ms::View view;
    const Frame frame = make_frame(table, &view);
    const int width = frame.width;
    const size_t pixels = frame.pixels(), rgb_bytes = pixels * 3;
    int rounds = 7;
    if (const char* s = std::getenv("MANDELSCOPE_PNG_BENCH_ROUNDS")) rounds = std::max(1, std::atoi(s));
    std::printf("frame: %dx%d default view, %zu rows in %zu band(s), %.1f MB of RGB; %d rounds, one thread\n",
                view.width, view.height, pixels / size_t(width), frame.bands.size(), rgb_bytes / 1e6, rounds);

    // Scratch as png_encode.cpp keeps it: one segment's RGBA, filtered bytes, output.
    const size_t row_rgba = size_t(width) * 4, stride = size_t(width) * 3 + 1;
    const size_t seg_rows = std::max<size_t>(1, ms::kPngSegmentBytes / stride);
    std::vector<uint8_t> seg_rgba(seg_rows * row_rgba), filtered(seg_rows * stride);
    std::vector<uint8_t> deflated;
    deflated.reserve(2 * ms::kPngSegmentBytes);
    const std::vector<uint8_t> zero_row(row_rgba, 0);
    uint64_t sink = 0;  // keeps every result live
    size_t deflated_total = 0;
    // Filters rows [y, y + rows) of a band into out (the row above the band's first is zero).
    auto filter_rows = [&](const Band& band, int y, int rows, uint8_t* out) {
        for (int k = 0; k < rows; ++k) {
            const uint8_t* row = band.rgba.data() + (size_t(y) + k) * row_rgba;
            ms::png_filter_row(row, y + k ? row - row_rgba : zero_row.data(), width, out + size_t(k) * stride);
        }
    };

    // Each step's input is prepared once, outside the timed loop, from the step before: the
    // filtered bytes (for Adler and deflate) and the deflated ones (for the CRC).
    std::vector<std::vector<uint8_t>> seg_filtered, seg_deflated;
    for_each_segment(frame, [&](const Band& band, int y, int rows) {
        std::vector<uint8_t> f(size_t(rows) * stride);
        filter_rows(band, y, rows, f.data());
        std::vector<uint8_t> d;
        ms::png_deflate_segment(f.data(), f.size(), &d);
        seg_filtered.push_back(std::move(f));
        seg_deflated.push_back(std::move(d));
    });

    struct Step {
        const char* name;
        std::function<void()> run;
        std::vector<double> ms;  // thread CPU time
        std::vector<double> wall_ms;
    };
    std::vector<Step> steps;
    steps.push_back({"colourize (CPU path only)",
                     [&] {
                         for_each_segment(frame, [&](const Band& band, int y, int rows) {
                             ms::colourize(band.mu.data() + size_t(y) * width, int64_t(rows) * width, table, view,
                                           seg_rgba.data());
                             sink += seg_rgba[0];
                         });
                     },
                     {},
                     {}});
    steps.push_back({"filter (Up, RGBA to RGB)",
                     [&] {
                         for_each_segment(frame, [&](const Band& band, int y, int rows) {
                             filter_rows(band, y, rows, filtered.data());
                             sink += filtered[1];
                         });
                     },
                     {},
                     {}});
    steps.push_back({"Adler-32",
                     [&] {
                         for (const std::vector<uint8_t>& f : seg_filtered)
                             sink += ms::png_adler32(1, f.data(), f.size());
                     },
                     {},
                     {}});
    steps.push_back({"deflate (parse + Huffman + emit)",
                     [&] {
                         deflated_total = 0;
                         for (const std::vector<uint8_t>& f : seg_filtered) {
                             deflated.clear();
                             ms::png_deflate_segment(f.data(), f.size(), &deflated);
                             deflated_total += deflated.size();
                         }
                     },
                     {},
                     {}});
    steps.push_back({"CRC-32 of the output (png_crc32)",
                     [&] {
                         for (const std::vector<uint8_t>& d : seg_deflated)
                             sink += ms::png_crc32(0, d.data(), d.size());
                     },
                     {},
                     {}});
    size_t encoded_total = 0;
    ms::PngStreamPieces pieces;  // reused from call to call, as the PNG writer reuses them
    steps.push_back({"PngEncoder::encode_rows, 1 thread",
                     [&] {
                         encoded_total = 0;
                         for (const Band& band : frame.bands) {
                             ms::PngEncoder encoder(width);
                             encoder.encode_rows(band.rgba.data(), band.rows, &pieces);
                             encoded_total += pieces.total_bytes();
                         }
                     },
                     {},
                     {}});

    const int threads_before = omp_get_max_threads();
    omp_set_num_threads(1);
    for (Step& s : steps) s.run();  // warm-up: first-touch pages, dispatch
    for (int r = 0; r < rounds; ++r) {
        for (Step& s : steps) {
            const auto t0 = Clock::now();
            const double cpu0 = thread_cpu_ms();
            s.run();
            s.ms.push_back(thread_cpu_ms() - cpu0);
            s.wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
    }
    omp_set_num_threads(threads_before);

    std::printf("%-36s %10s %12s %10s %8s\n", "step (one core)", "CPU ms", "MB/s of RGB", "ns/pixel", "share");
    const double whole = median(steps.back().ms);
    double parts = 0;
    for (const Step& s : steps) {
        const double m = median(s.ms);
        const bool is_part = &s != &steps.front() && &s != &steps.back();
        if (is_part) parts += m;
        std::printf("%-36s %10.2f %12.0f %10.3f %7.1f%%\n", s.name, m, rgb_bytes / (m * 1e3), m * 1e6 / double(pixels),
                    is_part ? 100.0 * m / whole : 0.0);
    }
    std::printf("%-36s %10.2f %12.0f %10.3f   (the encoder's steps above, summed)\n", "sum of RGB..CRC", parts,
                rgb_bytes / (parts * 1e3), parts * 1e6 / double(pixels));
    std::printf("encode_rows: %.2f ms of wall time (median), %.2f ms of the thread's CPU time\n",
                median(steps.back().wall_ms), whole);
    std::printf("deflate output %zu bytes (%.2f%% of the filtered bytes); encode_rows %zu bytes; sink %llu\n",
                deflated_total, 100.0 * deflated_total / double(pixels * 3 + pixels / size_t(width)), encoded_total,
                (unsigned long long)(sink & 0xff));
    EXPECT_GT(deflated_total, 0u);
    EXPECT_GT(encoded_total, deflated_total / 2);
}

}  // namespace
