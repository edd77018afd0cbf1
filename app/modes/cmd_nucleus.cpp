// cmd_nucleus.cpp: `mandelscope nucleus`: Newton zoom's numbers for a location (the period of
// the lowest-period nucleus near its centre, that nucleus to the digits its minibrot needs, the
// minibrot's size and the zooms that frame it and its embedded Julia set), optionally written as a
// .kfr that frames the minibrot. The maths is compute/fractal/nucleus/nucleus.h; this file reads
// the options, shows progress while a search takes long and prints the result. Bad input and a
// search that finds nothing are one sentence on stderr with exit status 2, and no file.
#include "app/modes/cmd_nucleus.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "app/commands.h"
#include "app/modes/progress.h"
#include "compute/fractal/nucleus/nucleus.h"
#include "compute/fractal/view/kfr.h"

namespace ms {

namespace {

// A search shows its progress bar only once it has run this long: a quick one prints nothing.
constexpr auto kQuietSearch = std::chrono::milliseconds(500);

// The progress callback for find_minibrot: a bar on stderr, drawn from the first call after
// kQuietSearch.
struct SearchProgress {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::unique_ptr<ProgressBar> bar;
    std::mutex mutex;

    void update(const char* stage, double fraction) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!bar) {
            if (std::chrono::steady_clock::now() - start < kQuietSearch) return;
            bar = std::make_unique<ProgressBar>("nucleus");
        }
        const bool period = std::string(stage) == "period";
        // The period search fills the first third of the bar, Newton's steps the rest.
        bar->update(period ? fraction / 3.0 : 1.0 / 3.0 + 2.0 * fraction / 3.0,
                    period ? "finding the period" : "Newton's method for the nucleus");
    }
    void finish() {
        std::lock_guard<std::mutex> lock(mutex);
        if (bar) bar->finish();
    }
};

Minibrot find_with_progress(const DeepLocation& location, FloatExp radius, NucleusSearch search) {
    SearchProgress progress;
    search.progress = [&progress](const char* stage, double fraction) { progress.update(stage, fraction); };
    Minibrot m = find_minibrot(location, radius, search);
    progress.finish();
    return m;
}

// "1.23e-45" for a FloatExp of any exponent.
std::string scientific(FloatExp x) {
    if (x.mantissa == 0.0) return "0";
    const double log10_value = std::log10(std::fabs(x.mantissa)) + double(x.exponent) * 0.30102999566398120;
    const double exponent = std::floor(log10_value);
    char text[64];
    std::snprintf(text, sizeof text, "%.3fe%lld", std::pow(10.0, log10_value - exponent), (long long)exponent);
    return text;
}

// 2 / zoom: half the image height, in the plane's units.
FloatExp half_height(DeepZoom zoom) {
    const double log2_zoom = deep_zoom_log2(zoom);
    const double whole = std::floor(log2_zoom);
    return fe_make(2.0 * std::exp2(whole - log2_zoom), -int64_t(whole));
}

int bad_input(const std::string& sentence) {
    const bool stop = !sentence.empty() && sentence.back() == '.';
    std::fprintf(stderr, "mandelscope nucleus: %s%s\n", sentence.c_str(), stop ? "" : ".");
    return 2;
}

}  // namespace

std::string move_view_to_minibrot(View* view, double julia_fraction) {
    const DeepLocation location = deep_location(*view);
    if (std::string why = validate_deep_location(location); !why.empty()) return why;
    const Minibrot m = find_with_progress(location, deep_half_diagonal(location.zoom, view->width, view->height),
                                          NucleusSearch{});
    if (!m.found) return m.failure == "cancelled" ? "The search for a minibrot was cancelled." : m.failure;
    view->center_re = m.center_re;
    view->center_im = m.center_im;
    view->zoom = ViewZoom::from_deep(julia_fraction > 0.0 ? zoom_fraction(location.zoom, m.size_zoom, julia_fraction)
                                                          : minibrot_frame_zoom(m));
    return "";
}

