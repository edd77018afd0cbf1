// view_record.cpp: the view as JSON text and back, and reading it from a PNG (view_record.h).
#include "compute/fractal/view/view_record.h"

#include <climits>
#include <cstdint>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "compute/io/image_io.h"

namespace ms {

namespace {

Precision precision_named(const std::string& name) {
    Precision precision;
    if (!precision_from_name(name, &precision)) throw std::runtime_error("unknown precision '" + name + "'");
    return precision;
}

std::string quoted(const std::filesystem::path& path) {
    std::string text = path.string();  // (built by appending: GCC 12 -O3 misfires -Wrestrict on "'" + s)
    text.insert(text.begin(), '\'');
    text.push_back('\'');
    return text;
}

}  // namespace

std::string view_to_json(const ViewRecord& record) {
    const View& v = record.view;
    nlohmann::ordered_json j;
    j["center_re"] = v.center_re;
    j["center_im"] = v.center_im;
    j["zoom"] = v.zoom.text();  // text: "4.00000000000E533" is past any JSON number's double
    j["width"] = v.width;
    j["height"] = v.height;
    j["iterations"] = v.max_iterations;
    j["palette"] = v.palette;
    j["offset"] = v.palette_offset;
    j["density"] = v.palette_density;
    j["precision"] = precision_name(record.precision);
    j["supersample"] = record.supersample;
    const Colouring& c = v.colouring;
    j["colouring"] = {{"methods", colouring_methods_text(c)}, {"stripe_density", c.stripe_density},
                      {"de_band_px", c.de_band_px},           {"slope_angle_deg", c.slope_angle_deg},
                      {"slope_strength", c.slope_strength},   {"interior", interior_colour_name(c.interior)},
                      {"atom_strength", c.atom_strength}};
    // The formula family (formula.h): written always, read as Mandelbrot where absent (files
    // from before it). The Julia parameter only for a Julia view.
    j["formula"] = formula_name(v.formula);
    if (v.julia) {
        j["julia_re"] = v.julia_re;
        j["julia_im"] = v.julia_im;
    }
    return j.dump();
}

namespace {

// A JSON number that must be a whole number in [minimum, maximum]. nlohmann's get<int>() casts
// a float such as 3e9 to int, which is undefined (UBSan: float-cast-overflow), and wraps a
// large integer silently: check the value as it was written instead.
int64_t json_int(const nlohmann::json& j, const char* key, int64_t minimum, int64_t maximum) {
    const nlohmann::json& v = j.at(key);
    const std::string where = std::string("'") + key + "'";
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u <= uint64_t(maximum) && int64_t(u) >= minimum) return int64_t(u);
    } else if (v.is_number_integer()) {
        const int64_t i = v.get<int64_t>();
        if (i >= minimum && i <= maximum) return i;
    } else if (!v.is_number()) {
        throw std::runtime_error(where + " is not a number");
    }
    throw std::runtime_error(where + " must be a whole number from " + std::to_string(minimum) + " to " +
                             std::to_string(maximum));
}

double json_double(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = j.at(key);
    if (!v.is_number()) throw std::runtime_error(std::string("'") + key + "' is not a number");
    return v.get<double>();
}

// The zoom: text ("4.00000000000E533", what view_to_json writes) or, as older files have it, a
// JSON number.
ViewZoom json_zoom(const nlohmann::json& j) {
    const nlohmann::json& v = j.at("zoom");
    if (v.is_number()) return ViewZoom(v.get<double>());
    if (!v.is_string()) throw std::runtime_error("'zoom' is neither a number nor text");
    ViewZoom zoom;
    if (std::string problem = ViewZoom::parse(v.get<std::string>(), &zoom); !problem.empty())
        throw std::runtime_error("'zoom': " + problem);
    return zoom;
}

std::string json_string(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = j.at(key);
    if (!v.is_string()) throw std::runtime_error(std::string("'") + key + "' is not a string");
    return v.get<std::string>();
}

