// manifest.cpp: the frames' views as JSON lines (manifest.h).
#include "compute/video/manifest.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "compute/io/image_io.h"

namespace ms {

ViewRecord manifest_record(const View& view, Precision requested, int supersample) {
    View samples = view;
    samples.width *= supersample;
    samples.height *= supersample;
    return ViewRecord{view, resolve_precision(samples, requested), supersample};
}

std::string manifest_line(int64_t frame, double time_s, const ViewRecord& record) {
    nlohmann::ordered_json j;
    j["frame"] = frame;
    j["time_s"] = time_s;
    j["view"] = nlohmann::ordered_json::parse(view_to_json(record));
    return j.dump();
}

std::string manifest_text(const std::vector<View>& plan, int fps, Precision requested, int supersample) {
    std::string text;
    for (size_t k = 0; k < plan.size(); ++k) {
        text += manifest_line(int64_t(k), double(k) / fps, manifest_record(plan[k], requested, supersample));
        text += '\n';
    }
    return text;
}

void write_manifest(const std::filesystem::path& path, const std::vector<View>& plan, int fps, Precision requested,
                    int supersample) {
    const std::string text = manifest_text(plan, fps, requested, supersample);
    AtomicFile file(path);
    file.write(text.data(), text.size());
    file.commit();
}

std::vector<ViewRecord> read_manifest(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the manifest '" + path.string() + "'");
    std::vector<ViewRecord> records;
    std::string line;
    while (std::getline(in, line)) {
        const std::string where = "the manifest '" + path.string() + "', line " + std::to_string(records.size() + 1);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("frame") || !j.contains("view") ||
            !j["frame"].is_number_integer() || !j["view"].is_object())
            throw std::runtime_error(where + " is not a frame's line");
        if (j["frame"].get<int64_t>() != int64_t(records.size()))
            throw std::runtime_error(where + " names frame " + std::to_string(j["frame"].get<int64_t>()));
        records.push_back(view_from_json(j["view"].dump()));
    }
    return records;
}

}  // namespace ms
