// headless_export.h: `mandelscope --export=FILE.png [--size, --supersample, ...]` writes the view
// through the Export dialog's code (render/frame/export_image.h) without opening a window, so a
// script or a machine without a display gets the window's export.
#pragma once

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/frame/export_image.h"

namespace ms {

// Exports with a progress line on stderr (redrawn in place on a terminal, a line per tenth
// otherwise) and prints the result on stdout. Returns 0, or 2 with one sentence on stderr for a
// failure (a full disk, an unwritable path), as `render` does; the file appears only when
// complete, so a failure leaves nothing behind.
int export_without_window(const View& view, const PaletteTable& palette, const ExportSettings& settings);

}  // namespace ms
