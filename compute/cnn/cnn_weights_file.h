// cnn_weights_file.h: the CNN weights file (.msw, "Mandelscope weights"), written by
// `mandelscope cnn train` and read by everything that runs the model.
//
// Format, version 1. All integers are unsigned 32-bit little-endian, floats IEEE-754 binary32
// little-endian, whatever the machine:
//
//   offset  size       field
//   0       8          magic "MSCNNWT\0"
//   8       4          format version (1)
//   12      4          tensor count T (8)
//   16      4          provenance length P in bytes
//   20      P          provenance: UTF-8 text, not NUL-terminated (how the file was made:
//                      command, seed, epochs, test accuracy); informative only
//   20+P    T x 36     tensor table, per tensor: name (16 bytes, NUL-padded),
//                      rank (u32), dims[4] (u32, unused trailing dims = 1)
//   ...     4 x N      parameters, tensors in table order, each row-major (N = sum of counts)
//   end-4   4          CRC-32 (zlib's crc32) of every byte before it
//
// The reader checks the magic, the version, that the table matches kCnnTensors exactly (names,
// ranks, shapes), the exact file length, the checksum and that every value is finite; each
// failure is a std::runtime_error with one sentence naming the file.
#pragma once

#include <filesystem>
#include <string>

#include "compute/cnn/cnn_model.h"

namespace ms {

inline constexpr char kCnnWeightsMagic[8] = {'M', 'S', 'C', 'N', 'N', 'W', 'T', '\0'};
inline constexpr uint32_t kCnnWeightsVersion = 1;

// Writes atomically through compute/io/image_io.h's AtomicFile (a temporary file renamed into
// place; removed on failure or a signal; devices refused). Throws with a sentence on I/O errors.
void cnn_save_weights(const std::filesystem::path& path, const CnnWeights& weights, const std::string& provenance);

// Reads and checks a weights file; `provenance` (optional) receives the provenance text.
CnnWeights cnn_load_weights(const std::filesystem::path& path, std::string* provenance = nullptr);

// Serialisation to and from memory (the file functions use these; tests corrupt the bytes).
std::string cnn_weights_to_bytes(const CnnWeights& weights, const std::string& provenance);
CnnWeights cnn_weights_from_bytes(const std::string& bytes, const std::string& source_name,
                                  std::string* provenance = nullptr);

// The committed weights: assets/cnn/fashion_mnist.msw beside the executable, else in the source
// tree (see compute/io/assets.h). Throws if no assets folder can be found.
std::filesystem::path cnn_default_weights_path();

}  // namespace ms
