// cpu_info.cpp: CPU model, cores, clock and SIMD set (cpu_info.h).
#include "compute/system/cpu_info.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <omp.h>
#include <time.h>

#include <hwy/targets.h>

namespace ms {

namespace {

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

double read_khz_as_mhz(const char* path) {
    std::ifstream in(path);
    double khz = 0.0;
    return in >> khz ? khz / 1000.0 : 0.0;
}

// Seconds of CPU time this thread has run: unlike wall time it stops while the thread waits for
// a core, so the clock measurement holds on a busy machine (on a shared VM wall time reads a
// clock that swings with the load; CPU time reads the same clock loaded or idle).
double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// A chain of dependent 64-bit integer multiplies: imul r64, r64 has a latency of exactly 3
// cycles on every x86-64 core of the last decade (Intel since Nehalem, AMD since Zen), so
// multiplies per second of CPU time x 3 is the clock. (A chain of "add $1" is not safe: Intel's
// Golden Cove and later fold immediate adds at rename and run several a cycle, so such a loop
// reads a clock above the real one.) x86 only (inline asm); elsewhere 0 (not measured).
double measure_clock_mhz() {
#if defined(__x86_64__)
    double best = 0.0;
    for (int trial = 0; trial < 3; ++trial) {
        constexpr long kLoops = 1'000'000;
        unsigned long x = 1, factor = 3;
        const double start = thread_cpu_seconds();
        for (long i = 0; i < kLoops; ++i)
            asm volatile(
                "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
                "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0"
                : "+r"(x)
                : "r"(factor));
        const double s = thread_cpu_seconds() - start;
        if (s > 0.0) best = std::max(best, 3.0 * 8.0 * kLoops / s / 1e6);
    }
    return best;
#else
    return 0.0;
#endif
}

// The best SIMD target this CPU supports among those Highway compiles in by default: the one the
// fast paths (compute/fractal/direct/direct_cpu.cpp, vecadd, cnn) dispatch to, since each of
// them compiles for the same default set. Lower target bits are better targets in Highway.
std::string best_simd_target() {
    const int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
    if (targets == 0) return "SCALAR";
    return hwy::TargetName(targets & -targets);
}

int simd_bits_of(const std::string& target) {
    if (target.rfind("AVX3", 0) == 0) return 512;
    if (target == "AVX2") return 256;
    if (target == "SSE4" || target == "SSSE3" || target == "EMU128" || target == "NEON") return 128;
    return 64;  // SCALAR
}

}  // namespace

CpuInfo query_cpu_info(bool measure_clock) {
    CpuInfo info;
    std::ifstream in("/proc/cpuinfo");
    std::set<std::pair<std::string, std::string>> physical_cores;  // (physical id, core id)
    std::string physical_id, line;
    double cpuinfo_mhz = 0.0;
    int processors = 0;
    while (std::getline(in, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
        if (key == "processor") ++processors;
        else if (key == "model name" && info.model.empty()) info.model = value;
        else if (key == "vendor_id" && info.vendor.empty()) info.vendor = value;
        else if (key == "cpu family" && info.family == 0) info.family = std::atoi(value.c_str());
        else if (key == "cpu MHz" && cpuinfo_mhz == 0.0) cpuinfo_mhz = std::atof(value.c_str());
        else if (key == "physical id") physical_id = value;
        else if (key == "core id") physical_cores.insert({physical_id, value});
    }
    if (info.model.empty()) info.model = "unknown CPU";
    info.threads = std::max(1, omp_get_max_threads());
    int logical = std::max({processors, int(std::thread::hardware_concurrency()), 1});
    info.cores = physical_cores.empty() ? logical : int(physical_cores.size());
    info.cores = std::min(info.cores, info.threads);  // the cores this process can keep busy

    info.nominal_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency");
    if (info.nominal_mhz == 0.0) info.nominal_mhz = cpuinfo_mhz;
    info.max_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    if (measure_clock) info.measured_mhz = measure_clock_mhz();

    info.simd_target = best_simd_target();
    info.simd_bits = simd_bits_of(info.simd_target);
    info.fp_pipes = info.vendor == "AuthenticAMD" && info.family >= 0x17 ? 4 : 2;
    // Zen 4 (family 19h) runs a 512-bit operation as two 256-bit halves on one pipe: half the
    // pipes' worth of 512-bit work per cycle. (Zen 5 server cores have full 512-bit pipes.)
    if (info.vendor == "AuthenticAMD" && info.family == 0x19 && info.simd_bits >= 512) info.fp_pipes = 2;
    return info;
}

double cpu_clock_hz(const CpuInfo& info, std::string* source) {
    auto pick = [&](double mhz, const char* what) {
        if (source) *source = what;
        return mhz * 1e6;
    };
    if (info.measured_mhz > 0.0) return pick(info.measured_mhz, "measured");
    if (info.max_mhz > 0.0) return pick(info.max_mhz, "sysfs maximum");
    if (info.nominal_mhz > 0.0) return pick(info.nominal_mhz, "nominal");
    return pick(0.0, "unknown");
}

}  // namespace ms
