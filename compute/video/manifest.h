// manifest.h: the list of a video's frames and their views, written beside the video.
//
// JSON lines (one JSON object a line, frame order), so that a tool reads it line by line and a
// partial line is never a valid frame:
//     {"frame":0,"time_s":0,"view":{...view_record.h's object: centre, zoom, iterations, ...}}
// "view" is view_to_json's object (compute/fractal/view/view_record.h), with the precision the
// frame renders in (its depth's, view.h's resolve_precision, for the frame's sample grid) and
// the supersampling factor. OUT.mp4's manifest is OUT.manifest.jsonl; a PNG sequence's is
// manifest.jsonl in its folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/fractal/view/view_record.h"

namespace ms {

// The record frame k's line names: the view, the precision it resolves to at `supersample`
// samples a pixel (Auto: by its depth), and the supersampling factor.
ViewRecord manifest_record(const View& view, Precision requested, int supersample);
// One line, without its newline.
std::string manifest_line(int64_t frame, double time_s, const ViewRecord& record);
// Every frame's line, newline-terminated.
std::string manifest_text(const std::vector<View>& plan, int fps, Precision requested, int supersample);
// Writes manifest_text atomically (AtomicFile). Throws std::runtime_error with a sentence.
void write_manifest(const std::filesystem::path& path, const std::vector<View>& plan, int fps, Precision requested,
                    int supersample);
// Reads a manifest's records in frame order. Throws std::runtime_error with a sentence naming
// the line on anything malformed or out of order.
std::vector<ViewRecord> read_manifest(const std::filesystem::path& path);

}  // namespace ms
