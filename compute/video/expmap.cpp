// expmap.cpp: the exponential map's strips, flat image and reconstruction (expmap.h).
#include "compute/video/expmap.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cpu_rings.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/direct/direct_cpu_rings.h"
#include "compute/video/expmap_cuda.h"
#include "compute/video/expmap_mips.h"
#include "compute/video/expmap_share.h"

namespace ms {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
constexpr double kTwoPi = 6.283185307179586;
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLog2Of10 = 3.321928094887362;
// The flat image reaches this many output pixels past the deepest frame on every side, so that
// the crossfade band (kBandPixels, inside the flat image) never reaches that frame: it comes
// from the flat image alone, sample for sample the frame the direct method renders.
constexpr int kFlatBorderPixels = 3;
constexpr double kBandPixels = 2.0;
// Strips start this many rows above the first frame's corners (its corner samples' bilinear
// neighbours).
constexpr double kTopMarginRows = 4.0;

// FloatExp 2^x.
FloatExp fe_exp2(double x) {
    const double whole = std::floor(x);
    return fe_make(std::exp2(x - whole), int64_t(whole));
}

double view_log2_zoom(const View& view) { return view.zoom.log10() * kLog2Of10; }

// log2 of a view's pixel step in complex units: 4 / (zoom * height).
double log2_pixel_step(const View& view) { return std::log2(4.0 / view.height) - view_log2_zoom(view); }

double v_of_log2_radius(const ExpmapLayout& layout, double log2_radius) {
    return (layout.log2_top_radius - log2_radius) * layout.rows_per_octave;
}

size_t deepest_frame(const std::vector<View>& plan) {
    size_t deepest = 0;
    for (size_t k = 0; k < plan.size(); ++k)
        if (view_log2_zoom(plan[k]) > view_log2_zoom(plan[deepest])) deepest = k;
    return deepest;
}

// The rows [top, bottom] of the strips that frame k reads, and whether it reads the flat image
// (whether a disc around the centre comes from it alone).
void expmap_frame_rows(const std::vector<View>& plan, size_t deepest, const ExpmapLayout& layout, int kk, size_t k,
                       double* top, double* bottom, bool* flat_needed) {
    const View& view = plan[k];
    const double log2_step = log2_pixel_step(view);
    const double corner_px = 0.5 * std::hypot(double(view.width), double(view.height));
    // The flat image's texels per output sample of this frame (f), and the radius (in this
    // frame's pixels) inside which every sample comes from the flat image alone: the
    // inscribed circle of the flat image shrunk by half a footprint and the band.
    const double f = std::exp2(view_log2_zoom(plan[deepest]) - view_log2_zoom(view));
    const double flat_half_px = 0.5 * plan[deepest].height + kFlatBorderPixels;  // deepest frame's pixels
    const double flat_only_px = (flat_half_px - f * (kBandPixels + 0.5 / kk)) / f;
    // The samples nearest the centre sit at least 1 / (4K) pixel from it (expmap reconstruct
    // clamps there).
    const double inner_px = std::max(0.25 / kk, flat_only_px);
    if (flat_needed) *flat_needed = flat_only_px > 0.25 / kk;
    // A sample's footprint in strip texels at radius r pixels: W / (2 pi K r), at most the
    // coarsest level's; the lookups read a footprint (and a texel) beyond their radius.
    const double footprint = std::min(layout.columns / (kTwoPi * kk * inner_px), std::ldexp(1.0, layout.levels - 1));
    *top = std::max(0.0, v_of_log2_radius(layout, log2_step + std::log2(corner_px)) - 2.0);
    *bottom = v_of_log2_radius(layout, log2_step + std::log2(inner_px)) + 2.0 * footprint + 2.0;
}

}  // namespace