// The "colouring" object (a file without one has the default colouring).
Colouring colouring_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw std::runtime_error("'colouring' is not an object");
    for (const char* key : {"methods", "stripe_density", "de_band_px", "slope_angle_deg", "slope_strength", "interior"})
        if (!j.contains(key)) throw std::runtime_error(std::string("'colouring.") + key + "' is missing");
    Colouring c;
    if (std::string problem = parse_colouring_methods(json_string(j, "methods"), &c); !problem.empty())
        throw std::runtime_error(problem);
    c.stripe_density = int(json_int(j, "stripe_density", 1, kMaxStripeDensity));
    c.de_band_px = json_double(j, "de_band_px");
    c.slope_angle_deg = json_double(j, "slope_angle_deg");
    c.slope_strength = json_double(j, "slope_strength");
    if (std::string problem = parse_interior_colour(json_string(j, "interior"), &c.interior); !problem.empty())
        throw std::runtime_error(problem);
    // Absent in files from before the atom layer: the default.
    if (j.contains("atom_strength")) c.atom_strength = json_double(j, "atom_strength");
    return c;
}

}  // namespace

ViewRecord view_from_json(const std::string& json) {
    ViewRecord record;
    try {
        // No exceptions from the parser itself (its messages name library internals): a
        // discarded value says "not JSON" in our words.
        const auto j = nlohmann::json::parse(json, nullptr, false);
        if (j.is_discarded()) throw std::runtime_error("it is not JSON");
        if (!j.is_object()) throw std::runtime_error("it is not a JSON object");
        for (const char* key : {"center_re", "center_im", "zoom", "width", "height", "iterations", "palette", "offset",
                                "density", "precision"})
            if (!j.contains(key)) throw std::runtime_error(std::string("'") + key + "' is missing");
        View& v = record.view;
        v.center_re = json_string(j, "center_re");
        v.center_im = json_string(j, "center_im");
        v.zoom = json_zoom(j);
        v.width = int(json_int(j, "width", 1, INT_MAX));
        v.height = int(json_int(j, "height", 1, INT_MAX));
        v.max_iterations = json_int(j, "iterations", 1, kDeepMaxIterations);
        v.palette = json_string(j, "palette");
        v.palette_offset = json_double(j, "offset");
        v.palette_density = json_double(j, "density");
        record.precision = precision_named(json_string(j, "precision"));
        record.supersample = j.contains("supersample") ? int(json_int(j, "supersample", 1, 4)) : 1;
        if (j.contains("colouring")) v.colouring = colouring_from_json(j.at("colouring"));
        if (j.contains("formula")) {
            const std::string name = json_string(j, "formula");
            if (!parse_formula(name, &v.formula))
                throw std::runtime_error("'formula' is '" + name.substr(0, 60) + "', not one of " + formula_names());
        }
        if (j.contains("julia_re") || j.contains("julia_im")) {
            v.julia = true;
            v.julia_re = json_string(j, "julia_re");
            v.julia_im = json_string(j, "julia_im");
        }
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("the view metadata is malformed (") + e.what() + ")");
    }
    std::string problem = validate_view(record.view);
    if (!problem.empty()) throw std::runtime_error("the view metadata is invalid: " + problem);
    // A name, never a path: the palette is looked up in assets/palettes/, so a file's
    // metadata never names a file to open.
    if (!palette_name_is_plain(record.view.palette))
        throw std::runtime_error("the view metadata is invalid: " + palette_name_problem(record.view.palette));
    return record;
}

ViewRecord read_png_view(const std::filesystem::path& path) {
    std::string text;
    if (!read_png_text(path, kMetadataKey, &text))
        throw std::runtime_error(quoted(path) + " carries no Mandelscope view (no '" + std::string(kMetadataKey) +
                                 "' tEXt chunk): it was not written by mandelscope render");
    try {
        return view_from_json(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(quoted(path) + ": " + e.what());
    }
}

}  // namespace ms
