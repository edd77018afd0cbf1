// deep_render_worker.cpp: deep-zoom frames on a worker thread (see the header).
#include "render/frame/deep_render_worker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/scale/deep_multi_gpu.h"
#include "compute/fractal/view/deep_navigation.h"
#include "compute/fractal/deep/deep_pan.h"
#include "render/frame/worker_requests.h"

namespace ms {

namespace {

constexpr int kCoarseBlock = 8;            // the coarse pass samples one pixel per 8x8 block
constexpr double kPreviewAfterMs = 100.0;  // frames expected to take less skip the coarse pass
// Headroom of a new reference orbit: 40 more bits than the depth needs (12 decades of zoom in
// before its precision runs short) and an eighth more iterations (automatic iterations grow by
// 600 a decade), so wheel notches into a deep location reuse one orbit instead of recomputing
// it every notch or two.
constexpr int64_t kPrecisionHeadroomBits = 40;
// BLA headroom: the window's tables are built for a largest |dc| of this many image diagonals
// (in pixel spacings) instead of the frame's own. The reference serves while its point stays
// inside the image (deep_reference.h), so a frame's largest |dc| is at most its half diagonal
// plus the reference's distance from the centre, another half diagonal at most: with one
// diagonal a drag keeps its table for as long as it keeps its orbit. Measured at e50 and 4e533
// (tests/fractal/deep/test_deep_pan_bench.cpp): tables for one and two diagonals do exactly the work
// of the frame's own (the same steps and skips, the same escape counts), so it costs nothing.
constexpr double kBlaHeadroomDiagonals = 1.0;
// A pan's strips expected to take less than this (by the last full pass's time per pixel) are
// not cancelled by a newer view (render_panned).
constexpr double kPanFinishMs = 100.0;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The coarse pass's location: one pixel per block x block, on exactly the block centres of the
// full grid (its size rounded up, so its centre moves by half the extra width and height).
DeepLocation coarse_location(const DeepLocation& full, int width, int height, int block, int* coarse_width,
                             int* coarse_height) {
    *coarse_width = (width + block - 1) / block;
    *coarse_height = (height + block - 1) / block;
    DeepLocation coarse = full;
    coarse.zoom = deep_zoom_scaled(full.zoom, double(height) / (double(block) * *coarse_height));
    const int64_t digits = deep_center_fraction_digits(full.zoom, height);
    coarse.center_re = deep_offset_decimal(full.center_re, 0.5 * (*coarse_width * block - width), full.zoom, height,
                                           digits);
    coarse.center_im = deep_offset_decimal(full.center_im, -0.5 * (*coarse_height * block - height), full.zoom, height,
                                           digits);
    return coarse;
}

// Whether a CUDA pass (of options.region where it has one) is shared out over the worker's devices.
bool spreads(const DeepRenderWorker& w, int width, int height, const DeepRenderOptions& options) {
    const int64_t pixels = options.region.empty() ? int64_t(width) * height
                                                  : int64_t(options.region.width) * options.region.height;
    return w.devices.size() > 1 && pixels >= w.spread_min_pixels;
}

// One pass through the device asked for (spread over the worker's devices where spreads() says
// so, its outputs then on the host only); on a CUDA failure the pass (and every later frame)
// runs on the CPU, and the reason is kept for the status line.
DeepFrame render_pass(DeepRenderWorker& w, const DeepLocation& location, int width, int height,
                      const DeepRenderOptions& options, bool* use_cuda) {
    if (*use_cuda) {
        try {
            if (spreads(w, width, height, options)) {
                DeepRenderOptions host = options;
                host.device_frame = nullptr;
                DeepSpreadOptions spread;
                spread.devices = w.devices;
                DeepSpreadFrame spread_frame = deep_multi_gpu(location, width, height, host, spread);
                // A device that failed (its bands went to the others) takes no later frame.
                for (const DeepDeviceShare& share : spread_frame.shares)
                    if (share.failed) std::erase(w.devices, share.device);
                return std::move(spread_frame.frame);
            }
            DeepRenderOptions on_stream = options;
            on_stream.cuda_stream = w.cuda_stream.get();  // the worker's own stream
            return deep_cuda(location, width, height, on_stream);
        } catch (const std::runtime_error& e) {
            std::lock_guard lock(w.mutex);
            w.cuda_error = e.what();
            *use_cuda = false;
        }
    }
    return deep_cpu(location, width, height, options);
}

// colourize_deep over one rectangle of a whole frame (plain colouring: each pixel alone).
void colourize_rect(const DeepFrame& frame, const DeepPixelRect& rect, const PaletteTable& palette, const View& view,
                    uint8_t* rgba) {
    for (int y = rect.y; y < rect.y + rect.height; ++y) {
        const size_t start = size_t(y) * frame.width + size_t(rect.x);
        colourize_deep(frame.mu.data() + start, rect.width, palette, view.palette_density, view.palette_offset,
                       rgba + start * 4);
    }
}

bool same_colours(const DeepPanRecord& last, const PaletteTable& palette, const View& view) {
    return last.colours_on_host && last.plain_colouring && last.palette_density == view.palette_density &&
           last.palette_offset == view.palette_offset && last.palette.interior_rgba == palette.interior_rgba &&
           last.palette.rgba == palette.rgba;
}

// Under w.mutex: request `id`'s frame of `view` is the display's now, every row of it new to the
// UI; on_device: it is w.device.rgba[w.device_front], else w.rgba.
void mark_published(DeepRenderWorker& w, uint64_t id, const View& view, bool complete, bool on_device) {
    w.frame_id = id;
    w.frame_view = view;
    w.fresh = true;
    w.dirty_begin = 0;
    w.dirty_end = view.height;
    w.complete = complete;
    w.frame_on_device = on_device;
}

// Publishes pixels for the UI; false when the request went stale meanwhile (unless even_if_stale:
// a finished pan is a whole view of a place the drag passed, and the UI draws it moved under
// the newer one).
bool publish(DeepRenderWorker& w, uint64_t id, const View& view, std::vector<uint8_t>&& rgba, bool complete,
             bool even_if_stale = false) {
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel && !even_if_stale) return false;
        std::swap(w.rgba, rgba);  // the display's old buffer comes back for the next publish
        mark_published(w, id, view, complete, false);
    }
    w.spare_rgba = std::move(rgba);
    if (w.on_news) w.on_news();
    return true;
}