std::string expmap_plan_problem(const std::vector<View>& plan) {
    if (plan.empty()) return "The exponential map needs at least one frame.";
    const View& a = plan.front();
    for (const View& v : plan) {
        if (v.center_re != a.center_re || v.center_im != a.center_im)
            return "The exponential map renders straight dives: every frame must have the same centre.";
        if (v.width != a.width || v.height != a.height || v.max_iterations != a.max_iterations ||
            v.formula != a.formula || v.julia != a.julia || v.julia_re != a.julia_re || v.julia_im != a.julia_im ||
            v.palette != a.palette || v.palette_offset != a.palette_offset || v.palette_density != a.palette_density ||
            !(v.colouring == a.colouring))
            return "The exponential map renders straight dives: frames may differ only in zoom (use "
                   "--method=direct for other paths).";
    }
    const Colouring& c = a.colouring;
    if (c.base != ColourBase::Smooth || c.slopes || c.interior != InteriorColour::Flat)
        return "The exponential map colours each sample once for every frame, which takes the smooth colouring "
               "and the DE layer only (use --method=direct for histogram, stripes, slopes or period interior).";
    return "";
}

ExpmapLayout expmap_layout(const std::vector<View>& plan, int supersample) {
    const View& first = plan.front();
    const int k = supersample, k_samples = supersample;
    ExpmapLayout layout;
    // The frame's corner radius in pixels; a ring there must have one sample per output sample
    // (1 / K pixel) along the ring and across it: W >= 2 pi R K, H >= ln 2 R K.
    const double corner_px = 0.5 * std::hypot(double(first.width), double(first.height));
    const double w_min = std::ceil(kTwoPi * corner_px * k);
    const double h_min = std::ceil(kLn2 * corner_px * k);
    // Both multiples of 2^levels' step, so an octave's mip levels never straddle two strips:
    // pick the most levels whose rounding adds at most a fifth more samples.
    const double base_cost = w_min * h_min;
    int best = 0;
    for (int step_log2 = 0; step_log2 <= 8; ++step_log2) {
        const double step = std::ldexp(1.0, step_log2);
        const double h = std::ceil(h_min / step) * step, w = std::ceil(w_min / step) * step;
        if (h * w <= 1.2 * base_cost && h >= step) best = step_log2;
    }
    const double step = std::ldexp(1.0, best);
    layout.rows_per_octave = int(std::ceil(h_min / step) * step);
    layout.columns = int(std::ceil(w_min / step) * step);
    layout.levels = best + 1;
    // The top: the shallowest frame's corners plus a margin; the bottom: see ExpmapRenderer's
    // frame_rows (the flat image serves what lies below).
    double log2_min_zoom = view_log2_zoom(first);
    for (const View& v : plan) log2_min_zoom = std::min(log2_min_zoom, view_log2_zoom(v));
    layout.log2_top_radius = std::log2(4.0 / first.height) - log2_min_zoom + std::log2(corner_px) +
                             kTopMarginRows / layout.rows_per_octave;
    // The strips reach down to the deepest row any frame reads.
    const size_t deepest = deepest_frame(plan);
    double deepest_row = 0.0;
    for (size_t k = 0; k < plan.size(); ++k) {
        double top, bottom;
        bool flat;
        expmap_frame_rows(plan, deepest, layout, k_samples, k, &top, &bottom, &flat);
        deepest_row = std::max(deepest_row, bottom);
    }
    layout.octaves = std::max(1, int(std::ceil(deepest_row / layout.rows_per_octave)));
    layout.log2_bottom_radius = layout.log2_top_radius - layout.octaves;
    return layout;
}

double expmap_start_frames(const std::vector<View>& plan, int supersample) {
    const ExpmapLayout layout = expmap_layout(plan, supersample);
    const size_t deepest = deepest_frame(plan);
    const int rows = layout.rows_per_octave;
    int most = 1;
    for (size_t k = 0; k < plan.size(); ++k) {
        double top, bottom;
        bool flat;
        expmap_frame_rows(plan, deepest, layout, supersample, k, &top, &bottom, &flat);
        const int first = std::clamp(int(std::floor(top / rows)), 0, layout.octaves - 1);
        const int last = std::clamp(int(std::floor(bottom / rows)), first, layout.octaves - 1);
        most = std::max(most, last - first + 1);
    }
    return double(most - 1) * double(plan.size()) / double(layout.octaves);
}

