// fuzz_weights.cpp: the CNN's .msw weights format (cnn_weights_from_bytes, what
// `cnn eval --weights` and the window's CNN panel read). Errors are std::runtime_error sentences.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "compute/cnn/cnn_weights_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        std::string provenance;
        ms::cnn_weights_from_bytes(bytes, "fuzz.msw", &provenance);
    } catch (const std::runtime_error&) {
    }
    return 0;
}
