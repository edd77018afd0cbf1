// image_io.h: images in and out of Mandelscope, never leaving a partial file behind.
//
//   PNG out   write_png(): the whole image through stb_image_write (zlib as its compressor);
//             PngStreamWriter: band by band, for images too large to hold (bounded memory).
//             Both insert a tEXt chunk right after IHDR carrying Mandelscope's metadata (key
//             kMetadataKey). What the text says is not io's business: the view's text form and
//             read_png_view() live with the view (compute/fractal/view_record.h).
//   PNG in    read_png() (pixels, via stb_image), read_png_text() (a tEXt chunk's text).
//   NumPy     .npy v1.0, '<f4', shape (height, width), C order, rows top to bottom:
//             write_npy_f32() whole, NpyStreamWriter band by band, read_npy_f32().
//
// Every writer writes to a temporary file beside the target and renames it into place only
// once everything is written (AtomicFile): a failure never leaves a partial file and never
// clobbers an existing one. Errors are std::runtime_error with one sentence naming the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ms {

// The PNG tEXt keyword under which Mandelscope writes its metadata (the view, as JSON).
inline constexpr const char* kMetadataKey = "mandelscope-view";

// A file written under a temporary name in the target's directory and renamed over the target
// by commit(). Opening creates the temporary file, which proves the directory writable before
// any work is done; destroying an uncommitted AtomicFile removes it.
class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path target);  // throws with a sentence
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    void write(const void* data, size_t bytes);  // throws on a short write (disk full, ...)
    void commit();                               // flush, close, rename into place
    const std::filesystem::path& target() const { return target_; }

private:
    std::filesystem::path target_;
    std::filesystem::path temp_;
    std::FILE* file_ = nullptr;
};

// Checks that `path` can be written (its directory exists and is writable, and it is not a
// directory) without creating anything. Returns an empty string, or one sentence saying why not.
std::string check_writable(const std::filesystem::path& path);

// Whole image, RGBA8, rows top to bottom. metadata may be empty (no tEXt chunk).
void write_png(const std::filesystem::path& path, const uint8_t* rgba, int width, int height,
               const std::string& metadata);

// Band-by-band PNG: rows are filtered (Paeth) and deflated as they come; memory stays at a row
// or two whatever the image size.
class PngStreamWriter {
public:
    PngStreamWriter(const std::filesystem::path& path, int width, int height, const std::string& metadata);
    ~PngStreamWriter();
    PngStreamWriter(const PngStreamWriter&) = delete;
    PngStreamWriter& operator=(const PngStreamWriter&) = delete;
    void write_rows(const uint8_t* rgba, int rows);  // rows * width * 4 bytes
    void finish();                                   // all rows written: end the file, rename it

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct PngImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4
};
PngImage read_png(const std::filesystem::path& path);
// The raw text of a tEXt chunk, or false when the file has none with that keyword.
bool read_png_text(const std::filesystem::path& path, const std::string& keyword, std::string* text);

// NumPy .npy, float32, shape (height, width).
void write_npy_f32(const std::filesystem::path& path, const float* values, int64_t height, int64_t width);

class NpyStreamWriter {
public:
    NpyStreamWriter(const std::filesystem::path& path, int64_t height, int64_t width);
    void write_rows(const float* values, int64_t rows);  // rows * width floats
    void finish();

private:
    AtomicFile file_;
    int64_t width_ = 0;
    int64_t rows_left_ = 0;
};

struct NpyArray {
    int64_t height = 0;
    int64_t width = 0;
    std::vector<float> values;
};
NpyArray read_npy_f32(const std::filesystem::path& path);

}  // namespace ms