double expmap_sample_ratio(const std::vector<View>& plan, int supersample) {
    const ExpmapLayout layout = expmap_layout(plan, supersample);
    const View& deep = plan[deepest_frame(plan)];
    const double k2 = double(supersample) * supersample;
    const double flat = double(deep.width + 2 * kFlatBorderPixels) * (deep.height + 2 * kFlatBorderPixels) * k2;
    const double strips = double(layout.octaves) * layout.columns * layout.rows_per_octave;
    double direct = 0.0;
    for (const View& v : plan) direct += double(v.width) * v.height * k2;
    return direct / (strips + flat);
}

struct ExpmapRenderer::State {
    std::vector<View> plan;
    const PaletteTable* palette = nullptr;
    ExpmapOptions options;
    ExpmapLayout layout;
    ExpmapStats stats;
    View colour_view;  // the plan's colouring (every frame's)
    // The flat image: the deepest view, kFlatBorderPixels wider on every side.
    size_t deepest = 0;
    DeepLocation flat_location;
    int flat_width = 0, flat_height = 0;  // samples
    std::vector<MipLevel> flat;
    // The dive's reference orbit, once computed. Each strip and the flat image build their own
    // BLA tables (a fresh cache holding only the orbit): a table kept from another strip would
    // change the bits with the order frames are asked for in.
    std::shared_ptr<const ReferenceOrbit> orbit;
    std::map<int, std::vector<MipLevel>> strips;  // octave -> its levels
    std::unique_ptr<ExpmapDevice> device;         // options.cuda: the reconstruction on the GPU
    // pixels_on_device(): the strips and the flat image are coloured on the device, from the
    // frame the kernels leave in device_frame; the host keeps their levels' sizes only.
    std::unique_ptr<DeepDeviceFrame> device_frame;
    bool pixels_on_device() const { return options.cuda && !options.pixels_on_cpu; }
    ExpmapDevice& gpu() {
        if (!device) device = std::make_unique<ExpmapDevice>();
        return *device;
    }
    DeepDeviceFrame& gpu_frame() {
        if (!device_frame) device_frame = std::make_unique<DeepDeviceFrame>();
        return *device_frame;
    }
    // Colours the frame in device_frame into the device's levels of `octave` (ExpmapDevice::kFlat:
    // the flat image) and returns their sizes.
    std::vector<MipLevel> colour_levels_on_device(int octave, int width, int height, int levels);

    // With a shared orbit (several renderers of one dive): takes it where another renderer has
    // computed it; else returns its lock, held while this renderer's next deep render computes
    // it, for publish_orbit.
    std::unique_lock<std::mutex> shared_orbit_lock() {
        if (orbit || !options.shared_orbit) return {};
        std::unique_lock<std::mutex> lock(options.shared_orbit->mutex);
        if (!options.shared_orbit->orbit) return lock;
        orbit = options.shared_orbit->orbit;
        return {};
    }
    void publish_orbit(std::unique_lock<std::mutex>& lock) {
        if (lock.owns_lock() && orbit) options.shared_orbit->orbit = orbit;
    }

    // With options.strip_share: this renderer's number there.
    int share_id = -1;
    ~State() {
        if (share_id >= 0) options.strip_share->leave(share_id);
    }

