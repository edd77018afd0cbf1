// vecadd_report.cpp: what a vector-add sweep teaches, computed from its measurements: the
// crossover points (where a GPU variant overtakes a CPU one for good), the lesson sentence,
// and the CSV file. Pure functions of a VecAddSweep, so tests feed them synthetic sweeps.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>

#include "compute/io/image_io.h"
#include "compute/system/text_format.h"
#include "compute/vecadd/vecadd.h"

namespace ms {

namespace {

// Sizes where both variants have a measurement, ascending.
struct Pair {
    size_t n;
    double challenger_ms;
    double baseline_ms;
};

std::vector<Pair> measured_pairs(const VecAddSweep& sweep, VecAddVariant challenger, VecAddVariant baseline) {
    std::vector<size_t> sizes = sweep.sizes;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<Pair> pairs;
    for (size_t n : sizes) {
        const VecAddResult* c = vecadd_find(sweep, challenger, n);
        const VecAddResult* b = vecadd_find(sweep, baseline, n);
        if (c && b && c->ok && b->ok && c->time_ms > 0 && b->time_ms > 0) pairs.push_back({n, c->time_ms, b->time_ms});
    }
    return pairs;
}

std::string strip_zero(std::string s) {
    const size_t dot = s.find(".0");
    if (dot != std::string::npos && dot + 2 == s.size()) s.erase(dot);
    return s;
}

// Two significant digits are what a sentence needs: "30×", "4.5×", "1.2×".
std::string format_ratio(double r) { return strip_zero(printf_text(r >= 9.95 ? "%.0f" : "%.1f", r)) + "\u00d7"; }

std::string format_time(double ms) {
    const double us = ms * 1e3;
    if (us < 1.0) return printf_text("%.0f ns", us * 1e3);
    if (us < 10.0) return strip_zero(printf_text("%.1f", us)) + " \u00b5s";
    if (us < 1000.0) return printf_text("%.0f \u00b5s", us);
    if (ms < 10.0) return strip_zero(printf_text("%.1f", ms)) + " ms";
    if (ms < 1000.0) return printf_text("%.0f ms", ms);
    return printf_text("%.2f s", ms * 1e-3);
}

std::string format_gbps(double gbps) { return printf_text(gbps >= 100 ? "%.0f GB/s" : "%.1f GB/s", gbps); }

// "1 element", "400 elements", "2.1M elements".
std::string elements_phrase(size_t n) {
    return vecadd_format_elements(double(n)) + (n == 1 ? " element" : " elements");
}

std::string about(const VecAddCrossover& c) {
    std::string text = "~";  // (not "~" + string: GCC 12 warns falsely, bug 105329)
    text += vecadd_format_elements(c.estimate_elements > 0 ? c.estimate_elements : double(c.elements));
    return text;
}

}  // namespace

std::string vecadd_format_elements(double n) {
    struct Unit {
        double scale;
        const char* suffix;
    };
    for (Unit u : {Unit{1e12, "T"}, Unit{1e9, "G"}, Unit{1e6, "M"}, Unit{1e3, "K"}}) {
        if (n >= u.scale * 0.9995) {
            const double v = n / u.scale;
            return strip_zero(printf_text(v >= 9.95 ? "%.0f" : "%.1f", v)) + u.suffix;
        }
    }
    return printf_text("%.0f", n);
}

std::string vecadd_parse_size(const std::string& text, size_t* n) {
    const std::string bad = "\"" + text + "\" is not a size (write 400, 1e6 or 2^28)";
    if (text.empty() || text.find_first_not_of("0123456789e^") != std::string::npos) return bad;
    const size_t caret = text.find('^'), e = text.find('e');
    auto digits = [](const std::string& s, unsigned long long* v) {
        if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
        *v = std::strtoull(s.c_str(), nullptr, 10);
        return true;
    };
    unsigned long long base = 0, exponent = 0;
    double value = 0;
    if (caret != std::string::npos) {
        if (!digits(text.substr(0, caret), &base) || !digits(text.substr(caret + 1), &exponent)) return bad;
        value = std::pow(double(base), double(exponent));
    } else if (e != std::string::npos) {
        if (!digits(text.substr(0, e), &base) || !digits(text.substr(e + 1), &exponent)) return bad;
        value = double(base) * std::pow(10.0, double(exponent));
    } else {
        if (!digits(text, &base)) return bad;
        value = double(base);
    }
    // 0e40000 is 0 x inf, NaN: it fails this test too (a NaN converted to size_t is undefined).
    if (!(value >= 1)) return "size " + text + " is too small: an array needs at least 1 element";
    if (value > 1e18) return text + " elements is beyond any machine's memory";
    *n = size_t(value);
    return "";
}

std::string vecadd_parse_sizes(const std::string& text, std::vector<size_t>* sizes) {
    std::vector<size_t> parsed;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        size_t n = 0;
        const std::string why = vecadd_parse_size(
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &n);
        if (!why.empty()) return why;
        parsed.push_back(n);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    *sizes = std::move(parsed);
    return "";
}

VecAddCrossover vecadd_crossover(const VecAddSweep& sweep, VecAddVariant challenger, VecAddVariant baseline) {
    VecAddCrossover c;
    c.challenger = challenger;
    c.baseline = baseline;
    const std::vector<Pair> pairs = measured_pairs(sweep, challenger, baseline);
    if (pairs.empty()) return c;
    // Walk down from the largest size while the challenger keeps winning: noise that makes it
    // win once at a small size does not count as a crossover.
    size_t k = pairs.size();
    while (k > 0 && pairs[k - 1].challenger_ms < pairs[k - 1].baseline_ms) --k;
    if (k == pairs.size()) {
        c.crossing = VecAddCrossing::Never;
        return c;
    }
    c.elements = pairs[k].n;
    if (k == 0) {
        c.crossing = VecAddCrossing::Always;
        c.estimate_elements = double(pairs[0].n);
        return c;
    }
    c.crossing = VecAddCrossing::At;
    // On the log-log plot the time ratio crosses 1 between pairs[k-1] (loses) and pairs[k] (wins).
    const double r0 = std::log(pairs[k - 1].challenger_ms / pairs[k - 1].baseline_ms);  // >= 0
    const double r1 = std::log(pairs[k].challenger_ms / pairs[k].baseline_ms);          // < 0
    const double f = r0 / (r0 - r1);
    const double l0 = std::log(double(pairs[k - 1].n)), l1 = std::log(double(pairs[k].n));
    c.estimate_elements = std::exp(l0 + f * (l1 - l0));
    return c;
}

VecAddLesson vecadd_lesson(const VecAddSweep& sweep) {
    using V = VecAddVariant;
    VecAddLesson lesson;
    for (V gpu : {V::GpuKernelOnly, V::GpuPageable, V::GpuPinned, V::GpuStreams})
        for (V cpu : {V::CpuOneThread, V::CpuAllCores}) lesson.crossovers.push_back(vecadd_crossover(sweep, gpu, cpu));
    lesson.crossovers.push_back(vecadd_crossover(sweep, V::CpuAllCores, V::CpuOneThread));
    auto cross = [&](V a, V b) {
        for (const VecAddCrossover& c : lesson.crossovers)
            if (c.challenger == a && c.baseline == b) return c;
        return VecAddCrossover{};
    };
    auto ok_at = [&](V v, size_t n) -> const VecAddResult* {
        const VecAddResult* r = vecadd_find(sweep, v, n);
        return r && r->ok && r->time_ms > 0 ? r : nullptr;
    };

    // Sizes where the two CPU rows and the kernel were measured, ascending.
    std::vector<size_t> sizes = sweep.sizes;
    std::sort(sizes.begin(), sizes.end());
    std::vector<size_t> cpu_sizes, gpu_sizes;
    for (size_t n : sizes) {
        if (ok_at(V::CpuOneThread, n) && ok_at(V::CpuAllCores, n)) cpu_sizes.push_back(n);
        if (ok_at(V::CpuOneThread, n) && ok_at(V::GpuKernelOnly, n)) gpu_sizes.push_back(n);
    }
    const int threads = sweep.machine.host.threads;
    const std::string all_cores = "all " + std::to_string(threads) + " cores";
    std::ostringstream s;

    if (gpu_sizes.empty()) {
        // No GPU rows: the CPU half of the lesson still holds.
        std::string why;
        for (const VecAddResult& r : sweep.results)
            if (vecadd_variant_is_gpu(r.variant) && !r.ok && !r.error.empty()) {
                why = r.error;
                break;
            }
        if (cpu_sizes.empty()) {
            lesson.sentence = "Nothing was measured, so there is no lesson yet.";
            return lesson;
        }
        size_t small = cpu_sizes.front();
        if (std::find(cpu_sizes.begin(), cpu_sizes.end(), size_t(400)) != cpu_sizes.end()) small = 400;
        const size_t large = cpu_sizes.back();
        const VecAddResult* one = ok_at(V::CpuOneThread, small);
        const VecAddResult* all = ok_at(V::CpuAllCores, small);
        s << "No GPU measurements" << (why.empty() ? "" : " (" + why + ")") << ". ";
        if (all->time_ms > one->time_ms)
            s << "At " << elements_phrase(small) << " one core is " << format_ratio(all->time_ms / one->time_ms)
              << " faster than " << all_cores << " (" << format_time(one->time_ms) << " vs "
              << format_time(all->time_ms) << "): waking the threads costs more than the add";
        else s << "At " << elements_phrase(small) << " " << all_cores << " already beat one core";
        const VecAddCrossover c = cross(V::CpuAllCores, V::CpuOneThread);
        if (c.crossing == VecAddCrossing::At) s << "; they overtake it at " << about(c) << " elements";
        const VecAddResult* one_l = ok_at(V::CpuOneThread, large);
        const VecAddResult* all_l = ok_at(V::CpuAllCores, large);
        s << "; at " << elements_phrase(large) << " " << all_cores << " add at " << format_gbps(all_l->gb_per_second)
          << ", one core at " << format_gbps(one_l->gb_per_second) << ".";
        lesson.sentence = s.str();
        return lesson;
    }

    // 1. The small end: the launch costs more than the add.
    size_t small = gpu_sizes.front();
    if (std::find(gpu_sizes.begin(), gpu_sizes.end(), size_t(400)) != gpu_sizes.end()) small = 400;
    const VecAddResult* kernel_smallest = ok_at(V::GpuKernelOnly, gpu_sizes.front());
    lesson.launch_us = kernel_smallest->time_ms * 1e3;
    const VecAddResult* one = ok_at(V::CpuOneThread, small);
    const VecAddResult* kernel = ok_at(V::GpuKernelOnly, small);
    const std::string n_small = elements_phrase(small);
    if (one->time_ms < kernel->time_ms) {
        s << "At " << n_small << " one CPU core is " << format_ratio(kernel->time_ms / one->time_ms)
          << " faster than the GPU kernel (" << format_time(one->time_ms) << " vs " << format_time(kernel->time_ms)
          << "): a kernel launch costs ~" << format_time(kernel_smallest->time_ms);
        if (kernel_smallest->wall_ms > 1.5 * kernel_smallest->time_ms)
            s << " (~" << format_time(kernel_smallest->wall_ms) << " until the host has waited for it)";
        s << " whatever the size.";
    } else {
        s << "At " << n_small << " the GPU kernel already beats one CPU core (" << format_time(kernel->time_ms)
          << " vs " << format_time(one->time_ms) << ").";
    }

    // 2. The kernel alone, data already on the device.
    const size_t large = gpu_sizes.back();
    const std::string n_large = elements_phrase(large);
    const VecAddCrossover k1 = cross(V::GpuKernelOnly, V::CpuOneThread);
    const VecAddCrossover ka = cross(V::GpuKernelOnly, V::CpuAllCores);
    auto clause = [&](const VecAddCrossover& c, const std::string& whom) -> std::string {
        switch (c.crossing) {
        case VecAddCrossing::At: return "overtakes " + whom + " at " + about(c) + " elements";
        case VecAddCrossing::Always: return "beats " + whom + " at every size measured";
        case VecAddCrossing::Never: return "never beats " + whom + " up to " + n_large;
        case VecAddCrossing::NoData: break;
        }
        return "was not compared with " + whom;
    };
    s << " With the data already on the device the kernel ";
    if (k1.crossing == VecAddCrossing::At && ka.crossing == VecAddCrossing::At)
        s << "overtakes one core at " << about(k1) << " elements and " << all_cores << " at " << about(ka)
          << " elements";
    else s << clause(k1, "one core");
    const VecAddResult* kernel_l = ok_at(V::GpuKernelOnly, large);
    const VecAddResult* all_l = ok_at(V::CpuAllCores, large);
    if (ka.crossing != VecAddCrossing::NoData && all_l) {
        if (k1.crossing != VecAddCrossing::At || ka.crossing != VecAddCrossing::At)
            s << " and " << clause(ka, all_cores);
        const double ratio = all_l->time_ms / kernel_l->time_ms;
        s << "; at " << n_large << " it is "
          << (ratio >= 1 ? format_ratio(ratio) + " faster than" : format_ratio(1 / ratio) + " slower than")
          << " all cores (" << format_gbps(kernel_l->gb_per_second);
        if (kernel_l->limit_gb_per_second > 0)
            s << ", " << printf_text("%.0f", kernel_l->percent_of_limit) << "% of the memory's "
              << format_gbps(kernel_l->limit_gb_per_second);
        s << ", against " << format_gbps(all_l->gb_per_second) << ")";
    }
    s << ".";

    // 3. Counting the copies over the host link.
    struct Transfer {
        V variant;
        const char* name;
    };
    std::vector<std::string> wins, nevers;
    for (Transfer t : {Transfer{V::GpuPageable, "pageable copies"}, Transfer{V::GpuPinned, "pinned copies"},
                       Transfer{V::GpuStreams, "pinned copies on streams"}}) {
        const VecAddCrossover c1 = cross(t.variant, V::CpuOneThread);
        const VecAddCrossover ca = cross(t.variant, V::CpuAllCores);
        if (c1.crossing == VecAddCrossing::NoData) continue;
        if (ca.crossing == VecAddCrossing::At || ca.crossing == VecAddCrossing::Always)
            wins.push_back(std::string("with ") + t.name + " it overtakes " + all_cores + " at " + about(ca) +
                           " elements");
        else if (c1.crossing == VecAddCrossing::At || c1.crossing == VecAddCrossing::Always)
            nevers.push_back(std::string("with ") + t.name + " it overtakes one core at " + about(c1) +
                             " elements but never all cores");
        else nevers.push_back(std::string("with ") + t.name + " it never beats even one core");
    }
    if (!wins.empty() || !nevers.empty()) {
        s << " Counting the copies, ";
        std::vector<std::string> parts = wins;
        parts.insert(parts.end(), nevers.begin(), nevers.end());
        for (size_t i = 0; i < parts.size(); ++i) s << (i == 0 ? "" : "; ") << parts[i];
        const VecAddDevice& d = sweep.machine.device;
        if (d.link_h2d_gb_per_second > 0 && all_l)
            s << ": the host link carries " << format_gbps(d.link_h2d_gb_per_second)
              << (d.pcie.empty() ? "" : " (" + d.pcie + ")") << " while " << all_cores << " add at "
              << format_gbps(all_l->gb_per_second);
        s << ".";
    }
    lesson.sentence = s.str();
    return lesson;
}

// ---- CSV -------------------------------------------------------------------------------------

namespace {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char ch : text) {
        if (ch == '"') quoted += '"';
        quoted += ch == '\n' ? ' ' : ch;
    }
    return quoted + "\"";
}

}  // namespace