// Publishes the complete frame coloured into w.device.rgba[buffer]: it becomes the front buffer,
// which the UI copies from under the lock, and the other one the worker's next.
bool publish_device(DeepRenderWorker& w, uint64_t id, const View& view, int buffer) {
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.device_front = buffer;
        mark_published(w, id, view, true, true);
    }
    if (w.on_news) w.on_news();
    return true;
}

void set_progress(DeepRenderWorker& w, DeepPhase phase, double progress) {
    std::lock_guard lock(w.mutex);
    w.phase = phase;
    w.progress = progress;
}

// Keeps a complete frame (and its colours, where they are on the host: rgba may be null) for the
// next request's pan. Its place is the anchor of the pans that follow.
void keep_frame(DeepRenderWorker& w, const DeepLocation& location, DeepNumberType number_type, DeepFrame&& frame,
                const std::vector<uint8_t>* rgba, const PaletteTable& palette, const View& view) {
    DeepPanRecord& last = w.last;
    last.valid = frame.reference != nullptr;
    last.anchor = location;
    last.anchor_shift_x = 0;
    last.anchor_shift_y = 0;
    last.number_type = number_type;
    last.frame = std::move(frame);
    // The window colours from mu alone: the escape counts are not kept (at 1080p that is 16 MB
    // less to hold, and to move on every view of a drag).
    last.frame.escape_count = {};
    last.colours_on_host = rgba != nullptr;
    if (rgba) last.rgba = *rgba;
    else last.rgba.resize(size_t(last.frame.width) * last.frame.height * 4);
    last.palette = palette;
    last.palette_density = view.palette_density;
    last.palette_offset = view.palette_offset;
    last.plain_colouring = colouring_is_plain(view.colouring);
}

enum class PanResult { NotAPan, Done, Cancelled };

