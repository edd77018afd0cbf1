// cpu_info.h: what the CPU is (model, cores, threads, clock, the SIMD set the fast paths use):
// the facts that compute/perf/perf_model.h turns into the napkin bound on how many Mandelbrot
// iterations per second the CPU can issue, against which `mandelscope bench` reports its
// percentages.
//
//   FP pipes per core that can take these operations: AMD Zen (family 17h and later) has 4
//   (2 FMA/multiply + 2 add); Intel cores have 2 (ports 0 and 1, or 0 and 5 for AVX-512 on
//   server parts). We assume 2 for anything else. Zen 4 with 512-bit vectors counts 2: it
//   splits each 512-bit operation into two 256-bit halves.
//   Clock: the frequency measured by a chain of dependent multiplies (3 cycles each) when it runs,
//   because cloud VMs report their nominal clock while the cores boost well above it; else the
//   maximum from sysfs, else "cpu MHz" from /proc/cpuinfo.
#pragma once

#include <string>

namespace ms {

struct CpuInfo {
    std::string model;          // "model name" from /proc/cpuinfo
    std::string vendor;         // "GenuineIntel", "AuthenticAMD", ...
    int family = 0;             // "cpu family"
    int cores = 0;              // physical cores
    int threads = 0;            // logical CPUs this process may use
    double nominal_mhz = 0.0;   // base clock (sysfs base_frequency, else /proc/cpuinfo "cpu MHz")
    double max_mhz = 0.0;       // sysfs cpuinfo_max_freq; 0 when unknown (VMs)
    double measured_mhz = 0.0;  // dependent-multiply loop; 0 when not measured
    std::string simd_target;    // what the fast path dispatches to ("AVX3", "AVX2", ...)
    int simd_bits = 0;          // its vector width
    int fp_pipes = 0;           // FP pipes per core assumed by the bound (see above)
};

// Reads /proc/cpuinfo and sysfs; measure_clock runs a calibration loop (3 x 24 million cycles).
CpuInfo query_cpu_info(bool measure_clock = true);

// The clock the bound uses, in Hz, and where it came from ("measured", "sysfs max", ...).
double cpu_clock_hz(const CpuInfo& info, std::string* source = nullptr);

}  // namespace ms
