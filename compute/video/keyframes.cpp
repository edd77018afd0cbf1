// keyframes.cpp: the keyframe file, parsed and written (see keyframes.h and docs/keyframes.md).
#include "compute/video/keyframes.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "compute/system/number_text.h"

namespace ms {

namespace {

// The shortest decimal that reads back to x (std::to_chars' guarantee).
std::string shortest_decimal(double x) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    return std::string(buffer, result.ptr);
}

// A sentence with its first letter lowered, to follow "Line N of the keyframe file: ".
std::string lowered(std::string sentence) {
    // Keep "DeepZoom"-style proper names: only a capital followed by a lower-case letter drops.
    if (sentence.size() > 1 && std::isupper((unsigned char)sentence[0]) && std::islower((unsigned char)sentence[1]))
        sentence[0] = char(std::tolower((unsigned char)sentence[0]));
    return sentence;
}

std::string quoted_text(const std::string& text) {
    if (text.size() <= 40) return "\"" + text + "\"";
    return "\"" + text.substr(0, 37) + "...\" (" + std::to_string(text.size()) + " characters)";
}

// One keyframe's problem as a sentence, or "" (no line number: the callers add where it is).
std::string keyframe_problem(const Keyframe& k) {
    if (!std::isfinite(k.time_s) || k.time_s < 0.0)
        return "The time must be a finite number of seconds, at least 0.";
    for (const auto& [text, which] : {std::pair{&k.center_re, "real"}, std::pair{&k.center_im, "imaginary"}}) {
        if (std::string problem = check_deep_center(*text, which); !problem.empty()) return problem;
        DecimalNumber d;  // the plan subtracts centres exactly: number_text's grammar must take them
        if (std::string problem = parse_decimal(*text, &d); !problem.empty())
            return std::string("The centre's ") + which + " part " + problem + ".";
    }
    if (!k.zoom.is_valid() || k.zoom.log10() < std::log10(kMinZoom))
        return "The zoom " + k.zoom.text() + " is outside the range a view takes (" + shortest_decimal(kMinZoom) +
               " to 1E" + std::to_string(kDeepZoomMaxExponent10) + ").";
    if (!std::isfinite(k.palette_offset)) return "The palette offset must be a finite number.";
    if (k.max_iterations < 1 || k.max_iterations > kDeepMaxIterations)
        return "The iteration count must be between 1 and " + std::to_string(kDeepMaxIterations) + ".";
    return "";
}

std::string line_problem(int line, const std::string& problem) {
    return "Line " + std::to_string(line) + " of the keyframe file: " + lowered(problem);
}

// Splits at spaces and tabs.
std::vector<std::string> fields_of(const std::string& line) {
    std::vector<std::string> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        if (j > i) fields.push_back(line.substr(i, j - i));
        i = j;
    }
    return fields;
}

// One keyframe line's six fields; "" or the problem (without the line number).
std::string parse_keyframe_fields(const std::vector<std::string>& f, Keyframe* out) {
    if (f.size() != 6)
        return "It has " + std::to_string(f.size()) + (f.size() == 1 ? " field" : " fields") +
               " where a keyframe has 6 (time, centre real, centre imaginary, zoom, palette offset, iterations).";
    Keyframe k;
    if (std::string problem = parse_finite_double(f[0], &k.time_s); !problem.empty())
        return "The time " + problem + ".";
    k.center_re = f[1];
    k.center_im = f[2];
    if (std::string problem = ViewZoom::parse(f[3], &k.zoom); !problem.empty()) return problem;
    if (std::string problem = parse_finite_double(f[4], &k.palette_offset); !problem.empty())
        return "The palette offset " + problem + ".";
    if (std::string problem = parse_deep_iterations(f[5], &k.max_iterations); !problem.empty()) return problem;
    if (std::string problem = keyframe_problem(k); !problem.empty()) return problem;
    *out = k;
    return "";
}

std::string time_order_problem(const Keyframe& previous, const Keyframe& k) {
    if (k.time_s > previous.time_s) return "";
    return "The time " + shortest_decimal(k.time_s) + " s does not come after the previous keyframe's " +
           shortest_decimal(previous.time_s) + " s (times must increase).";
}

}  // namespace

Keyframe keyframe_from_view(const View& view, double time_s) {
    Keyframe k;
    k.time_s = time_s;
    k.center_re = view.center_re;
    k.center_im = view.center_im;
    k.zoom = view.zoom;
    k.palette_offset = view.palette_offset;
    k.max_iterations = view.max_iterations;
    return k;
}

View view_at_keyframe(const View& base, const Keyframe& keyframe) {
    View view = base;
    view.center_re = keyframe.center_re;
    view.center_im = keyframe.center_im;
    view.zoom = keyframe.zoom;
    view.palette_offset = keyframe.palette_offset;
    view.max_iterations = keyframe.max_iterations;
    return view;
}

