// kfr.cpp: .kfr reading and writing (see kfr.h).
#include "compute/fractal/view/kfr.h"

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

// KF's FractalType and Power of a formula (kfr.h).
void kfr_formula_keys(Formula formula, int* type, int* power) {
    *type = formula == Formula::BurningShip ? 1 : formula == Formula::Tricorn ? 4 : 0;
    *power = formula_degree(formula);
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
        if (!keys.count(required)) return std::string("The location file has no \"") + required + ":\" line.";
    // The formula: KF's (FractalType, Power) pair, 0 and 2 when absent.
    const std::string type = keys.count("FractalType") ? keys["FractalType"] : "0";
    const std::string power = keys.count("Power") ? keys["Power"] : "2";
    DeepLocation location;
    bool known = false;
    for (Formula f : kAllFormulas) {
        int t = 0, p = 0;
        kfr_formula_keys(f, &t, &p);
        if (type == std::to_string(t) && power == std::to_string(p)) {
            location.formula = f;
            known = true;
        }
    }
    if (!known)
        return "The location file is for Kalles Fraktaler's fractal type " + type.substr(0, 20) + " with power " +
               power.substr(0, 20) +
               ", which Mandelscope does not draw (it has type 0 with power 2 to 8, and types 1 and 4 with power 2).";
    const bool has_re = keys.count("MandelscopeJuliaRe") > 0, has_im = keys.count("MandelscopeJuliaIm") > 0;
    if (has_re != has_im)
        return std::string("The location file has \"") + (has_re ? "MandelscopeJuliaRe" : "MandelscopeJuliaIm") +
               ":\" but not \"" + (has_re ? "MandelscopeJuliaIm" : "MandelscopeJuliaRe") +
               ":\": a Julia set needs both parts of c.";
    if (has_re) {
        location.julia = true;
        location.julia_re = keys["MandelscopeJuliaRe"];
        location.julia_im = keys["MandelscopeJuliaIm"];
        std::string error = check_deep_center(location.julia_re, "real");
        if (error.empty()) error = check_deep_center(location.julia_im, "imaginary");
        // The same sentence as validate_deep_location's, naming the Julia parameter.
        if (error.rfind("The centre's", 0) == 0) error = "The Julia parameter's" + error.substr(12);
        if (!error.empty()) return error;
    }
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
    int type = 0, power = 2;
    kfr_formula_keys(location.formula, &type, &power);
    std::string text = "Re: " + location.center_re + "\r\n" + "Im: " + location.center_im + "\r\n" +
                       "Zoom: " + format_deep_zoom(location.zoom) + "\r\n" +
                       "Iterations: " + std::to_string(location.max_iterations) + "\r\n" +
                       "FractalType: " + std::to_string(type) + "\r\nPower: " + std::to_string(power) + "\r\n";
    if (location.julia)
        text += "MandelscopeJuliaRe: " + location.julia_re + "\r\nMandelscopeJuliaIm: " + location.julia_im + "\r\n";
    return text;
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
