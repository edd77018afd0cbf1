// panel_vecadd_parts.h: what the two files of the Vector-add panel share, and nothing else
// should need: panel_vecadd.cpp (machine, size, Run/Sweep, the table, CSV) and
// panel_vecadd_sweep.cpp (the sweep's plots). Split by concept to keep each file readable.
#pragma once

#include <imgui.h>

#include <string>

#include "compute/vecadd/vecadd.h"
#include "render/demos/panel_vecadd.h"
#include "render/ui/plot.h"

namespace ms {

inline constexpr ImU32 kVecAddErrorColour = IM_COL32(255, 110, 110, 255);
inline constexpr ImU32 kVecAddWarningColour = IM_COL32(230, 190, 90, 255);
inline constexpr ImU32 kVecAddGoodColour = IM_COL32(140, 220, 140, 255);

// How a variant looks in the table, the plots and the legend, and what its tooltip says.
struct VecAddVariantStyle {
    ImU32 colour;
    PlotMarker marker;
    const char* help;
};
VecAddVariantStyle vecadd_variant_style(VecAddVariant variant);

// "0.79", "46.5", "1728" (GB/s, without the unit).
std::string vecadd_format_gbps(double gb_per_second);

// The "Sweep" section: the plots, the legend, the crossovers, the lesson.
void draw_vector_add_sweep(VectorAddDemo& demo);

}  // namespace ms
