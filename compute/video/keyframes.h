// keyframes.h: a video's keyframes (where the camera is at which second), read and written as
// the small text format of docs/keyframes.md. The window's Video panel writes the same files
// that `mandelscope video --keyframes=FILE` reads.
//
// The format, one keyframe a line:
//     mandelscope-keyframes 1
//     # time_s  centre_re  centre_im  zoom  palette_offset  iterations
//     0    -0.75                 0                   1     0     1000
//     12.5 -0.743643887037158704 0.131825904205311970 1e10  0.25  4000
// - The first line that is not blank or a comment is the header: "mandelscope-keyframes" and the
//   format's version (kKeyframesVersion).
// - '#' starts a comment, to the end of the line; blank lines are skipped; fields are separated by
//   spaces or tabs; LF or CRLF.
// - time_s: seconds from the video's start, decimal, >= 0, strictly increasing line to line.
// - centre_re, centre_im: full decimal text, kept verbatim (view.h's centre; any depth).
// - zoom: DeepZoom text ("1", "2.5e10", "4.00000000000E533"; deep_location.h), at least kMinZoom.
// - palette_offset: decimal, in palette cycles (view.h's palette_offset; 0 -> 3 cycles thrice).
// - iterations: whole number in [1, kDeepMaxIterations].
// A file holds at least two keyframes. Everything else of a frame (size, formula, palette,
// colouring, Julia parameter) comes from the video command's options, as for a straight dive.
// Each error is one sentence that names the line and what is wrong with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/view/view.h"

namespace ms {

inline constexpr int kKeyframesVersion = 1;
inline constexpr const char* kKeyframesMagic = "mandelscope-keyframes";
inline constexpr size_t kKeyframesMaxBytes = size_t(16) << 20;  // 16 MiB: hundreds of the deepest centres

struct Keyframe {
    double time_s = 0.0;              // seconds from the video's start
    std::string center_re = "-0.5";   // full decimal text, kept verbatim
    std::string center_im = "0";
    ViewZoom zoom = kDefaultZoom;     // half the image height spans 2/zoom (view.h)
    double palette_offset = 0.0;      // palette cycles
    int64_t max_iterations = 1000;
};

// The view's camera (centre, zoom, palette offset, iterations) at `time_s`.
Keyframe keyframe_from_view(const View& view, double time_s);
// `base` with the keyframe's camera: the frame a keyframe stands for.
View view_at_keyframe(const View& base, const Keyframe& keyframe);

// "" or one sentence: at least two keyframes, times finite, >= 0 and strictly increasing, each
// centre, zoom, palette offset and iteration count as the format above accepts them.
std::string validate_keyframes(const std::vector<Keyframe>& keyframes);

// Parses the text of a keyframe file. "" on success, else one sentence naming the line.
std::string parse_keyframes(const std::string& text, std::vector<Keyframe>* out);
// Reads and parses a file; errors name the file.
std::string read_keyframes(const std::string& path, std::vector<Keyframe>* out);
// The file's text: header, a comment naming the columns, one line a keyframe; parse_keyframes
// gives back the same keyframes (times and offsets print as the shortest decimal that reads back).
std::string format_keyframes(const std::vector<Keyframe>& keyframes);
// Validates, then writes through a temporary file and a rename: no partial file on failure.
std::string write_keyframes(const std::string& path, const std::vector<Keyframe>& keyframes);

}  // namespace ms