// A request that pans the last complete frame by whole pixels, with its reference orbit, zoom,
// size, iterations, map and number type: the last frame's pixels moved, the exposed strips
// rendered (deep_pan.h), the whole frame coloured (only the strips when the colours are the
// same) and handed over. NotAPan: anything else (the caller renders the frame in full).
PanResult render_panned(DeepRenderWorker& w, const WorkerRequest& request, const DeepLocation& location,
                        const DeepRenderOptions& options, const ReferenceOrbit* orbit, bool* use_cuda,
                        Clock::time_point start) {
    DeepPanRecord& last = w.last;
    const View& view = request.view;
    const int width = view.width, height = view.height;
    // Colouring layers (histogram, slopes, DE) depend on the whole frame and on more than mu:
    // those views render in full.
    if (!last.valid || last.frame.reference.get() != orbit || last.frame.width != width ||
        last.frame.height != height || last.number_type != options.number_type || !colouring_is_plain(view.colouring) ||
        options.distance)
        return PanResult::NotAPan;
    int anchor_x = 0, anchor_y = 0;
    if (!deep_pan_shift(last.anchor, location, width, height, &anchor_x, &anchor_y)) return PanResult::NotAPan;
    const int shift_x = anchor_x - last.anchor_shift_x, shift_y = anchor_y - last.anchor_shift_y;
    if (std::abs(shift_x) >= width || std::abs(shift_y) >= height) return PanResult::NotAPan;

    set_progress(w, DeepPhase::Pixels, 0.0);
    // The strips first: a newer request may cancel them, and the last frame must then still be
    // whole (the next pan starts from it).
    DeepPixelRect strips[2];
    const int count = shift_x != 0 || shift_y != 0 ? deep_pan_strips(width, height, shift_x, shift_y, strips) : 0;
    double strip_pixels = 0.0;
    for (int i = 0; i < count; ++i) strip_pixels += double(strips[i].width) * strips[i].height;
    // Short strips finish even when a newer view comes meanwhile (a CUDA kernel does anyway): the
    // last frame then moves on with them, so a continuous drag, whose views come faster than a
    // frame, keeps advancing, and the next view computes only what was dragged since.
    const bool finish = w.last_ms_per_pixel > 0.0 && w.last_ms_per_pixel * strip_pixels < kPanFinishMs;
    std::vector<DeepFrame> parts;
    const Clock::time_point strips_start = Clock::now();
    for (int i = 0; i < count; ++i) {
        DeepRenderOptions strip_options = options;
        strip_options.region = strips[i];
        if (finish) strip_options.cancel = nullptr;  // the orbit is cached: nothing long runs
        parts.push_back(render_pass(w, location, width, height, strip_options, use_cuda));
        if (parts.back().stats.cancelled || (!finish && w.cancel)) return PanResult::Cancelled;
        if (parts.back().reference.get() != orbit) return PanResult::NotAPan;  // the cache changed its mind
    }
    // The figures of the strips computed; the frame's own (number type, reference, BLA levels)
    // where nothing was.
    DeepFrameStats stats = last.frame.stats;
    stats.iterations = stats.bla_iterations = stats.bla_skips = stats.perturbation_steps = 0;
    stats.rebases = stats.escaped_pixels = 0;
    stats.bla_ms = stats.pixels_ms = 0.0;
    stats.bla_cached = true;
    for (const DeepFrame& part : parts) {
        const DeepFrameStats& s = part.stats;
        stats.number_type = s.number_type;
        stats.bla_levels = s.bla_levels;
        stats.bla_cached = stats.bla_cached && s.bla_cached;
        stats.iterations += s.iterations;
        stats.bla_iterations += s.bla_iterations;
        stats.bla_skips += s.bla_skips;
        stats.perturbation_steps += s.perturbation_steps;
        stats.rebases += s.rebases;
        stats.escaped_pixels += s.escaped_pixels;
        stats.bla_ms += s.bla_ms;
        stats.pixels_ms += s.pixels_ms;
    }
    stats.pan_strips_ms = ms_since(strips_start);
    // The last frame becomes this one, in place: its pixels moved, the strips placed, coloured
    // (only the strips when the colours are the same). It stays a whole frame of this place
    // from here on, whatever happens to the request.
    DeepFrame& frame = last.frame;
    Clock::time_point phase_start = Clock::now();
    const int64_t reused = deep_pan_move(&frame, shift_x, shift_y);
    for (const DeepFrame& part : parts) deep_pan_place(part, &frame);
    const bool same = same_colours(last, request.palette, view);
    if (same) deep_pan_move_rgba(last.rgba.data(), width, height, shift_x, shift_y);
    stats.pan_move_ms = ms_since(phase_start);
    phase_start = Clock::now();
    if (same) {
        for (int i = 0; i < count; ++i) colourize_rect(frame, strips[i], request.palette, view, last.rgba.data());
    } else {
        colour_deep_frame(frame, request.palette, view, 1.0, last.rgba.data());
        last.palette = request.palette;
        last.palette_density = view.palette_density;
        last.palette_offset = view.palette_offset;
        last.plain_colouring = true;
        last.colours_on_host = true;
    }
    last.anchor_shift_x = anchor_x;
    last.anchor_shift_y = anchor_y;
    stats.reference_cached = true;
    stats.reference_ms = 0.0;
    stats.cancelled = false;
    stats.reused_pixels = uint64_t(reused);
    stats.pan_x = shift_x;
    stats.pan_y = shift_y;
    stats.pan_colour_ms = ms_since(phase_start);
    phase_start = Clock::now();
    std::vector<uint8_t> rgba = std::move(w.spare_rgba);  // the display's copy, in a buffer it had before
    rgba.resize(last.rgba.size());
    std::memcpy(rgba.data(), last.rgba.data(), last.rgba.size());
    stats.pan_copy_ms = ms_since(phase_start);
    stats.frame_ms = ms_since(start);  // all of it: the strips, the move and the colouring
    frame.stats = stats;
    {
        std::lock_guard lock(w.mutex);
        // A pan whose strips were short enough to finish is shown even when a newer view came
        // meanwhile: a continuous drag posts views faster than they finish, and refusing each
        // finished one would leave the screen on the last view the hand paused at.
        if (w.cancel && !finish) return PanResult::Cancelled;
        w.stats = stats;
        w.ran_on_cuda = *use_cuda;
        w.compute_ms = stats.frame_ms;
        w.phase = DeepPhase::Done;
        w.progress = 1.0;
        w.last_error.clear();
    }
    return publish(w, request.id, view, std::move(rgba), true, finish) ? PanResult::Done : PanResult::Cancelled;
}

