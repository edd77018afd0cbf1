// fuzz_view_json.cpp: the view JSON of a PNG's tEXt chunk (view_from_json), the JSON that
// Mandelscope reads from outside. Anything it accepts must be a valid view that writes and reads
// back to the same record; anything else must be a std::runtime_error (a sentence), never
// another exception, a crash or undefined behaviour (UBSan aborts on it in this build).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "compute/fractal/view/view_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    ms::ViewRecord record;
    try {
        record = ms::view_from_json(text);
    } catch (const std::runtime_error&) {
        return 0;
    }
    if (!ms::validate_view(record.view).empty()) std::abort();
    const ms::ViewRecord again = ms::view_from_json(ms::view_to_json(record));
    if (again.view.center_re != record.view.center_re || again.view.center_im != record.view.center_im ||
        again.view.zoom != record.view.zoom || again.view.max_iterations != record.view.max_iterations ||
        again.view.palette != record.view.palette || again.supersample != record.supersample ||
        !(again.view.colouring == record.view.colouring))
        std::abort();
    return 0;
}
