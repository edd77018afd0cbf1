// frame_source_direct.cpp: each frame rendered in full on the direct kernels or the deep path,
// with one reference orbit for the whole dive (frame_source_direct.h).
#include "compute/video/frame_source_direct.h"

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/maths/escape.h"
#include "compute/video/video_device.h"

namespace ms {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The frame's sample grid: K x K samples per pixel over the same region.
View samples_of(const View& view, int k) {
    View samples = view;
    samples.width *= k;
    samples.height *= k;
    return samples;
}

class DirectFrameSource final : public VideoFrameSource {
public:
    explicit DirectFrameSource(const FrameSourceSettings& settings) : settings_(settings) {
        if (settings_.plan.empty()) throw std::invalid_argument("a video needs at least one frame");
    }

    void render(int64_t k, uint8_t* rgba) override {
        const View& view = settings_.plan.at(size_t(k));
        const int K = settings_.supersample;
        const View samples = samples_of(view, K);
        const size_t sample_count = size_t(samples.width) * size_t(samples.height);
        begin_frame(k);
        uint8_t* out = rgba;
        if (K > 1) {
            samples_rgba_.resize(sample_count * 4);
            out = samples_rgba_.data();
        }
        const Precision precision = resolve_precision(samples, settings_.precision);
        if (!is_deep(precision)) render_direct(samples, precision, out);
        else render_deep(view, samples, precision, out);
        if (K > 1) {
            const auto start = std::chrono::steady_clock::now();
            box_filter_rgba(out, samples.width, K, view.width, view.height, rgba);
            times_.colour_ms += ms_since(start);
        }
    }

    // One value a pixel of the view's own grid (the caller refuses supersampling). A direct
    // frame runs the feature kernels on the CPU whatever the backend (direct_features_cpu: mu
    // and the distance; the escape count is the one mu encodes, escape.h); a deep frame runs
    // deep_cpu or deep_cuda with the distance estimate and hands over their fields.
    void render_raw(int64_t k, RawVideoFrame* out) override {
        const View& view = settings_.plan.at(size_t(k));
        begin_frame(k);
        const size_t pixels = size_t(view.width) * size_t(view.height);
        out->width = view.width;
        out->height = view.height;
        const Precision precision = resolve_precision(view, settings_.precision);
        if (!is_deep(precision)) {
            const auto start = std::chrono::steady_clock::now();
            mu_.resize(pixels);
            out->distance.assign(pixels, 0.0f);
            OrbitFeatureOutputs features;
            features.distance = out->distance.data();
            const FrameStats stats =
                direct_features_cpu(view, precision, settings_.shortcuts, full_rect(view), mu_.data(), features);
            out->escape_count.resize(pixels);
            out->mu.resize(pixels);
            for (size_t i = 0; i < pixels; ++i) {
                out->escape_count[i] = mandelbrot_escape_count(mu_[i]);
                out->mu[i] = out->escape_count[i] < 0 ? -1.0 : double(mu_[i]);
                if (out->escape_count[i] < 0) out->distance[i] = 0.0f;
            }
            times_.pixels_ms += stats.compute_ms;
            times_.colour_ms += std::max(0.0, ms_since(start) - stats.compute_ms);
            ++times_.direct_frames;
            return;
        }
        ensure_reference();
        DeepRenderOptions options = deep_options(precision);
        options.distance = true;
        DeepFrame frame = settings_.cuda ? deep_cuda(deep_location(view), view.width, view.height, options)
                                         : deep_cpu(deep_location(view), view.width, view.height, options);
        times_.reference_ms += frame.stats.reference_ms;
        times_.bla_ms += frame.stats.bla_ms;
        times_.pixels_ms += frame.stats.pixels_ms;
        out->escape_count = std::move(frame.escape_count);
        out->mu = std::move(frame.mu);
        out->distance = std::move(frame.distance);
        if (out->distance.size() != pixels) out->distance.assign(pixels, 0.0f);
        ++times_.deep_frames;
    }

    FrameSourceTimes times() const override { return times_; }

private:
    // BLA tables are dropped at a segment's start and wherever the frames are not asked for in
    // order (frame_source.h's rule).
    void begin_frame(int64_t k) {
        const bool segment_start = settings_.segment_frames > 0 && k % settings_.segment_frames == 0;
        if (segment_start || k != last_frame_ + 1) drop_bla_tables();
        last_frame_ = k;
    }

    DeepRenderOptions deep_options(Precision precision) {
        DeepRenderOptions options;
        options.number_type = precision == Precision::DeepFloatExp           ? DeepNumberType::FloatExp
                              : settings_.precision == Precision::DeepDouble ? DeepNumberType::Double
                                                                             : DeepNumberType::Auto;
        options.cache = &cache_;
        return options;
    }