// Renders one request on CUDA (use_cuda) or the CPU; returns false when cancelled.
bool render_deep(DeepRenderWorker& w, const DeepRenderRequest& request, bool use_cuda) {
    const auto start = Clock::now();
    const View& view = request.view;
    const DeepLocation location = deep_location(view);
    const int width = view.width, height = view.height;
    DeepRenderOptions options;
    // Automatic: the deep path picks double or FloatExp deltas by depth; a deep precision chosen
    // in the View panel (or --precision) forces one.
    options.number_type = request.precision == Precision::DeepDouble     ? DeepNumberType::Double
                          : request.precision == Precision::DeepFloatExp ? DeepNumberType::FloatExp
                                                                         : DeepNumberType::Auto;
    deep_options_for_colouring(view.colouring, &options);  // the DE layer's estimate
    options.cache = &w.cache;
    options.cancel = &w.cancel;
    options.reference_progress = [&w](int64_t done, int64_t total) {
        set_progress(w, DeepPhase::Reference, total > 0 ? double(done) / double(total) : 0.0);
    };
    options.row_progress = [&w](int done, int rows) { set_progress(w, DeepPhase::Pixels, double(done) / rows); };
    options.bla_min_radius_pixels = kBlaHeadroomDiagonals * std::hypot(double(width), double(height));
    // The devices a full frame may spread over, found once; where there are several, their
    // contexts start on helper threads now, beside the reference, not in the first spread frame.
    if (use_cuda && !w.devices_known) {
        if (w.devices.empty()) w.devices = deep_visible_devices();
        w.devices_known = true;
        if (w.devices.size() > 1) w.devices_started = deep_start_devices(w.devices);
    }

    // 1. The reference: from the cache, or computed here with headroom (then the passes below
    //    find it in the cache).
    set_progress(w, DeepPhase::Reference, 0.0);
    bool reference_cached = true;
    double reference_ms = 0.0;
    std::shared_ptr<const ReferenceOrbit> orbit = w.cache.find(location, width, height);
    if (!orbit) {
        reference_cached = false;
        const int64_t iterations = std::min(kDeepMaxIterations, location.max_iterations + location.max_iterations / 8);
        // Stopped at the period of a nucleus in the frame, as reference_for does (deep_reference.h):
        // the cache keeps it for deeper frames while their half diagonal reaches the nucleus.
        ReferenceControl control{options.cancel, options.reference_progress};
        control.nucleus_radius = deep_half_diagonal(location.zoom, width, height);
        orbit = compute_reference_orbit(location.center_re, location.center_im,
                                        deep_reference_precision_bits(location.zoom, height) + kPrecisionHeadroomBits,
                                        iterations, control, orbit_map(location));
        if (!orbit) return false;
        reference_ms = orbit->compute_ms;
        w.cache.insert(orbit);
    }

    // 1b. A whole-pixel pan of the last frame: its pixels, and the exposed strips.
    if (reference_cached) {
        const PanResult pan = render_panned(w, request, location, options, orbit.get(), &use_cuda, start);
        if (pan != PanResult::NotAPan) return pan == PanResult::Done;
    }

    // 2. The coarse pass, for frames slow enough that the window would show nothing for a while.
    const double pixels = double(width) * height;
    const bool slow = w.last_ms_per_pixel <= 0.0 || w.last_ms_per_pixel * pixels >= kPreviewAfterMs;
    if (pixels > 256.0 * 256.0 && slow) {
        int coarse_width = 0, coarse_height = 0;
        const DeepLocation coarse = coarse_location(location, width, height, kCoarseBlock, &coarse_width,
                                                    &coarse_height);
        DeepRenderOptions coarse_options = options;
        coarse_options.row_progress = nullptr;  // the progress bar is the full pass's
        const DeepFrame frame = render_pass(w, coarse, coarse_width, coarse_height, coarse_options, &use_cuda);
        if (frame.stats.cancelled || w.cancel) return false;
        std::vector<uint8_t> small(frame.mu.size() * 4);
        colour_deep_frame(frame, request.palette, view, double(kCoarseBlock), small.data());
        std::vector<uint8_t> rgba(size_t(width) * height * 4);
        for (int y = 0; y < height; ++y) {
            const uint32_t* src = reinterpret_cast<const uint32_t*>(small.data()) +
                                  size_t(y / kCoarseBlock) * coarse_width;
            uint32_t* dst = reinterpret_cast<uint32_t*>(rgba.data()) + size_t(y) * width;
            for (int x = 0; x < width; ++x) dst[x] = src[x / kCoarseBlock];
        }
        if (!publish(w, request.id, view, std::move(rgba), false)) return false;
        // The full pass's rows replace the coarse ones as they come (the CPU's rows; a CUDA
        // frame arrives whole). Not with colouring layers: a row alone has no slopes, histogram
        // or DE, so the coarse picture stays until the whole frame is coloured.
        if (colouring_is_plain(view.colouring))
            options.row_done = [&w, &request, &view, width](int y, const int64_t*, const double* mu) {
                std::vector<uint8_t> row(size_t(width) * 4);
                colourize_deep(mu, width, request.palette, view.palette_density, view.palette_offset, row.data());
                std::lock_guard lock(w.mutex);
                if (w.cancel || w.frame_id != request.id || w.rgba.size() != size_t(width) * view.height * 4) return;
                std::copy(row.begin(), row.end(), w.rgba.begin() + ptrdiff_t(size_t(y) * width * 4));
                w.dirty_begin = w.dirty_end > w.dirty_begin ? std::min(w.dirty_begin, y) : y;
                w.dirty_end = std::max(w.dirty_end, y + 1);
                w.fresh = true;
            };
    }

    // 3. The full frame: on CUDA for a window that takes it from the device, mu stays there too
    //    and is coloured there, into the RGBA buffer the UI is not reading.
    set_progress(w, DeepPhase::Pixels, 0.0);
    const auto full_start = Clock::now();
    DeepRenderOptions full_options = options;
    const bool spread = use_cuda && spreads(w, width, height, options);
    if (use_cuda && request.device_display && !spread) full_options.device_frame = &w.device;
    DeepFrame frame = render_pass(w, location, width, height, full_options, &use_cuda);
    if (frame.stats.cancelled || w.cancel) return false;
    int device_buffer = -1;
    if (use_cuda && full_options.device_frame && w.device.width == width && w.device.height == height) {
        try {
            device_buffer = 1 - w.device_front;  // only this thread writes device_front
            colour_deep_frame_cuda(w.device, request.palette, view, 1.0, w.device.rgba[device_buffer],
                                   w.cuda_stream.get());
        } catch (const std::runtime_error&) {
            device_buffer = -1;  // the host colours it, from the host's copy of mu
        }
    }
    std::vector<uint8_t> rgba;
    if (device_buffer < 0) {
        rgba.resize(frame.mu.size() * 4);
        colour_deep_frame(frame, request.palette, view, 1.0, rgba.data());
    }
    const double full_ms = ms_since(full_start);
    // The frame's figures say what this frame cost: the reference it computed (the pass found
    // it in the cache only because step 1 put it there).
    frame.stats.reference_cached = reference_cached;
    frame.stats.reference_ms = reference_ms;
    frame.stats.frame_ms += reference_ms;
    {
        std::lock_guard lock(w.mutex);
        if (w.cancel) return false;
        w.stats = frame.stats;
        w.ran_on_cuda = use_cuda;
        w.devices_used = use_cuda && spread ? int(w.devices.size()) : 1;
        w.compute_ms = ms_since(start);
        w.phase = DeepPhase::Done;
        w.progress = 1.0;
        w.last_error.clear();
    }
    w.last_ms_per_pixel = full_ms / std::max(1.0, pixels);
    keep_frame(w, location, options.number_type, std::move(frame), device_buffer < 0 ? &rgba : nullptr, request.palette,
               view);
    if (device_buffer >= 0) return publish_device(w, request.id, view, device_buffer);
    return publish(w, request.id, view, std::move(rgba), true);
}