    void ensure_flat();
    void ensure_strips(int first, int last);
    // Renders and colours the strip of `octave` into `strips`; publish: then hands it to the
    // share, which the caller took it from (abandoned there where the render fails); keep:
    // false for a strip rendered ahead for the share, which `strips` then drops again.
    void render_strip(int octave, bool publish, bool keep);
    // Another renderer's strip into `strips` (false where its copy failed: the caller renders it).
    bool adopt_strip(int octave, const ExpmapSharedStrip& strip);
    std::vector<MipLevel> colour_levels(const double* mu, const float* distance, int width, int height, int levels);
    void reconstruct(size_t k, uint8_t* rgba);
    void reconstruct_cuda(size_t k, uint8_t* rgba);
    DeepRenderOptions deep_options(ReferenceCache* cache) const {
        DeepRenderOptions o;
        if (orbit) cache->insert(orbit);
        o.cache = cache;
        o.threads = options.threads;
        o.cancel = options.cancel;
        deep_options_for_colouring(colour_view.colouring, &o);
        return o;
    }
    // One deep render of the dive (the flat image, or a strip's rings): render(cuda, options) on
    // the device where the pixels are, with the dive's orbit (computed here for all where no
    // renderer has it yet); its reference and tables go into stats. Returns the frame and, in
    // *pixels_ms, the rest of its time.
    template <class Frame, class Render>
    Frame deep_render(const Render& render, double* pixels_ms) {
        ReferenceCache cache;
        const bool cuda = pixels_on_device();
        std::unique_lock<std::mutex> orbit_lock = shared_orbit_lock();
        DeepRenderOptions deep = deep_options(&cache);
        if (cuda) deep.device_frame = &gpu_frame();
        Frame frame = render(cuda, deep);
        if (frame.stats.cancelled) throw std::runtime_error("The video was cancelled.");
        if (cuda) stats.gpu_ms += frame.stats.pixels_ms + (frame.stats.bla_on_device ? frame.stats.bla_ms : 0.0);
        orbit = frame.reference;
        publish_orbit(orbit_lock);
        stats.reference_ms += frame.stats.reference_ms;
        stats.bla_ms += frame.stats.bla_ms;
        *pixels_ms = frame.stats.frame_ms - frame.stats.reference_ms - frame.stats.bla_ms;
        return frame;
    }
};

ExpmapRenderer::ExpmapRenderer(const std::vector<View>& plan, const PaletteTable& palette, const ExpmapOptions& options)
    : state_(std::make_unique<State>()) {
    if (std::string problem = expmap_plan_problem(plan); !problem.empty()) throw std::invalid_argument(problem);
    if (options.supersample < 1 || options.supersample > 16)
        throw std::invalid_argument("The supersampling must be between 1 and 16.");
    State& s = *state_;
    s.plan = plan;
    s.palette = &palette;
    s.options = options;
    s.colour_view = plan.front();
    s.layout = expmap_layout(plan, options.supersample);
    s.deepest = deepest_frame(plan);
    const View& deep = plan[s.deepest];
    const int kk = options.supersample;
    s.flat_width = (deep.width + 2 * kFlatBorderPixels) * kk;
    s.flat_height = (deep.height + 2 * kFlatBorderPixels) * kk;
    s.flat_location = deep_location(deep);
    // The same pixel step, 4 / (zoom height), at the larger height: zoom * height / (height + 2 border).
    DeepZoom zoom = s.flat_location.zoom;
    zoom.mantissa *= double(deep.height) / double(deep.height + 2 * kFlatBorderPixels);
    while (zoom.mantissa < 1.0) {
        zoom.mantissa *= 10.0;
        --zoom.exponent10;
    }
    s.flat_location.zoom = zoom;
    if (options.strip_share) s.share_id = options.strip_share->join();
}

ExpmapRenderer::~ExpmapRenderer() = default;
const ExpmapLayout& ExpmapRenderer::layout() const { return state_->layout; }
const ExpmapStats& ExpmapRenderer::stats() const { return state_->stats; }

std::vector<MipLevel> ExpmapRenderer::State::colour_levels(const double* mu, const float* distance, int width,
                                                           int height, int levels) {
    // Each sample's colour, then means. The DE layer's band is in output pixels: at level L a
    // texel stands for about 2^L output samples across, so its samples are coloured with the
    // distance in those units (pixel_scale 1 / (K 2^L)).
    std::vector<MipLevel> out;
    std::vector<uint8_t> rgba(size_t(width) * size_t(height) * 4);
    const int kk = options.supersample;
    const bool de = colour_view.colouring.distance_estimation;
    for (int level = 0; level < levels; ++level) {
        if (level > 0 && !de) {
            out.push_back(mip_level_halve(out.back()));
            continue;
        }
        if (!de) {
#pragma omp parallel for schedule(static)
            for (int y = 0; y < height; ++y)
                colourize_deep(mu + size_t(y) * width, width, *palette, colour_view.palette_density,
                               colour_view.palette_offset, rgba.data() + size_t(y) * width * 4);
        } else {
            colour_frame_deep(mu, distance, width, height, *palette, colour_view, 1.0 / (kk * std::ldexp(1.0, level)),
                              rgba.data());
        }
        out.push_back(mip_level_from_rgba(rgba.data(), width, height, 1 << level));
    }
    return out;
}

