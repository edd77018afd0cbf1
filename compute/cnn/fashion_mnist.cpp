// fashion_mnist.cpp: the IDX reader behind fashion_mnist.h (zlib's gzopen/gzread, which read
// gzipped and plain files alike), with every length checked before it is trusted.
#include "compute/cnn/fashion_mnist.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace ms {

const char* const kFashionMnistClassNames[kFashionMnistClasses] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot",
};

namespace {

constexpr uint32_t kIdxMagicU8Rank1 = 0x00000801;
constexpr uint32_t kIdxMagicU8Rank3 = 0x00000803;
// Far above the 60,000 of the training split; guards the allocation against a corrupt count.
constexpr uint32_t kIdxMaxCount = 1u << 20;

struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw std::runtime_error(path.string() + ": " + what);
}

GzFile open_idx(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        fail(path, std::string("file not found; install the Debian package ") +
                       kFashionMnistPackage + " (apt-get install " + kFashionMnistPackage +
                       ") or give the folder that holds the Fashion-MNIST .gz files");
    GzFile f(gzopen(path.c_str(), "rb"));
    if (!f) fail(path, "cannot open the file");
    return f;
}

// Reads exactly `bytes`; a short read is a truncated file, a zlib error a corrupt one.
void read_exact(gzFile f, const std::filesystem::path& path, void* out, size_t bytes,
                const char* what) {
    auto* dst = static_cast<unsigned char*>(out);
    size_t done = 0;
    while (done < bytes) {
        unsigned chunk = unsigned(std::min<size_t>(bytes - done, 1u << 30));
        int got = gzread(f, dst + done, chunk);
        if (got < 0) {
            int errnum = 0;
            const char* msg = gzerror(f, &errnum);
            fail(path, std::string("corrupt gzip data while reading the ") + what + " (" +
                           (msg ? msg : "zlib error") + ")");
        }
        if (got == 0) {
            // gzread reports a stream cut short inside the deflate data only through gzerror.
            int errnum = 0;
            const char* msg = gzerror(f, &errnum);
            std::string detail = errnum != Z_OK && msg && *msg ? std::string(" (") + msg + ")" : "";
            fail(path, "truncated: expected " + std::to_string(bytes) + " bytes of " + what +
                           ", got " + std::to_string(done) + detail);
        }
        done += size_t(got);
    }
}

uint32_t read_u32_be(gzFile f, const std::filesystem::path& path, const char* what) {
    unsigned char b[4];
    read_exact(f, path, b, 4, what);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
}

void expect_end(gzFile f, const std::filesystem::path& path) {
    unsigned char extra;
    int got = gzread(f, &extra, 1);
    if (got > 0) fail(path, "unexpected data after the last item (wrong count in the header?)");
    if (got < 0) fail(path, "corrupt gzip data at the end of the file");
    // The gzip trailer (CRC and length) is checked when the stream ends: a mismatch shows here.
    int errnum = 0;
    const char* msg = gzerror(f, &errnum);
    if (errnum != Z_OK && errnum != Z_BUF_ERROR)
        fail(path, std::string("corrupt gzip data (") + (msg ? msg : "zlib error") + ")");
    if (errnum == Z_BUF_ERROR) fail(path, "truncated gzip stream (the file was cut short)");
}

}  // namespace

std::vector<uint8_t> read_idx_images(const std::filesystem::path& path, int* count) {
    GzFile f = open_idx(path);
    uint32_t magic = read_u32_be(f.get(), path, "header");
    if (magic != kIdxMagicU8Rank3) {
        char buf[96];
        std::snprintf(buf, sizeof buf,
                      "not an IDX image file (magic 0x%08X, expected 0x%08X for u8 images)",
                      magic, kIdxMagicU8Rank3);
        fail(path, buf);
    }
    uint32_t n = read_u32_be(f.get(), path, "header");
    uint32_t rows = read_u32_be(f.get(), path, "header");
    uint32_t cols = read_u32_be(f.get(), path, "header");
    if (rows != kFashionMnistSide || cols != kFashionMnistSide)
        fail(path, "images are " + std::to_string(rows) + "x" + std::to_string(cols) +
                       ", expected 28x28");
    if (n == 0 || n > kIdxMaxCount)
        fail(path, "implausible image count " + std::to_string(n) + " in the header");
    std::vector<uint8_t> pixels(size_t(n) * kFashionMnistPixels);
    read_exact(f.get(), path, pixels.data(), pixels.size(), "pixels");
    expect_end(f.get(), path);
    *count = int(n);
    return pixels;
}

std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, int* count) {
    GzFile f = open_idx(path);
    uint32_t magic = read_u32_be(f.get(), path, "header");
    if (magic != kIdxMagicU8Rank1) {
        char buf[96];
        std::snprintf(buf, sizeof buf,
                      "not an IDX label file (magic 0x%08X, expected 0x%08X for u8 labels)",
                      magic, kIdxMagicU8Rank1);
        fail(path, buf);
    }
    uint32_t n = read_u32_be(f.get(), path, "header");
    if (n == 0 || n > kIdxMaxCount)
        fail(path, "implausible label count " + std::to_string(n) + " in the header");
    std::vector<uint8_t> labels(n);
    read_exact(f.get(), path, labels.data(), labels.size(), "labels");
    expect_end(f.get(), path);
    for (uint32_t i = 0; i < n; ++i)
        if (labels[i] >= kFashionMnistClasses)
            fail(path, "label " + std::to_string(labels[i]) + " of item " + std::to_string(i) +
                           " is out of range (0..9)");
    *count = int(n);
    return labels;
}

std::filesystem::path fashion_mnist_images_path(const std::filesystem::path& dir,
                                                FashionMnistSplit split) {
    return dir / (split == FashionMnistSplit::Train ? "train-images-idx3-ubyte.gz"
                                                    : "t10k-images-idx3-ubyte.gz");
}

std::filesystem::path fashion_mnist_labels_path(const std::filesystem::path& dir,
                                                FashionMnistSplit split) {
    return dir / (split == FashionMnistSplit::Train ? "train-labels-idx1-ubyte.gz"
                                                    : "t10k-labels-idx1-ubyte.gz");
}

FashionMnist load_fashion_mnist(const std::filesystem::path& dir_in, FashionMnistSplit split,
                                int limit) {
    std::filesystem::path dir = dir_in.empty() ? kFashionMnistDefaultDir : dir_in;
    FashionMnist data;
    int image_count = 0, label_count = 0;
    data.images = read_idx_images(fashion_mnist_images_path(dir, split), &image_count);
    data.labels = read_idx_labels(fashion_mnist_labels_path(dir, split), &label_count);
    if (image_count != label_count)
        throw std::runtime_error(dir.string() + ": " + std::to_string(image_count) +
                                 " images but " + std::to_string(label_count) + " labels");
    data.count = image_count;
    if (limit > 0 && limit < data.count) {
        data.count = limit;
        data.images.resize(size_t(limit) * kFashionMnistPixels);
        data.labels.resize(size_t(limit));
    }
    return data;
}

}  // namespace ms
