// deep_kfr.cpp: .kfr reading and writing (see deep_kfr.h).
#include "compute/fractal/deep/deep_kfr.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace ms {

namespace {

constexpr size_t kKfrMaxBytes = 1 << 20;  // a centre at the 65,536-character limit fits many times

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

}  // namespace

std::string parse_kfr(const std::string& text, DeepLocation* out) {
    if (text.size() > kKfrMaxBytes) return "The location file is larger than 1 MiB, too large for a .kfr.";
    std::map<std::string, std::string> keys;
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        line = trim(line);
        if (line.empty()) continue;
        size_t colon = line.find(':');
        if (colon == std::string::npos || colon == 0)
            return "Line " + std::to_string(number) + " of the location file is not of the form \"Key: value\".";
        keys[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
    }
    for (const char* required : {"Re", "Im", "Zoom"})
        if (!keys.count(required))
            return std::string("The location file has no \"") + required + ":\" line.";
    if (keys.count("FractalType") && keys["FractalType"] != "0")
        return "The location file is for fractal type " + keys["FractalType"] +
               ", but only the Mandelbrot set (type 0) is supported.";
    if (keys.count("Power") && keys["Power"] != "2")
        return "The location file is for power " + keys["Power"] + ", but only power 2 is supported.";
    DeepLocation location;
    location.center_re = keys["Re"];
    location.center_im = keys["Im"];
    std::string error = check_deep_center(location.center_re, "real");
    if (error.empty()) error = check_deep_center(location.center_im, "imaginary");
    if (error.empty()) error = parse_deep_zoom(keys["Zoom"], &location.zoom);
    if (error.empty() && keys.count("Iterations"))
        error = parse_deep_iterations(keys["Iterations"], &location.max_iterations);
    if (!error.empty()) return error;
    *out = location;
    return "";
}

std::string read_kfr(const std::string& path, DeepLocation* out) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return "Cannot read the location file " + path + ": " + ec.message() + ".";
    if (size > kKfrMaxBytes) return "The location file " + path + " is larger than 1 MiB, too large for a .kfr.";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "Cannot open the location file " + path + ".";
    std::ostringstream text;
    text << in.rdbuf();
    std::string error = parse_kfr(text.str(), out);
    if (!error.empty()) return path + ": " + error;
    return "";
}

std::string format_kfr(const DeepLocation& location) {
    // CRLF, as KF writes them.
    return "Re: " + location.center_re + "\r\n" + "Im: " + location.center_im + "\r\n" +
           "Zoom: " + format_deep_zoom(location.zoom) + "\r\n" +
           "Iterations: " + std::to_string(location.max_iterations) + "\r\n" +
           "FractalType: 0\r\nPower: 2\r\n";
}

std::string write_kfr(const std::string& path, const DeepLocation& location) {
    std::string error = validate_deep_location(location);
    if (!error.empty()) return error;
    const std::string temporary = path + ".part";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) return "Cannot write the location file " + path + ".";
        out << format_kfr(location);
        out.close();
        if (!out) {
            std::remove(temporary.c_str());
            return "Cannot write the location file " + path + ".";
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::remove(temporary.c_str());
        return "Cannot write the location file " + path + ": " + ec.message() + ".";
    }
    return "";
}

}  // namespace ms