std::vector<MipLevel> ExpmapRenderer::State::colour_levels_on_device(int octave, int width, int height, int levels) {
    gpu().colour_levels(octave, gpu_frame(), *palette, colour_view, options.supersample, levels);
    std::vector<MipLevel> shapes(static_cast<size_t>(levels));
    for (int l = 0; l < levels; ++l) {
        shapes[size_t(l)].width = (width + (1 << l) - 1) >> l;
        shapes[size_t(l)].height = (height + (1 << l) - 1) >> l;
    }
    return shapes;
}

void ExpmapRenderer::State::ensure_flat() {
    if (!flat.empty()) return;
    const bool cuda = pixels_on_device();
    double pixels_ms = 0.0;
    const DeepFrame frame = deep_render<DeepFrame>(
        [&](bool on_device, const DeepRenderOptions& deep) {
            return on_device ? deep_cuda(flat_location, flat_width, flat_height, deep)
                             : deep_cpu(flat_location, flat_width, flat_height, deep);
        },
        &pixels_ms);
    stats.flat_ms += pixels_ms;
    stats.flat_samples += int64_t(flat_width) * flat_height;
    const auto start = Clock::now();
    // Levels while both sides are at least 2 texels.
    int levels = 1;
    while ((flat_width >> levels) >= 2 && (flat_height >> levels) >= 2) ++levels;
    if (cuda) {
        flat = colour_levels_on_device(ExpmapDevice::kFlat, flat_width, flat_height, levels);
    } else {
        flat = colour_levels(frame.mu.data(), frame.distance.empty() ? nullptr : frame.distance.data(), flat_width,
                             flat_height, levels);
    }
    const double colour_ms = ms_since(start);
    stats.colour_ms += colour_ms;
    if (cuda) stats.gpu_ms += colour_ms;
}

void ExpmapRenderer::State::ensure_strips(int first, int last) {
    for (auto it = strips.begin(); it != strips.end();) {
        if (it->first < first || it->first > last) it = strips.erase(it);
        else ++it;
    }
    ExpmapStripShare* share = options.strip_share.get();
    if (!share) {
        for (int octave = first; octave <= last; ++octave)
            if (!strips.count(octave)) render_strip(octave, false, true);
        return;
    }
    share->reading_from(share_id, first);
    // The strips nobody holds first, then those another renderer is rendering.
    std::vector<int> busy;
    std::shared_ptr<const ExpmapSharedStrip> taken;
    for (int octave = first; octave <= last; ++octave) {
        if (strips.count(octave)) continue;
        switch (share->take(octave, false, &taken)) {
        case ExpmapStripShare::Take::Ready:
            if (!adopt_strip(octave, *taken)) render_strip(octave, false, true);
            break;
        case ExpmapStripShare::Take::Render: render_strip(octave, true, true); break;
        case ExpmapStripShare::Take::Busy: busy.push_back(octave); break;
        }
    }
    // While another renderer renders a strip this frame needs, this one renders the next strips
    // that later frames need, for the share only: the frames of a dive each need the strip the
    // frames just before them added, so renderers that only waited would render the strips one
    // at a time in turn.
    const int ahead_limit = std::min(last + std::max(2, share->renderers()), layout.octaves - 1);
    int ahead = last + 1;
    for (int octave : busy) {
        ExpmapStripShare::Take take;
        for (;;) {
            take = share->take(octave, false, &taken);
            if (take != ExpmapStripShare::Take::Busy) break;
            std::shared_ptr<const ExpmapSharedStrip> unused;
            while (ahead <= ahead_limit && share->take(ahead, false, &unused) != ExpmapStripShare::Take::Render)
                ++ahead;
            if (ahead > ahead_limit) {
                const auto start = Clock::now();
                take = share->take(octave, true, &taken);
                stats.strips_taken_ms += ms_since(start);
                break;
            }
            render_strip(ahead++, true, false);
        }
        if (take == ExpmapStripShare::Take::Render) render_strip(octave, true, true);
        else if (!adopt_strip(octave, *taken)) render_strip(octave, false, true);
    }
}