std::string validate_keyframes(const std::vector<Keyframe>& keyframes) {
    if (keyframes.size() < 2)
        return "A keyframed path needs at least two keyframes, not " + std::to_string(keyframes.size()) + ".";
    for (size_t i = 0; i < keyframes.size(); ++i) {
        std::string problem = keyframe_problem(keyframes[i]);
        if (problem.empty() && i > 0) problem = time_order_problem(keyframes[i - 1], keyframes[i]);
        if (!problem.empty()) return "Keyframe " + std::to_string(i + 1) + ": " + lowered(problem);
    }
    return "";
}

std::string parse_keyframes(const std::string& text, std::vector<Keyframe>* out) {
    if (text.size() > kKeyframesMaxBytes) return "The keyframe file is larger than 16 MiB.";
    std::vector<Keyframe> keyframes;
    bool header_seen = false;
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::vector<std::string> fields = fields_of(line);
        if (fields.empty()) continue;
        if (!header_seen) {
            if (fields[0] != kKeyframesMagic)
                return line_problem(number, std::string("It should be the header \"") + kKeyframesMagic + " " +
                                                std::to_string(kKeyframesVersion) + "\", not " + quoted_text(line) + ".");
            int64_t version = 0;
            if (fields.size() != 2 || !parse_whole_number(fields[1], 1, 1000000, &version).empty())
                return line_problem(number, std::string("The header should be \"") + kKeyframesMagic + " " +
                                                std::to_string(kKeyframesVersion) + "\", not " + quoted_text(line) + ".");
            if (version != kKeyframesVersion)
                return line_problem(number, "The file is in version " + std::to_string(version) +
                                                " of the format; this Mandelscope reads version " +
                                                std::to_string(kKeyframesVersion) + ".");
            header_seen = true;
            continue;
        }
        Keyframe k;
        std::string problem = parse_keyframe_fields(fields, &k);
        if (problem.empty() && !keyframes.empty()) problem = time_order_problem(keyframes.back(), k);
        if (!problem.empty()) return line_problem(number, problem);
        keyframes.push_back(k);
    }
    if (!header_seen)
        return std::string("The keyframe file has no header line \"") + kKeyframesMagic + " " +
               std::to_string(kKeyframesVersion) + "\".";
    if (keyframes.size() < 2)
        return "The keyframe file has " + std::to_string(keyframes.size()) + (keyframes.size() == 1 ? " keyframe" : " keyframes") +
               "; a path needs at least two.";
    *out = std::move(keyframes);
    return "";
}

std::string read_keyframes(const std::string& path, std::vector<Keyframe>* out) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return "Cannot read the keyframe file " + path + ": " + ec.message() + ".";
    if (size > kKeyframesMaxBytes) return "The keyframe file " + path + " is larger than 16 MiB.";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "Cannot open the keyframe file " + path + ".";
    std::ostringstream text;
    text << in.rdbuf();
    if (std::string problem = parse_keyframes(text.str(), out); !problem.empty()) {
        // "Line N of the keyframe file: ..." names the file: "Line N of the keyframe file F: ...".
        const std::string marker = " of the keyframe file";
        if (const size_t at = problem.find(marker); at != std::string::npos)
            return problem.insert(at + marker.size(), " " + path);
        return "The keyframe file " + path + ": " + lowered(problem);
    }
    return "";
}

std::string format_keyframes(const std::vector<Keyframe>& keyframes) {
    std::string text = std::string(kKeyframesMagic) + " " + std::to_string(kKeyframesVersion) + "\n";
    text += "# time_s  centre_re  centre_im  zoom  palette_offset  iterations  (docs/keyframes.md)\n";
    for (const Keyframe& k : keyframes) {
        text += shortest_decimal(k.time_s) + " " + k.center_re + " " + k.center_im + " " + k.zoom.text() + " " +
                shortest_decimal(k.palette_offset) + " " + std::to_string(k.max_iterations) + "\n";
    }
    return text;
}

std::string write_keyframes(const std::string& path, const std::vector<Keyframe>& keyframes) {
    if (std::string problem = validate_keyframes(keyframes); !problem.empty()) return problem;
    const std::string temporary = path + ".part";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) return "Cannot write the keyframe file " + path + ".";
        out << format_keyframes(keyframes);
        out.close();
        if (!out) {
            std::remove(temporary.c_str());
            return "Cannot write the keyframe file " + path + ".";
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::remove(temporary.c_str());
        return "Cannot write the keyframe file " + path + ": " + ec.message() + ".";
    }
    return "";
}

}  // namespace ms
