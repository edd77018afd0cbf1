// panel_cnn_parts.h: what the two halves of the CNN panel share (panel_cnn.cpp draws the
// images, panel_cnn_results.cpp the measurements): colours and the block layout. Private to
// them; everything else uses panel_cnn.h.
#pragma once

#include <imgui.h>

#include "render/demos/panel_cnn.h"

namespace ms {

inline constexpr ImU32 kCnnRightColour = IM_COL32(110, 205, 120, 255);
inline constexpr ImU32 kCnnWrongColour = IM_COL32(240, 75, 75, 255);
inline constexpr ImU32 kCnnSelectedColour = IM_COL32(255, 210, 60, 255);
inline constexpr ImU32 kCnnWarningColour = IM_COL32(230, 190, 90, 255);
inline constexpr ImU32 kCnnErrorColour = IM_COL32(255, 110, 110, 255);
inline constexpr ImU32 kCnnNoteColour = IM_COL32(140, 220, 140, 255);
inline constexpr ImU32 kCnnCpuColour = IM_COL32(90, 160, 255, 255);
inline constexpr ImU32 kCnnGpuColour = IM_COL32(118, 185, 0, 255);

// Starts a block `width` wide beside the previous item (a group) when it fits, else below it.
void cnn_next_block(float width);

// "Classify all 10,000", the confusion matrix and the batch-size sweep.
void draw_cnn_results(CnnDemo& demo);

}  // namespace ms