bool ExpmapRenderer::State::adopt_strip(int octave, const ExpmapSharedStrip& strip) {
    const auto start = Clock::now();
    const bool from_another = strip.renderer != share_id;
    if (strip.on_device) {
        try {
            gpu().adopt_strip(octave, *strip.on_device);
        } catch (const std::runtime_error&) {
            return false;  // its device failed, say: this renderer renders the strip itself
        }
    }
    strips[octave] = strip.levels;  // sizes only where the levels are on the device
    const double ms = ms_since(start);
    stats.strips_taken_ms += ms;
    if (strip.on_device) stats.gpu_ms += ms;
    if (from_another) ++stats.strips_taken;
    return true;
}

void ExpmapRenderer::State::render_strip(int octave, bool publish, bool keep) {
    // Where the render fails, the share's next asker renders the strip.
    struct Abandon {
        ExpmapStripShare* share;
        int octave;
        ~Abandon() {
            if (share) share->abandon(octave);
        }
    } abandon{publish ? options.strip_share.get() : nullptr, octave};
    const int rows = layout.rows_per_octave;
    // Shallow strips (double resolves their innermost ring) run the direct loop, with its
    // interior shortcuts; deeper ones, and every strip of a DE colouring, the deep loop.
    const double log2_inner = layout.log2_top_radius - (double(octave) * rows + rows - 0.5) / rows;
    const bool de = colour_view.colouring.distance_estimation;
    const bool direct = !de && log2_inner > -1000.0 &&
                        direct_rings_resolve(colour_view, std::exp2(log2_inner), layout.columns);
    std::vector<double> mu;
    std::vector<float> distance;
    double ms = 0.0;
    if (direct) {
        const auto t0 = Clock::now();
        DirectRings rings;
        rings.columns = layout.columns;
        rings.radius.resize(size_t(rows));
        for (int r = 0; r < rows; ++r)
            rings.radius[size_t(r)] = std::exp2(layout.log2_top_radius - (double(octave) * rows + r + 0.5) / rows);
        std::vector<float> mu_float(size_t(rows) * size_t(layout.columns));
        bool cancelled = false;
        if (pixels_on_device()) {
            double kernel_ms = 0.0;
            direct_cuda_rings(colour_view, rings, mu_float.data(), options.cancel, &cancelled, &kernel_ms);
            stats.gpu_ms += kernel_ms;
        } else {
            direct_cpu_rings(colour_view, rings, mu_float.data(), options.threads, options.cancel, &cancelled);
        }
        if (cancelled) throw std::runtime_error("The video was cancelled.");
        mu.assign(mu_float.begin(), mu_float.end());
        ms = ms_since(t0);
    } else {
        DeepRings rings;
        rings.columns = layout.columns;
        rings.radius.resize(size_t(rows));
        for (int r = 0; r < rows; ++r)
            rings.radius[size_t(r)] = fe_exp2(layout.log2_top_radius - (double(octave) * rows + r + 0.5) / rows);
        DeepRingsFrame frame = deep_render<DeepRingsFrame>(
            [&](bool on_device, const DeepRenderOptions& deep) {
                return on_device ? deep_cuda_rings(flat_location, flat_width, flat_height, rings, deep)
                                 : deep_cpu_rings(flat_location, flat_width, flat_height, rings, deep);
            },
            &ms);
        mu = std::move(frame.mu);
        distance = std::move(frame.distance);
    }
    stats.strips_ms += ms;
    stats.strip_samples += int64_t(rows) * layout.columns;
    ++stats.strips;
    const auto start = Clock::now();
    if (pixels_on_device()) {
        // The direct strips' mu comes from the host; the deep ones' is still on the device.
        if (direct) ExpmapDevice::upload_mu(gpu_frame(), mu.data(), layout.columns, rows);
        strips[octave] = colour_levels_on_device(octave, layout.columns, rows, layout.levels);
    } else {
        strips[octave] = colour_levels(mu.data(), distance.empty() ? nullptr : distance.data(), layout.columns, rows,
                                       layout.levels);
    }
    const double colour_ms = ms_since(start);
    stats.colour_ms += colour_ms;
    if (pixels_on_device()) stats.gpu_ms += colour_ms;
    if (!publish) return;
    auto shared = std::make_shared<ExpmapSharedStrip>();
    shared->levels = strips[octave];
    shared->renderer = share_id;
    if (pixels_on_device()) shared->on_device = gpu().share_strip(octave);
    options.strip_share->publish(octave, std::move(shared));
    abandon.share = nullptr;
    // A strip rendered ahead stays out of this renderer's run until a frame reads it: the
    // frames read the run's rows only (its edges clamp), as they do from one renderer.
    if (!keep) strips.erase(octave);
}

