// deep_kfr.h: Kalles Fraktaler location files (.kfr), read and written.
//
// A .kfr is text, one "Key: value" per line (CRLF or LF). We read
//   Re          centre, real part (decimal text, kept verbatim)
//   Im          centre, imaginary part
//   Zoom        e.g. "4.00000000000E533" (half the image height spans 2/zoom, as in View)
//   Iterations  maximum iterations (optional: 1000 when absent)
// and refuse files whose FractalType is not 0 or whose Power is not 2 (another formula: the
// picture would be wrong). Every other key KF writes is ignored: IterDiv, SmoothMethod,
// ColorMethod, Differences, ColorOffset, Rotate, Ratio, Colors, InteriorColor, Smooth,
// MultiColor, BlendMC, MultiColors, Slopes, SlopePower, SlopeRatio, SlopeAngle, imag, real,
// SeedR, SeedI, FactorAR, FactorAI, Period, ZoomSize, MaxReferences, GlitchLowTolerance,
// ApproxLowTolerance, AutoApproxTerms, ApproxTerms, WindowWidth, WindowHeight, and the rest.
// Written files carry Re, Im, Zoom, Iterations, and FractalType 0 / Power 2.
#pragma once

#include <string>

#include "compute/fractal/deep/deep_location.h"

namespace ms {

// Empty string on success, else one sentence (naming the file where there is one).
std::string parse_kfr(const std::string& text, DeepLocation* out);
std::string read_kfr(const std::string& path, DeepLocation* out);
std::string format_kfr(const DeepLocation& location);
// Writes through a temporary file and a rename: no partial file on failure.
std::string write_kfr(const std::string& path, const DeepLocation& location);

}  // namespace ms
