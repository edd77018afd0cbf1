// expmap_source.cpp: the exponential map behind VideoFrameSource (expmap_source.h).
#include "compute/video/expmap_source.h"

#include "compute/video/expmap.h"

namespace ms {

namespace {

class ExpmapFrameSource : public VideoFrameSource {
public:
    explicit ExpmapFrameSource(const FrameSourceSettings& settings)
        : palette_(settings.palette), renderer_(settings.plan, palette_, options_of(settings)),
          settings_cuda_(settings.cuda), shares_strips_(settings.expmap_strips != nullptr),
          start_frames_(expmap_start_frames(settings.plan, settings.supersample)) {}

    void render(int64_t k, uint8_t* rgba) override {
        renderer_.render(k, rgba);
        ++frames_;
    }

    FrameSourceTimes times() const override {
        const ExpmapStats& s = renderer_.stats();
        FrameSourceTimes t;
        t.reference_ms = s.reference_ms;
        t.bla_ms = s.bla_ms;
        t.pixels_ms = s.strips_ms + s.flat_ms;
        t.colour_ms = s.colour_ms;
        t.reconstruct_ms = s.reconstruct_ms;
        if (settings_cuda_) t.gpu_busy_ms = s.gpu_ms;
        t.expmap_frames = frames_;
        t.strips = s.strips;
        t.strips_taken = s.strips_taken;
        t.strips_taken_ms = s.strips_taken_ms;
        return t;
    }

    // With the strips shared, a renderer going on after another copies the strips it lacks.
    double start_frames() const override { return shares_strips_ ? 0.0 : start_frames_; }
    bool takes_segments_in_order() const override { return shares_strips_; }

private:
    static ExpmapOptions options_of(const FrameSourceSettings& settings) {
        ExpmapOptions options;
        options.supersample = settings.supersample;
        options.cuda = settings.cuda;  // the strips, the flat image and the reconstruction
        options.shared_orbit = settings.shared_orbit;
        options.strip_share = settings.expmap_strips;
        return options;
    }
    PaletteTable palette_;  // the renderer keeps a reference
    ExpmapRenderer renderer_;
    bool settings_cuda_ = false;
    bool shares_strips_ = false;
    double start_frames_ = 0.0;
    int64_t frames_ = 0;
};

}  // namespace

std::unique_ptr<VideoFrameSource> make_expmap_frame_source(const FrameSourceSettings& settings, std::string* problem) {
    if (std::string p = expmap_plan_problem(settings.plan); !p.empty()) {
        *problem = p;
        return nullptr;
    }
    return std::make_unique<ExpmapFrameSource>(settings);
}

bool expmap_suits(const FrameSourceSettings& settings) {
    return expmap_plan_problem(settings.plan).empty() &&
           expmap_sample_ratio(settings.plan, settings.supersample) >= kExpmapAutoMinRatio;
}

}  // namespace ms