void ExpmapRenderer::State::reconstruct(size_t k, uint8_t* rgba) {
    const View& view = plan[k];
    const int kk = options.supersample;
    const double log2_step = log2_pixel_step(view);
    const double rows = layout.rows_per_octave, columns = layout.columns;
    const int total_rows = layout.octaves * layout.rows_per_octave;
    // Strip texels: columns wrap (the turn), rows run across the octaves' strips and clamp at the
    // ends of what is rendered.
    const int first_octave = strips.empty() ? 0 : strips.begin()->first;
    const int last_octave = strips.empty() ? 0 : strips.rbegin()->first;
    // The strips in reach, by octave - first_octave (a map lookup per texel would cost more
    // than the texel).
    std::vector<const std::vector<MipLevel>*> loaded;
    for (int octave = first_octave; octave <= last_octave; ++octave) loaded.push_back(&strips.at(octave));
    auto strip_fetch = [&](int level, int x, int y) -> const float* {
        const int level_rows = layout.rows_per_octave >> level, level_columns = layout.columns >> level;
        x %= level_columns;
        if (x < 0) x += level_columns;
        y = std::clamp(y, first_octave * level_rows, (last_octave + 1) * level_rows - 1);
        y = std::min(y, (total_rows >> level) - 1);
        const int octave = y / level_rows;
        return (*loaded[size_t(octave - first_octave)])[size_t(level)].texel(x, y - octave * level_rows);
    };
    auto flat_fetch = [&](int level, int x, int y) -> const float* {
        const MipLevel& m = flat[size_t(level)];
        return m.texel(std::clamp(x, 0, m.width - 1), std::clamp(y, 0, m.height - 1));
    };
    const bool has_flat = !flat.empty();
    const View& deep = plan[deepest];
    const double f_flat = std::exp2(view_log2_zoom(deep) - view_log2_zoom(view));  // flat texels per sample
    const double band = kBandPixels * kk * f_flat;
    const int flat_levels = int(flat.size());
    const double inv_k = 1.0 / kk;
    const int width = view.width, height = view.height;
#pragma omp parallel for schedule(dynamic, 4) num_threads(options.threads > 0 ? options.threads : omp_get_max_threads())
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            double sum[3] = {0.0, 0.0, 0.0};
            for (int j = 0; j < kk; ++j) {
                for (int i = 0; i < kk; ++i) {
                    // The sample's offset from the centre in this frame's pixels (y up).
                    const double dx = x + (i + 0.5) * inv_k - 0.5 * width;
                    const double dy = -(y + (j + 0.5) * inv_k - 0.5 * height);
                    float colour[3] = {0.0f, 0.0f, 0.0f};
                    double w_flat = 0.0;
                    if (has_flat) {
                        // Flat texel coordinates (top row first) and the footprint's margin to the
                        // image's edge.
                        const double fx = (dx * f_flat + 0.5 * deep.width + kFlatBorderPixels) * kk;
                        const double fy = (0.5 * deep.height + kFlatBorderPixels - dy * f_flat) * kk;
                        const double margin = std::min(std::min(fx, flat_width - fx), std::min(fy, flat_height - fy)) -
                                              0.5 * f_flat;
                        w_flat = std::clamp(margin / band, 0.0, 1.0);
                        if (w_flat > 0.0) mip_trilinear(flat_fetch, flat_levels, fx, fy, f_flat, colour);
                    }
                    if (w_flat < 1.0) {
                        const double r = std::max(std::hypot(dx, dy), 0.25 * inv_k);
                        double angle = std::atan2(dy, dx);
                        if (angle < 0.0) angle += kTwoPi;
                        const double u = columns * angle / kTwoPi;
                        const double v = (layout.log2_top_radius - log2_step - std::log2(r)) * rows;
                        // One output sample (1/K pixel) in strip texels at this radius.
                        const double footprint = columns / (kTwoPi * kk * r);
                        float strip[3];
                        mip_trilinear(strip_fetch, layout.levels, u, v, footprint, strip);
                        const float wf = float(w_flat);
                        for (int c = 0; c < 3; ++c) colour[c] = wf * colour[c] + (1.0f - wf) * strip[c];
                    }
                    for (int c = 0; c < 3; ++c) sum[c] += colour[c];
                }
            }
            uint8_t* out = rgba + (size_t(y) * width + x) * 4;
            const double n = double(kk) * kk;
            for (int c = 0; c < 3; ++c) out[c] = uint8_t(std::clamp(std::floor(sum[c] / n + 0.5), 0.0, 255.0));
            out[3] = 255;
        }
    }
}