void write_vecadd_csv(std::ostream& out, const VecAddSweep& sweep) {
    out << "variant,elements,ok,time_ms,min_time_ms,wall_ms,repeats,calls_per_sample,bytes_moved,"
           "gb_per_second,limit_gb_per_second,limit_name,percent_of_limit,"
           "speedup_vs_one_thread,max_abs_error,error\n";
    char buf[512];
    for (const VecAddResult& r : sweep.results) {
        std::snprintf(buf, sizeof buf, "%s,%zu,%d,%.6g,%.6g,%.6g,%d,%d,%.6g,%.6g,%.6g,", vecadd_variant_name(r.variant),
                      r.elements, r.ok ? 1 : 0, r.time_ms, r.min_time_ms, r.wall_ms, r.repeats, r.calls_per_sample,
                      r.bytes_moved, r.gb_per_second, r.limit_gb_per_second);
        out << buf << csv_field(r.limit_name);
        std::snprintf(buf, sizeof buf, ",%.4g,%.4g,%.3g,", r.percent_of_limit, r.speedup_vs_one_thread,
                      r.max_abs_error);
        out << buf << csv_field(r.error) << "\n";
    }
}

std::string save_vecadd_csv(const std::string& path, const VecAddSweep& sweep) {
    // The shared atomic writer (compute/io/image_io.h): a temporary file beside the target, renamed
    // into place when complete, removed on failure or a signal; devices and FIFOs are refused.
    std::ostringstream text;
    write_vecadd_csv(text, sweep);
    const std::string data = text.str();
    try {
        AtomicFile file(path);
        file.write(data.data(), data.size());
        file.commit();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace ms