void worker_main(DeepRenderWorker* w) {
    bool use_cuda = false;
    serve_worker_requests(
        *w,
        [w, &use_cuda](const DeepRenderRequest& r) {  // under the lock
            use_cuda = r.cuda && w->cuda_error.empty();
            w->working_id = r.id;
            w->phase = DeepPhase::Reference;
            w->progress = 0.0;
        },
        [w, &use_cuda](const DeepRenderRequest& r) {
            try {
                render_deep(*w, r, use_cuda);
            } catch (const std::exception& e) {
                // A view the deep path refuses (validated before it gets here) or memory
                // running out: the frame stays as it was and the status line says why.
                std::lock_guard lock(w->mutex);
                w->phase = DeepPhase::Idle;
                w->stats = DeepFrameStats{};
                w->stats.cancelled = true;
                w->last_error = e.what();
            }
        });
}

}  // namespace

void start_deep_render_worker(DeepRenderWorker& worker) { worker.thread = std::thread(worker_main, &worker); }

uint64_t request_deep_render(DeepRenderWorker& worker, const View& view, Precision precision,
                             const PaletteTable& palette, bool use_cuda, bool device_display) {
    return post_worker_request(worker, view, precision, palette, [use_cuda, device_display](DeepRenderRequest& r) {
        r.cuda = use_cuda;
        r.device_display = device_display;
    });
}

