// mandelbrot_cpu_adapter.h: TEMPORARY. The window's one entry to the fast CPU path.
//
// compute/mandelbrot_cpu (all cores, SIMD) is being written on the foundation branch and is
// declared but not yet defined here. Until it is merged this adapter spreads
// mandelbrot_cpu_reference over the cores row by row (OpenMP, dynamic schedule), polls
// control.cancel between rows and reports progress like mandelbrot_cpu will. After the merge
// its body becomes one line:
//     return mandelbrot_cpu(view, precision, Shortcuts{}, rect, mu_out, control);
// and callers may call mandelbrot_cpu directly.
#pragma once

#include "compute/mandelbrot.h"

namespace ms {

FrameStats mandelbrot_cpu_adapter(const View& view, Precision precision, PixelRect rect, float* mu_out,
                                  const CpuRenderControl& control = {});

}  // namespace ms
