// fashion_mnist.cpp: the IDX reader behind fashion_mnist.h (gzipped through zlib's inflate, or
// plain), with every length checked against the file before it is trusted.
#include "compute/cnn/fashion_mnist.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace ms {

const char* const kFashionMnistClassNames[kFashionMnistClasses] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
};

namespace {

constexpr uint32_t kIdxMagicU8Rank1 = 0x00000801;
constexpr uint32_t kIdxMagicU8Rank3 = 0x00000803;
// Far above the 60,000 of the training split; guards the allocation against a corrupt count.
constexpr uint32_t kIdxMaxCount = 1u << 20;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw std::runtime_error(path.string() + ": " + what);
}

// An IDX file, gzipped or plain, read with zlib's inflate directly (not gzread): gzread returns
// end-of-file without an error when the input runs out inside the gzip trailer, so a file with
// its last bytes cut would pass. Here the stream must reach its end, where zlib checks the
// trailer's CRC-32 and length.
class IdxReader {
public:
    explicit IdxReader(const std::filesystem::path& path) : path_(path) {
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (!std::filesystem::exists(status))
            fail(path, std::string("file not found; install the Debian package ") + kFashionMnistPackage +
                           " (apt-get install " + kFashionMnistPackage +
                           ") or give the folder that holds the Fashion-MNIST .gz files");
        if (!std::filesystem::is_regular_file(status)) fail(path, "not a regular file");
        const uint64_t file_bytes = std::filesystem::file_size(path, ec);
        // The largest IDX file we accept holds kIdxMaxCount images; its gzip is smaller.
        if (ec || file_bytes > 16 + uint64_t(kIdxMaxCount) * kFashionMnistPixels)
            fail(path, "too large to be a Fashion-MNIST file (" + std::to_string(file_bytes) + " bytes)");
        file_.reset(std::fopen(path.c_str(), "rb"));
        if (!file_) fail(path, "cannot open the file");
        unsigned char magic[2] = {0, 0};
        gzipped_ = std::fread(magic, 1, 2, file_.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        std::rewind(file_.get());
        // Deflate expands at most 1032:1; a plain file holds what it holds.
        max_bytes_ = gzipped_ ? file_bytes * 1032 : file_bytes;
        if (gzipped_) {
            compressed_.resize(size_t(file_bytes));
            if (std::fread(compressed_.data(), 1, compressed_.size(), file_.get()) != compressed_.size())
                fail(path, "cannot read the file");
            file_.reset();
            if (inflateInit2(&zs_, 15 + 16) != Z_OK) fail(path, "zlib could not start decompressing");
            zs_open_ = true;
            zs_.next_in = compressed_.data();
            zs_.avail_in = uInt(compressed_.size());
        }
    }
    ~IdxReader() {
        if (zs_open_) inflateEnd(&zs_);
    }
    IdxReader(const IdxReader&) = delete;
    IdxReader& operator=(const IdxReader&) = delete;

    uint64_t max_bytes() const { return max_bytes_; }

    // Reads exactly `bytes`; a short read is a truncated file, a zlib error a corrupt one.
    void read_exact(void* out, size_t bytes, const char* what) {
        auto* dst = static_cast<unsigned char*>(out);
        size_t done = 0;
        if (!gzipped_) {
            done = std::fread(dst, 1, bytes, file_.get());
        } else {
            while (done < bytes && !ended_) {
                zs_.next_out = dst + done;
                zs_.avail_out = uInt(std::min<size_t>(bytes - done, 1u << 30));
                const uInt asked = zs_.avail_out;
                const int status = inflate(&zs_, Z_NO_FLUSH);
                done += asked - zs_.avail_out;
                if (status == Z_STREAM_END) ended_ = true;
                else if (status == Z_DATA_ERROR || status == Z_NEED_DICT || status == Z_MEM_ERROR ||
                         status == Z_STREAM_ERROR)
                    fail(path_, std::string("corrupt gzip data while reading the ") + what + " (" +
                                    (zs_.msg ? zs_.msg : "zlib error") + ")");
                else if (status == Z_BUF_ERROR && zs_.avail_in == 0) break;  // the file ends mid-stream
            }
        }
        if (done < bytes)
            fail(path_, "truncated: expected " + std::to_string(bytes) + " bytes of " + what + ", got " +
                            std::to_string(done));
    }

    uint32_t read_u32_be(const char* what) {
        unsigned char b[4];
        read_exact(b, 4, what);
        return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
    }

    // After the last item: no more data, and (gzip) the stream's end with a good trailer.
    void expect_end() {
        unsigned char extra;
        if (!gzipped_) {
            if (std::fread(&extra, 1, 1, file_.get()) == 1)
                fail(path_, "unexpected data after the last item (wrong count in the header?)");
            return;
        }
        while (!ended_) {
            zs_.next_out = &extra;
            zs_.avail_out = 1;
            const int status = inflate(&zs_, Z_NO_FLUSH);
            if (zs_.avail_out == 0) fail(path_, "unexpected data after the last item (wrong count in the header?)");
            if (status == Z_STREAM_END) ended_ = true;
            else if (status == Z_BUF_ERROR || (status == Z_OK && zs_.avail_in == 0))
                fail(path_, "truncated gzip stream (the file was cut short)");
            else if (status != Z_OK)
                fail(path_, std::string("corrupt gzip data (") + (zs_.msg ? zs_.msg : "zlib error") + ")");
        }
    }

private:
    struct FileCloser {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::filesystem::path path_;
    std::unique_ptr<std::FILE, FileCloser> file_;
    bool gzipped_ = false;
    std::vector<unsigned char> compressed_;
    z_stream zs_{};
    bool zs_open_ = false;
    bool ended_ = false;
    uint64_t max_bytes_ = 0;
};

// A count from the header, checked against the cap and against what the file can hold before
// anything is allocated for it.
void check_count(const std::filesystem::path& path, uint32_t n, uint64_t item_bytes, uint64_t header_bytes,
                 uint64_t max_bytes, const char* items) {
    if (n == 0 || n > kIdxMaxCount)
        fail(path, std::string("implausible ") + items + " count " + std::to_string(n) + " in the header");
    if (header_bytes + n * item_bytes > max_bytes)
        fail(path, "the header declares " + std::to_string(n) + " " + items +
                       "s, more than the file can hold "
                       "(it is truncated or corrupt)");
}

}  // namespace

std::vector<uint8_t> read_idx_images(const std::filesystem::path& path, int* count) {
    IdxReader f(path);
    uint32_t magic = f.read_u32_be("header");
    if (magic != kIdxMagicU8Rank3) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "not an IDX image file (magic 0x%08X, expected 0x%08X for u8 images)", magic,
                      kIdxMagicU8Rank3);
        fail(path, buf);
    }
    uint32_t n = f.read_u32_be("header");
    uint32_t rows = f.read_u32_be("header");
    uint32_t cols = f.read_u32_be("header");
    if (rows != kFashionMnistSide || cols != kFashionMnistSide)
        fail(path, "images are " + std::to_string(rows) + "x" + std::to_string(cols) + ", expected 28x28");
    check_count(path, n, kFashionMnistPixels, 16, f.max_bytes(), "image");
    std::vector<uint8_t> pixels(size_t(n) * kFashionMnistPixels);
    f.read_exact(pixels.data(), pixels.size(), "pixels");
    f.expect_end();
    *count = int(n);
    return pixels;
}

