// fuzz_idx.cpp: Fashion-MNIST's IDX files, gzipped or plain (read_idx_images and
// read_idx_labels). The first input byte picks the reader; the rest is the file. What is
// accepted has the size it declares; anything else is a std::runtime_error sentence.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "compute/cnn/fashion_mnist.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const bool labels = data[0] & 1;
    const std::string path = ms_fuzz::input_file(data + 1, size - 1);
    try {
        int count = -1;
        const std::vector<uint8_t> values = labels ? ms::read_idx_labels(path, &count)
                                                   : ms::read_idx_images(path, &count);
        const size_t per_item = labels ? 1 : size_t(ms::kFashionMnistPixels);
        if (count < 0 || values.size() != size_t(count) * per_item) std::abort();
    } catch (const std::runtime_error&) {
    }
    return 0;
}
