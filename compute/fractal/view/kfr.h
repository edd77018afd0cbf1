// kfr.h: Kalles Fraktaler location files (.kfr), read and written.
//
// A .kfr is text, one "Key: value" per line (CRLF or LF). We read
//   Re          centre, real part (decimal text, kept verbatim)
//   Im          centre, imaginary part
//   Zoom        e.g. "4.00000000000E533" (half the image height spans 2/zoom, as in View)
//   Iterations  maximum iterations (optional: 1000 when absent)
//   FractalType, Power   the formula, in KF's numbering (both optional: 0 and 2 when absent):
//               type 0 power 2 Mandelbrot, type 0 power 3..8 Multibrot d, type 1 power 2 Burning
//               Ship, type 4 power 2 Mandelbar (Tricorn). Any other pair is refused with a
//               sentence: the picture would be another formula's.
//   MandelscopeJuliaRe, MandelscopeJuliaIm   a Julia set's parameter c (decimal text, both or
//               neither). KF has no Julia sets and no such keys: it does not read them, so a file
//               Mandelscope writes for a Julia set opens in KF on the formula's parameter plane.
// Every other key KF writes is ignored: IterDiv, SmoothMethod,
// ColorMethod, Differences, ColorOffset, Rotate, Ratio, Colors, InteriorColor, Smooth,
// MultiColor, BlendMC, MultiColors, Slopes, SlopePower, SlopeRatio, SlopeAngle, imag, real,
// SeedR, SeedI, FactorAR, FactorAI, Period, ZoomSize, MaxReferences, GlitchLowTolerance,
// ApproxLowTolerance, AutoApproxTerms, ApproxTerms, WindowWidth, WindowHeight, and the rest.
// Written files carry Re, Im, Zoom, Iterations, FractalType and Power, and the Julia keys for a
// Julia set.
#pragma once

#include <string>

#include "compute/fractal/view/deep_location.h"

namespace ms {

// Empty string on success, else one sentence (naming the file where there is one).
std::string parse_kfr(const std::string& text, DeepLocation* out);
std::string read_kfr(const std::string& path, DeepLocation* out);
std::string format_kfr(const DeepLocation& location);
// Writes through a temporary file and a rename: no partial file on failure.
std::string write_kfr(const std::string& path, const DeepLocation& location);

}  // namespace ms
