// fashion_mnist.h: reads the Fashion-MNIST data set from its gzipped IDX files (as Debian's
// package dataset-fashion-mnist installs them under /usr/share/datasets/fashion-mnist).
//
// IDX format (big-endian): u32 magic (0x00000803 for u8 images of rank 3, 0x00000801 for u8
// labels of rank 1), then one u32 per dimension, then the bytes. Every check fails with a
// std::runtime_error whose message is one sentence naming the file: missing file (and the
// package to install), bad magic, wrong dimensions, truncated or trailing data, corrupt gzip
// stream, label out of range, images and labels of different counts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ms {

inline constexpr int kFashionMnistSide = 28;
inline constexpr int kFashionMnistPixels = kFashionMnistSide * kFashionMnistSide;  // 784
inline constexpr int kFashionMnistClasses = 10;
inline constexpr const char* kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";
inline constexpr const char* kFashionMnistPackage = "dataset-fashion-mnist";

// Class names in label order (0 = T-shirt/top ... 9 = Ankle boot).
extern const char* const kFashionMnistClassNames[kFashionMnistClasses];

enum class FashionMnistSplit { Train, Test };  // 60,000 and 10,000 images

// One split in memory: images row-major, one byte per pixel (0 = background, 255 = ink).
struct FashionMnist {
    int count = 0;
    std::vector<uint8_t> images;  // count * kFashionMnistPixels
    std::vector<uint8_t> labels;  // count, each < kFashionMnistClasses
    const uint8_t* image(int i) const { return images.data() + size_t(i) * kFashionMnistPixels; }
};

// Reads an IDX file of u8 images (rank 3, 28x28) or u8 labels (rank 1). Gzipped or plain
// (zlib's inflate checks the gzip trailer). Throws std::runtime_error with a sentence on any
// problem, including a count the file cannot hold, before allocating for it.
std::vector<uint8_t> read_idx_images(const std::filesystem::path& path, int* count);
std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, int* count);

// The file names of a split inside `dir` (train-images-idx3-ubyte.gz, ...).
std::filesystem::path fashion_mnist_images_path(const std::filesystem::path& dir, FashionMnistSplit split);
std::filesystem::path fashion_mnist_labels_path(const std::filesystem::path& dir, FashionMnistSplit split);

// Loads one split from `dir` (kFashionMnistDefaultDir when empty). `limit` > 0 keeps only the
// first `limit` images. A missing file gives a message naming kFashionMnistPackage.
FashionMnist load_fashion_mnist(const std::filesystem::path& dir, FashionMnistSplit split, int limit = 0);

}  // namespace ms
