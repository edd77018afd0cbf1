// deep_multi_gpu.h: one deep frame spread over several CUDA devices of this host.
//
// The reference orbit is computed once, on the host (deep_frame_setup through a ReferenceCache);
// each device then finds it there, keeps its own copy and builds its own BLA tables from it
// (deep_cuda.h: equal bit for bit on every device). The frame is cut into bands of whole rows,
// and one host thread per worker pulls the next band from a shared queue and renders it with
// deep_cuda(region = band, device = its device): a slower device or a harder band never holds
// up the end by more than one band. Each pixel of a band is the whole frame's bit for bit
// (DeepRenderOptions::region), so the frame equals one device's whatever the split.
//
// Each entry of the device list (a "slot"; a device named twice is two slots) runs
// workers_per_slot threads, each with a stream of its own, so that one band's host work (its
// setup, copies, and the copy into the frame) overlaps another band's kernel on the same device.
//
// A worker whose band throws (a device that fails mid-run) puts the band back on the queue and
// stops its slot; the other slots finish the frame, and DeepSpreadFrame::shares says which slot
// failed and why. Only when every slot has failed does the frame fail, with the first failure's
// sentence.
//
// deep_spread_frame is the engine with the band's renderer as a parameter: deep_multi_gpu
// passes deep_cuda; tests pass deep_cpu, which checks the queue, the split and the handing over
// of a failed slot's bands on a machine without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms {

struct PaletteTable;  // compute/fractal/colour/palette.h
struct View;          // compute/fractal/view/view.h

// A band's pixels (whole rows) when DeepSpreadOptions::band_rows is 0: about the frame's pixels
// over kDeepBandsPerWorker bands a worker, kept between these bounds (enough pixels to fill a
// device, few enough that the last bands finish together).
inline constexpr int64_t kDeepBandMinPixels = int64_t(1) << 18;
inline constexpr int64_t kDeepBandMaxPixels = int64_t(1) << 21;
inline constexpr int kDeepBandsPerWorker = 8;

struct DeepSpreadOptions {
    // The CUDA devices (cudaGetDeviceCount's numbering), one slot each, in this order; a device
    // may be named more than once. Empty: every visible device once (deep_visible_devices).
    std::vector<int> devices;
    // Host threads feeding each slot; 0: automatic (deep_spread_workers_per_slot).
    int workers_per_slot = 0;
    int band_rows = 0;         // rows a band; 0: from the frame's size (kDeepBand*)
    // A test's stand-in for a device that fails mid-run (fault_injection.h's device_fail): the
    // first worker of this slot throws instead of rendering its band once it has rendered
    // fail_after_bands bands. -1: none.
    int fail_slot = -1;
    int fail_after_bands = 1;
    // Called from a worker's thread once a band's rows [first_row, first_row + rows) of the
    // frame's region are in `frame` (the whole frame, its other rows still coming), so that a
    // caller can colour and write rows while the devices render the rest. Bands land in any
    // order, each once; calls may run at once on several threads.
    std::function<void(const DeepFrame& frame, int first_row, int rows)> band_done;
    // Colours where the bands render: when set, each band is coloured by its slot's renderer
    // (deep_multi_gpu: on its device, colour_deep_frame_cuda_to_host) with colour_palette and
    // colour_view, a plain colouring (colourize_deep's: per pixel, so a band's colours are the
    // whole frame's), and only its RGBA (4 bytes a pixel, not the 16 of its counts and mu) comes
    // back, to band_rgba: the band's rows [first_row, first_row + rows) of the region, each band
    // once, from any worker's thread, in any order, with the frame (its number type is known).
    // The frame's outputs then stay empty (its stats are kept) and band_done is not called.
    std::function<void(const DeepFrame& frame, const uint8_t* rgba, int first_row, int rows)> band_rgba;
    const PaletteTable* colour_palette = nullptr;
    const View* colour_view = nullptr;
};

