// colouring.h: how smooth values become colours, beyond the plain palette.
//
// Methods combine as layers over one base:
//   base      where the palette position comes from:
//               smooth     the smooth iteration value mu (the plain colouring, colourize())
//               histogram  mu's rank among the frame's escaped pixels (histogram equalisation):
//                          the palette spreads evenly over the frame at any depth
//               stripe     the stripe average (Haerkoenen): the mean over the orbit of
//                          1/2 + 1/2 sin(density * arg z_k), blended between its last two
//                          values by mu's fraction, so that it is continuous
//   layers    that modulate the base colour's brightness:
//               de         exterior distance estimation |z| ln|z| / |dz/dc| (in pixels): a dark
//                          band of de_band_px pixels along the boundary shows its filaments
//               slope      normal-map lighting of the mu field (as Kalles Fraktaler's "Slopes"):
//                          mu's gradient, from finite differences, tilts a surface lit from
//                          slope_angle_deg with strength slope_strength
//   overlay   that blends a hue into every pixel, interior included:
//               atom       atom domains: the period n of the orbit's smallest |z_n| (n >= 1),
//                          a hue per period (the golden angle apart) blended in by
//                          atom_strength; each domain surrounds a component of that period,
//                          so the hues point at the minibrots
//   interior  flat (the palette's interior colour) or period (a palette colour per period of
//             the settled orbit: each hyperbolic component gets its period's colour; orbits that
//             have not settled, on the boundary, keep the flat colour)
//
// Where the data comes from: mu from every kernel (direct.h); the distance estimate, the
// stripe average, the period and the atom period from the orbit-feature variant of the kernels
// (orbit_features.h), which accumulates them in the iteration loop; the histogram and the
// slopes from passes over the frame's mu. The per-pixel colour is pixel_colour.h's
// colour_pixel(), one function for the CPU and the CUDA colour pass.
#pragma once

#include <string>

namespace ms {

enum class ColourBase { Smooth, Histogram, Stripe };
enum class InteriorColour { Flat, Period };

struct Colouring {
    ColourBase base = ColourBase::Smooth;
    int stripe_density = 5;            // stripes per turn of arg z; whole, so arg's wrap is seamless
    bool distance_estimation = false;  // the DE layer
    double de_band_px = 2.0;           // width of its dark band along the boundary, in image pixels
    bool slopes = false;               // the slope layer
    double slope_angle_deg = 45.0;     // light direction, counterclockwise from the right (+x)
    double slope_strength = 4.0;       // relief height; 0 is flat
    InteriorColour interior = InteriorColour::Flat;
    bool atom_domains = false;   // the atom-domain layer
    double atom_strength = 0.5;  // its hue's share of the colour: 0 none, 1 the hue alone
    bool operator==(const Colouring&) const = default;
};

// Limits that validate_colouring() checks.
inline constexpr int kMaxStripeDensity = 64;
inline constexpr double kMaxDeBandPx = 1000.0;
inline constexpr double kMaxSlopeStrength = 1000.0;

// The methods as a comma list, base first, then layers: "smooth", "histogram,de,slope,atom".
// parse_colouring_methods() reads such a list (each of smooth, histogram, stripe at most once
// and only one of them; de, slope and atom in any order) into *colouring's base and layer switches,
// leaving the parameters as they are. Returns "" or one sentence.
std::string colouring_methods_text(const Colouring& colouring);
std::string parse_colouring_methods(const std::string& text, Colouring* colouring);
const char* interior_colour_name(InteriorColour interior);  // "flat", "period"
std::string parse_interior_colour(const std::string& text, InteriorColour* interior);
// "" or one sentence about a parameter out of range.
std::string validate_colouring(const Colouring& colouring);

// Today's picture: a smooth base, no layers, flat interior. Every path keeps its fast smooth
// kernel and colourize() for it.
bool colouring_is_plain(const Colouring& colouring);

// --- Past FP64 (compute/fractal/deep/) -----------------------------------------------------
// The deep path gives mu and, on request, the distance estimate and the atom period (its BLA
// skips keep the smallest |Z_n| of the steps they cover, deep_atom.h); it skips iterations in
// bulk, so the stripe average and the period, which need every iteration, are not there.
// "" or one sentence for a colouring it cannot give.
std::string deep_colouring_problem(const Colouring& colouring);
// Drops what deep_colouring_problem refuses (stripe base to smooth, period interior to flat):
// the window's way when a view goes past FP64. Returns whether anything was dropped.
bool drop_deep_unavailable_colouring(Colouring* colouring);
}  // namespace ms
