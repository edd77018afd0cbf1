// fuzz_kfr.cpp: Kalles Fraktaler location files (.kfr) and the deep zoom's text forms
// (compute/fractal/view/kfr.h, deep_location.h). A location parse_kfr accepts is valid and
// survives format_kfr -> parse_kfr unchanged; a zoom parse_deep_zoom accepts survives
// format_deep_zoom -> parse_deep_zoom. Everything else is a sentence, never an exception, a crash
// or UB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/deep_location.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    ms::DeepZoom zoom;
    if (ms::parse_deep_zoom(text, &zoom).empty()) {
        ms::DeepZoom again;
        if (!ms::parse_deep_zoom(ms::format_deep_zoom(zoom), &again).empty() || !(again == zoom)) std::abort();
    }
    ms::DeepLocation location;
    if (!ms::parse_kfr(text, &location).empty()) return 0;
    if (!ms::validate_deep_location(location).empty()) std::abort();
    ms::DeepLocation again;
    if (!ms::parse_kfr(ms::format_kfr(location), &again).empty()) std::abort();
    if (again.center_re != location.center_re || again.center_im != location.center_im ||
        !(again.zoom == location.zoom) || again.max_iterations != location.max_iterations)
        std::abort();
    return 0;
}
