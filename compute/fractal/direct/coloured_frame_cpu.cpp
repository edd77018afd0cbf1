// coloured_frame_cpu.cpp: a coloured frame on the CPU (coloured_frame.h): the kernels the
// colouring needs, then colour_frame().
#include <vector>

#include "compute/fractal/direct/coloured_frame.h"

namespace ms {

FrameStats render_coloured_cpu(const View& view, Precision precision, const Shortcuts& shortcuts,
                               const PaletteTable& palette, PixelRect rect, double pixel_scale, float* mu_out,
                               uint8_t* rgba_out, const CpuRenderControl& control, bool reference) {
    rect = resolve_rect(view, rect);
    const size_t pixels = size_t(rect.width) * size_t(rect.height);
    const unsigned features = colouring_orbit_features(view.colouring);
    std::vector<float> distance(features & kFeatureDistance ? pixels : 0);
    std::vector<float> stripe(features & kFeatureStripe ? pixels : 0);
    std::vector<float> period(features & kFeaturePeriod ? pixels : 0);
    std::vector<float> atom(features & kFeatureAtom ? pixels : 0);
    const OrbitFeatureOutputs outputs{distance.empty() ? nullptr : distance.data(),
                                      stripe.empty() ? nullptr : stripe.data(),
                                      period.empty() ? nullptr : period.data(), atom.empty() ? nullptr : atom.data()};
    FrameStats stats;
    if (features == 0)
        stats = reference ? direct_cpu_reference(view, precision, shortcuts, rect, mu_out)
                          : direct_cpu(view, precision, shortcuts, rect, mu_out, control);
    else
        stats = reference ? direct_features_cpu_reference(view, precision, shortcuts, rect, mu_out, outputs)
                          : direct_features_cpu(view, precision, shortcuts, rect, mu_out, outputs, control);
    if (stats.cancelled) return stats;
    colour_frame(mu_out, FrameFeatures{outputs.distance, outputs.stripe, outputs.period, outputs.atom}, rect.width,
                 rect.height, palette, view, pixel_scale, rgba_out);
    return stats;
}

}  // namespace ms
