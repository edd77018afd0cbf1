// view_record.h: the view's text form, as it travels in a PNG's tEXt chunk (and reopens there):
// a JSON object with the view, the precision that ran and the supersampling factor. The PNG
// writers and readers (compute/io/image_io.h) carry this text without knowing what it says.
#pragma once

#include <filesystem>
#include <string>

#include "compute/fractal/view/view.h"

namespace ms {

// What a rendered image was: the view (centre kept as text), the precision that ran and the
// supersampling factor.
struct ViewRecord {
    View view;
    Precision precision = Precision::Fp64;
    int supersample = 1;
};

// JSON object: center_re, center_im (full text), zoom (text, ViewZoom::text(); a JSON number is
// read too, as files before the deep zoom have it), width, height, iterations (64-bit),
// palette, offset, density, precision (precision_name()), supersample, formula (formula_name();
// absent: Mandelbrot), and for a Julia view julia_re, julia_im (full text), colouring (an object:
// methods as colouring_methods_text() writes them, stripe_density, de_band_px,
// slope_angle_deg, slope_strength, interior, atom_strength; absent in older files, which read
// as the default, as atom_strength alone does). view_from_json throws
// std::runtime_error with a sentence on anything missing or malformed.
std::string view_to_json(const ViewRecord& record);
ViewRecord view_from_json(const std::string& json);

// The view from a PNG's Mandelscope tEXt chunk (io's kMetadataKey); a PNG without it is an
// error that says so.
ViewRecord read_png_view(const std::filesystem::path& path);

}  // namespace ms