std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, int* count) {
    IdxReader f(path);
    uint32_t magic = f.read_u32_be("header");
    if (magic != kIdxMagicU8Rank1) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "not an IDX label file (magic 0x%08X, expected 0x%08X for u8 labels)", magic,
                      kIdxMagicU8Rank1);
        fail(path, buf);
    }
    uint32_t n = f.read_u32_be("header");
    check_count(path, n, 1, 8, f.max_bytes(), "label");
    std::vector<uint8_t> labels(n);
    f.read_exact(labels.data(), labels.size(), "labels");
    f.expect_end();
    for (uint32_t i = 0; i < n; ++i)
        if (labels[i] >= kFashionMnistClasses)
            fail(path,
                 "label " + std::to_string(labels[i]) + " of item " + std::to_string(i) + " is out of range (0..9)");
    *count = int(n);
    return labels;
}

std::filesystem::path fashion_mnist_images_path(const std::filesystem::path& dir, FashionMnistSplit split) {
    return dir / (split == FashionMnistSplit::Train ? "train-images-idx3-ubyte.gz" : "t10k-images-idx3-ubyte.gz");
}

std::filesystem::path fashion_mnist_labels_path(const std::filesystem::path& dir, FashionMnistSplit split) {
    return dir / (split == FashionMnistSplit::Train ? "train-labels-idx1-ubyte.gz" : "t10k-labels-idx1-ubyte.gz");
}

FashionMnist load_fashion_mnist(const std::filesystem::path& dir_in, FashionMnistSplit split, int limit) {
    std::filesystem::path dir = dir_in.empty() ? kFashionMnistDefaultDir : dir_in;
    FashionMnist data;
    int image_count = 0, label_count = 0;
    data.images = read_idx_images(fashion_mnist_images_path(dir, split), &image_count);
    data.labels = read_idx_labels(fashion_mnist_labels_path(dir, split), &label_count);
    if (image_count != label_count)
        throw std::runtime_error(dir.string() + ": " + std::to_string(image_count) + " images but " +
                                 std::to_string(label_count) + " labels");
    data.count = image_count;
    if (limit > 0 && limit < data.count) {
        data.count = limit;
        data.images.resize(size_t(limit) * kFashionMnistPixels);
        data.labels.resize(size_t(limit));
    }
    return data;
}

}  // namespace ms
