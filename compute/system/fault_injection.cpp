// fault_injection.cpp: which faults MANDELSCOPE_INJECT_FAULTS asks for (fault_injection.h).
#include "compute/system/fault_injection.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ms {

const char* fault_name(Fault fault) {
    static const char* names[] = {"cuda_malloc", "kernel_launch", "map_resources", "png_write", "asset_open",
                                   "device_fail"};
    return fault < Fault::Count ? names[int(fault)] : "?";
}

#if MANDELSCOPE_FAULT_INJECTION
namespace {

std::array<bool, int(Fault::Count)> parse_faults() {
    std::array<bool, int(Fault::Count)> on{};
    const char* env = std::getenv("MANDELSCOPE_INJECT_FAULTS");
    if (!env) return on;
    const std::string text = env;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        const std::string name = text.substr(start, end - start);
        bool known = name.empty();
        for (int i = 0; i < int(Fault::Count); ++i)
            if (name == fault_name(Fault(i))) on[i] = known = true;
        if (!known)
            std::fprintf(stderr,
                         "mandelscope: MANDELSCOPE_INJECT_FAULTS: unknown fault '%s' ignored (known: "
                         "cuda_malloc, kernel_launch, map_resources, png_write, asset_open, device_fail)\n",
                         name.c_str());
        start = end + 1;
    }
    return on;
}

}  // namespace

bool fault_injected(Fault fault) {
    static const std::array<bool, int(Fault::Count)> on = parse_faults();
    return fault < Fault::Count && on[int(fault)];
}
#endif

}  // namespace ms