DeepRenderStatus take_deep_render_frame(DeepRenderWorker& worker, const DeepFrameUpload& upload,
                                        const DeepDeviceFrameUpload& upload_device) {
    std::lock_guard lock(worker.mutex);
    DeepRenderStatus status;
    status.frame_id = worker.frame_id;
    if (worker.fresh && worker.frame_id != 0 && worker.dirty_end > worker.dirty_begin) {
        // (A frame on the device exists only for a caller that asked for it with upload_device.)
        if (worker.frame_on_device && upload_device)
            upload_device(worker.frame_view, worker.device.rgba[worker.device_front]);
        else if (!worker.frame_on_device)
            upload(worker.frame_view, worker.rgba.data(), worker.dirty_begin, worker.dirty_end - worker.dirty_begin);
        worker.fresh = false;
        worker.dirty_begin = worker.dirty_end = 0;
    }
    status.complete = worker.complete;
    status.working_id = worker.working_id;
    status.phase = worker.phase;
    status.progress = worker.progress;
    status.ran_on_cuda = worker.ran_on_cuda;
    status.devices_used = worker.devices_used;
    status.stats = worker.stats;
    status.compute_ms = worker.compute_ms;
    status.cuda_error = worker.cuda_error;
    status.error = worker.last_error;
    return status;
}

void stop_deep_render_worker(DeepRenderWorker& worker) { stop_worker_thread(worker); }

DeepRenderWorker::~DeepRenderWorker() { stop_worker_thread(*this); }

}  // namespace ms