    void render_direct(const View& samples, Precision precision, uint8_t* out) {
        const auto start = std::chrono::steady_clock::now();
        const double pixel_scale = 1.0 / settings_.supersample;
        FrameStats stats;
        if (settings_.cuda) {
            stats = render_coloured_cuda_to_host(samples, precision, settings_.shortcuts, settings_.palette,
                                                 full_rect(samples), pixel_scale, out, nullptr);
        } else {
            mu_.resize(size_t(samples.width) * size_t(samples.height));
            stats = render_coloured_cpu(samples, precision, settings_.shortcuts, settings_.palette, full_rect(samples),
                                        pixel_scale, mu_.data(), out);
        }
        const double all_ms = ms_since(start);
        if (settings_.cuda) times_.gpu_busy_ms += all_ms;  // the kernels, the colours and the copy back
        times_.pixels_ms += stats.compute_ms;
        times_.colour_ms += std::max(0.0, all_ms - stats.compute_ms);
        ++times_.direct_frames;
    }

    // The dive's one reference: at the deepest frame's sample grid, before the first deep frame.
    // With several sources (settings_.shared_orbit), the first computes it for all.
    void ensure_reference() {
        if (reference_) return;
        std::unique_lock<std::mutex> shared;
        if (settings_.shared_orbit) {
            shared = std::unique_lock<std::mutex>(settings_.shared_orbit->mutex);
            if (settings_.shared_orbit->orbit) {
                reference_ = settings_.shared_orbit->orbit;
                cache_.insert(reference_);
                return;
            }
        }
        const View target = samples_of(settings_.plan.back(), settings_.supersample);
        const auto start = std::chrono::steady_clock::now();
        bool cached = false;
        reference_ = reference_for(&cache_, deep_location(target), target.width, target.height, ReferenceControl{},
                                   &cached);
        if (!reference_) throw std::runtime_error("the reference orbit was cancelled");
        times_.reference_ms += ms_since(start);
        if (settings_.shared_orbit) settings_.shared_orbit->orbit = reference_;
    }

    void render_deep(const View& view, const View& samples, Precision precision, uint8_t* out) {
        ensure_reference();
        DeepRenderOptions options = deep_options(precision);
        deep_options_for_colouring(view.colouring, &options);
        const DeepLocation location = deep_location(samples);
        if (settings_.cuda) options.device_frame = &device_frame_;
        const DeepFrame frame = settings_.cuda ? deep_cuda(location, samples.width, samples.height, options)
                                               : deep_cpu(location, samples.width, samples.height, options);
        times_.reference_ms += frame.stats.reference_ms;  // 0: the dive's orbit came from the cache
        times_.bla_ms += frame.stats.bla_ms;
        times_.pixels_ms += frame.stats.pixels_ms;
        const auto start = std::chrono::steady_clock::now();
        if (settings_.cuda) {
            times_.gpu_busy_ms += frame.stats.pixels_ms + (frame.stats.bla_on_device ? frame.stats.bla_ms : 0.0);
            // The colours where the frame is (mu never leaves the device for them), then the RGBA.
            colour_deep_frame_cuda(device_frame_, settings_.palette, samples, 1.0 / settings_.supersample,
                                   device_frame_.rgba[0], options.cuda_stream);
            copy_device_to_host(out, device_frame_.rgba[0], size_t(samples.width) * size_t(samples.height) * 4,
                                options.cuda_stream);
            times_.gpu_busy_ms += ms_since(start);
        } else {
            colour_deep_frame(frame, settings_.palette, samples, 1.0 / settings_.supersample, out);
        }
        times_.colour_ms += ms_since(start);
        ++times_.deep_frames;
    }

    void drop_bla_tables() {
        std::lock_guard<std::mutex> lock(cache_.mutex);
        cache_.bla.clear();
    }

    FrameSourceSettings settings_;
    ReferenceCache cache_;
    DeepDeviceFrame device_frame_;  // CUDA: the deep frame's mu and its colours, on the device
    std::shared_ptr<const ReferenceOrbit> reference_;
    int64_t last_frame_ = -2;
    std::vector<float> mu_;
    std::vector<uint8_t> samples_rgba_;
    FrameSourceTimes times_;
};

}  // namespace

std::unique_ptr<VideoFrameSource> make_direct_frame_source(const FrameSourceSettings& settings) {
    return std::make_unique<DirectFrameSource>(settings);
}

}  // namespace ms
