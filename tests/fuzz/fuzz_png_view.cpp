// fuzz_png_view.cpp: a PNG dropped on the window or given to --open: the tEXt chunk walk
// (read_png_text) and the view in it (read_png_view). Errors are std::runtime_error sentences.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "compute/fractal/view/view_record.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = ms_fuzz::input_file(data, size);
    try {
        ms::read_png_view(path);
    } catch (const std::runtime_error&) {
    }
    return 0;
}