// The workers a slot gets: workers_per_slot where given, else 2 (one band's host work beside
// another's kernel), or 4 where band_done or band_rgba is set: with band_done the workers colour
// the bands they land on the CPU, and two colouring at once would leave the device idle; with
// band_rgba four workers on one H200 made a 16384x16384 poster 4% faster than two (8.1-8.2 s
// against 8.4-8.5 s).
int deep_spread_workers_per_slot(const DeepSpreadOptions& spread);

// What one slot did.
struct DeepDeviceShare {
    int device = -1;
    int bands = 0;          // rendered (a band handed back counts for the slot that finished it)
    int64_t rows = 0;
    uint64_t iterations = 0;
    double busy_ms = 0.0;   // its workers' time in their band renders, added up
    double bla_ms = 0.0;    // building its BLA tables (its first band)
    bool failed = false;
    std::string failure;    // the failure's sentence, when failed
};

struct DeepSpreadFrame {
    // The whole frame (or options.region of it), as one device renders it; stats sums the bands'
    // counts, and pixels_ms is the bands' wall time (the first band's start to the last one's end).
    DeepFrame frame;
    std::vector<DeepDeviceShare> shares;  // one per slot
    int band_rows = 0;
    int bands = 0;
    int failed_slots() const;
    // "device 1 (slot 2) failed: <sentence>; its bands went to the other devices", one line per
    // failed slot; empty when none failed.
    std::string failure_text() const;
};

// Renders one band: `options` is the frame's with region (the band) and device (the slot's)
// set; worker numbers the calling thread (0 .. workers - 1), which no other thread shares.
// colour: null, or (DeepSpreadOptions::band_rgba) the spread's colouring, into `rgba` (the
// band's pixels x 4 bytes); the returned frame's outputs may then be empty.
struct DeepBandColour {
    const PaletteTable* palette = nullptr;
    const View* view = nullptr;
    uint8_t* rgba = nullptr;
};
using DeepBandRender =
    std::function<DeepFrame(int worker, const DeepLocation& location, int width, int height,
                            const DeepRenderOptions& options, const DeepBandColour* colour)>;

// The engine (see the header comment). options.cache: the frame's ReferenceCache (null: one of
// its own); its bla_capacity is raised to hold every slot's tables. options.row_progress is
// called with the rows of finished bands, options.reference_progress by the reference.
// Throws std::invalid_argument on a bad location, size or device list (an empty list, a device
// below 0), and std::runtime_error with the first failure's sentence when every slot failed.
DeepSpreadFrame deep_spread_frame(const DeepLocation& location, int width, int height,
                                  const DeepRenderOptions& options, const DeepSpreadOptions& spread,
                                  const DeepBandRender& render);

// deep_spread_frame with deep_cuda on each slot's device (a non-blocking stream per worker).
DeepSpreadFrame deep_multi_gpu(const DeepLocation& location, int width, int height, const DeepRenderOptions& options,
                               const DeepSpreadOptions& spread = {});

// 0 .. cudaGetDeviceCount - 1; empty where CUDA cannot run.
std::vector<int> deep_visible_devices();

// Starts each distinct device's context (a first stream on it) on a helper thread of its own, so
// that a later deep_multi_gpu finds them started; the future is ready once all are (a device that
// cannot start is left to deep_multi_gpu, which says why). Its destructor waits for them.
std::future<void> deep_start_devices(const std::vector<int>& devices);

// "0,1" -> {0, 1}: comma-separated device numbers, each >= 0 and below device_count, repeats
// allowed. Returns "" or one sentence saying what is wrong.
std::string parse_device_list(const std::string& text, int device_count, std::vector<int>* devices);
// Its two halves: the numbers (no driver needed; `devices` is left empty on a problem), and
// whether each is below device_count.
std::string parse_device_numbers(const std::string& text, std::vector<int>* devices);
std::string check_device_numbers(const std::vector<int>& devices, int device_count);

}  // namespace ms
