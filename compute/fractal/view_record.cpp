// view_record.cpp: the view as JSON text and back, and reading it from a PNG (view_record.h).
#include "compute/fractal/view_record.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "compute/io/image_io.h"

namespace ms {

namespace {

Precision precision_from_name(const std::string& name) {
    if (name == "fp32") return Precision::Fp32;
    if (name == "fp64") return Precision::Fp64;
    if (name == "auto") return Precision::Auto;
    throw std::runtime_error("unknown precision '" + name + "'");
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
    j["zoom"] = v.zoom;
    j["width"] = v.width;
    j["height"] = v.height;
    j["iterations"] = v.max_iterations;
    j["palette"] = v.palette;
    j["offset"] = v.palette_offset;
    j["density"] = v.palette_density;
    j["precision"] = precision_name(record.precision);
    j["supersample"] = record.supersample;
    return j.dump();
}

ViewRecord view_from_json(const std::string& json) {
    ViewRecord record;
    try {
        const auto j = nlohmann::json::parse(json);
        View& v = record.view;
        v.center_re = j.at("center_re").get<std::string>();
        v.center_im = j.at("center_im").get<std::string>();
        v.zoom = j.at("zoom").get<double>();
        v.width = j.at("width").get<int>();
        v.height = j.at("height").get<int>();
        v.max_iterations = j.at("iterations").get<int>();
        v.palette = j.at("palette").get<std::string>();
        v.palette_offset = j.at("offset").get<double>();
        v.palette_density = j.at("density").get<double>();
        record.precision = precision_from_name(j.at("precision").get<std::string>());
        record.supersample = j.value("supersample", 1);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("the view metadata is malformed (") + e.what() + ")");
    }
    std::string problem = validate_view(record.view);
    if (!problem.empty()) throw std::runtime_error("the view metadata is invalid: " + problem);
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