// The same frame on the device (expmap_cuda.h), from the same images and numbers.
void ExpmapRenderer::State::reconstruct_cuda(size_t k, uint8_t* rgba) {
    const View& view = plan[k];
    const View& deep = plan[deepest];
    ExpmapReconstruction f;
    f.width = view.width;
    f.height = view.height;
    f.supersample = options.supersample;
    f.log2_step = log2_pixel_step(view);
    f.columns = layout.columns;
    f.rows_per_octave = layout.rows_per_octave;
    f.levels = layout.levels;
    f.octaves = layout.octaves;
    f.log2_top_radius = layout.log2_top_radius;
    f.has_flat = !flat.empty();
    f.f_flat = std::exp2(view_log2_zoom(deep) - view_log2_zoom(view));
    f.band = kBandPixels * options.supersample * f.f_flat;
    f.flat_width = flat_width;
    f.flat_height = flat_height;
    f.deep_width = deep.width;
    f.deep_height = deep.height;
    f.flat_border_pixels = kFlatBorderPixels;
    gpu().reconstruct(f, strips, flat, rgba);
}

void ExpmapRenderer::render(int64_t k, uint8_t* rgba) {
    State& s = *state_;
    if (k < 0 || size_t(k) >= s.plan.size()) throw std::invalid_argument("The frame is not in the plan.");
    double top, bottom;
    bool flat_needed = false;
    expmap_frame_rows(s.plan, s.deepest, s.layout, s.options.supersample, size_t(k), &top, &bottom, &flat_needed);
    if (flat_needed) s.ensure_flat();
    const int rows = s.layout.rows_per_octave;
    const int first = std::clamp(int(std::floor(top / rows)), 0, s.layout.octaves - 1);
    const int last = std::clamp(int(std::floor(bottom / rows)), first, s.layout.octaves - 1);
    s.ensure_strips(first, last);
    const auto start = Clock::now();
    if (s.options.cuda) s.reconstruct_cuda(size_t(k), rgba);
    else s.reconstruct(size_t(k), rgba);
    const double reconstruct_ms = ms_since(start);
    s.stats.reconstruct_ms += reconstruct_ms;
    if (s.options.cuda) s.stats.gpu_ms += reconstruct_ms;  // the kernel and the RGBA's copy back
    ++s.stats.frames;
}

}  // namespace ms