int run_nucleus_command(int argc, char** argv) {
    CLI::App app{
        "Find the minibrot nearest a location (Newton zoom): the period of the lowest-period nucleus within the "
        "frame's half height of the centre, the nucleus to the digits the minibrot needs, its size and the zooms that "
        "frame it",
        "nucleus"};
    std::string center = "-0.75,0", zoom_text = "1", iterations = "1000", location_path, output;
    int64_t period = 0, after = 0;
    double margin = 2.0;
    app.add_option("--center", center, "Centre RE,IM as decimal text (write --center=-1.75,0)")->capture_default_str();
    app.add_option("--zoom", zoom_text, "Zoom: the search looks within half the image height, 2/zoom, of the centre")
        ->capture_default_str();
    app.add_option("--location", location_path, "Start from a Kalles Fraktaler location file (.kfr) instead");
    app.add_option("--iter", iterations, "Maximum iterations: the longest period looked for (and the .kfr's count)")
        ->capture_default_str();
    app.add_option("--period", period, "Newton's method for exactly this period (no search)");
    app.add_option("--after", after, "Look only for periods past this one (the next minibrot in)");
    app.add_option("--margin", margin, "The .kfr's zoom frames the minibrot with this many times its size")
        ->check(CLI::Range(1.0, 1e6))
        ->capture_default_str();
    app.add_option("-o,--output", output,
                   "Write a .kfr whose centre is the nucleus and whose zoom frames the minibrot");
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;

    DeepLocation location;
    if (!location_path.empty()) {
        if (app.count("--center") > 0 || app.count("--zoom") > 0)
            return bad_input("--location gives the centre and the zoom: leave out --center and --zoom");
        if (std::string problem = read_kfr(location_path, &location); !problem.empty()) return bad_input(problem);
    } else {
        if (std::string problem = parse_center_option(center, &location.center_re, &location.center_im);
            !problem.empty())
            return bad_input(problem);
        if (std::string problem = parse_deep_zoom(zoom_text, &location.zoom); !problem.empty())
            return bad_input(problem);
    }
    if (location_path.empty() || app.count("--iter") > 0) {
        if (std::string problem = parse_deep_iterations(iterations, &location.max_iterations); !problem.empty())
            return bad_input(problem);
    }
    if (app.count("--period") > 0 && period < 1) return bad_input("The period must be at least 1");
    if (after < 0) return bad_input("--after must be a period, 0 or more");
    if (app.count("--period") > 0 && app.count("--after") > 0)
        return bad_input("--period names the period: leave out --after");
    if (std::string problem = validate_deep_location(location); !problem.empty()) return bad_input(problem);
    if (std::string problem = minibrot_support(location); !problem.empty()) return bad_input(problem);

    NucleusSearch search;
    search.period = period;
    search.after_period = after;
    const Minibrot m = find_with_progress(location, half_height(location.zoom), search);
    if (!m.found) return bad_input(m.failure);

    const DeepZoom frame = minibrot_frame_zoom(m, margin);
    const DeepZoom julia = zoom_fraction(location.zoom, m.size_zoom, 0.5);
    std::printf("period     %lld\n", (long long)m.period);
    std::printf("nucleus    %s, %s\n", m.center_re.c_str(), m.center_im.c_str());
    std::printf("precision  %lld bits\n", (long long)m.precision_bits);
    std::printf("size       %s, angle %.4f rad: fills the half height at zoom %s\n", scientific(m.size).c_str(),
                m.angle, format_deep_zoom(m.size_zoom).c_str());
    std::printf("frame      zoom %s (%g times its size)\n", format_deep_zoom(frame).c_str(), margin);
    std::printf("julia      zoom %s (the embedded Julia set: half way in log zoom from %s)\n",
                format_deep_zoom(julia).c_str(), format_deep_zoom(location.zoom).c_str());
    std::printf("time       period %.1f ms, Newton %.1f ms (%d steps)\n", m.period_ms, m.newton_ms, m.newton_steps);
    if (!output.empty()) {
        DeepLocation out = location;
        out.center_re = m.center_re;
        out.center_im = m.center_im;
        out.zoom = frame;
        if (std::string problem = write_kfr(output, out); !problem.empty()) return bad_input(problem);
        std::printf("output     %s\n", output.c_str());
    }
    return 0;
}

}  // namespace ms
