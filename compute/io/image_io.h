// image_io.h: images in and out of Mandelscope, never leaving a partial file behind.
//
//   PNG out   write_png(): the whole image; PngStreamWriter: band by band, for images too
//             large to hold (bounded memory). Both filter and deflate on every core
//             (compute/io/png_encode.h), write RGB (the frames are opaque), and insert a tEXt
//             chunk right after IHDR carrying Mandelscope's metadata (key kMetadataKey). What
//             the text says is not io's business: the view's text form and read_png_view() live
//             with the view (compute/fractal/view/view_record.h).
//   PNG in    read_png() (pixels, via stb_image), read_png_text() (a tEXt chunk's text).
//   NumPy     .npy v1.0, '<f4', shape (height, width), C order, rows top to bottom:
//             write_npy_f32() whole, NpyStreamWriter band by band, read_npy_f32().
//
// Every writer writes to a temporary file beside the target and renames it into place only
// once everything is written (AtomicFile): a failure never leaves a partial file and never
// clobbers an existing one. A symbolic link at the output path is followed, and its target is
// replaced; a device, FIFO, socket or directory there is refused (check_writable). SIGINT and
// SIGTERM remove the temporary files in progress before the process exits with 130 or 143
// (install_output_cleanup_on_signals). Errors are std::runtime_error with one sentence naming
// the file. Readers bound every length they read by the file's size before allocating.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ms {

struct PngDeflatedRows;  // compute/io/png_encode.h

// The PNG tEXt keyword under which Mandelscope writes its metadata (the view, as JSON).
inline constexpr const char* kMetadataKey = "mandelscope-view";

// A file written under a temporary name in the target's directory and renamed over the target
// by commit(). The target is the file that `target` names after following symbolic links, so a
// link stays a link. Opening creates the temporary file, which proves the directory writable
// before any work is done; destroying an uncommitted AtomicFile removes it, and so does SIGINT
// or SIGTERM once install_output_cleanup_on_signals() has run.
class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path target);  // throws with a sentence
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    void write(const void* data, size_t bytes);  // throws on a short write (disk full, ...)
    // Hands what was written so far to the kernel and starts its writeback to the disk without
    // waiting for it (Linux's sync_file_range), so that commit's fsync has less left to do.
    void start_writeback();
    void commit();  // flush, close, rename into place
    uint64_t bytes_written() const { return bytes_written_; }
    const std::filesystem::path& target() const { return target_; }
    // The temporary file, for a writer that opens it by name itself (libavformat's MP4 muxer
    // seeks back to finish its boxes); commit() still syncs and renames it.
    const std::filesystem::path& temp_path() const { return temp_; }

private:
    std::filesystem::path target_;    // as given, for messages
    std::filesystem::path resolved_;  // after following symbolic links: what commit() replaces
    std::filesystem::path temp_;
    std::FILE* file_ = nullptr;
    int signal_slot_ = -1;
    uint64_t bytes_written_ = 0;
};

// Checks, before any work, that `path` can be written: following symbolic links, what is there
// is nothing or a writable regular file (not a directory, device, FIFO or socket), and a file
// can be created in its directory (tried with a probe file that is removed at once). With an
// `extension` (".png"), the name must end in it, in any case. Returns an empty string, or one
// sentence saying why not.
std::string check_writable(const std::filesystem::path& path, const std::string& extension = "");

// The file a path names once its chain of symbolic links is followed (it need not exist).
// Throws std::runtime_error with a sentence on a loop of links.
std::filesystem::path resolve_output_path(const std::filesystem::path& path);

// SIGINT and SIGTERM handlers that remove the temporary files of every AtomicFile in progress,
// say so on stderr and exit with 128 + the signal (130, 143). Call once from main(). A signal
// that was ignored at start (nohup, a background job of a script) is left ignored.
void install_output_cleanup_on_signals();

// Where a PNG's writing went, for `render`'s report and the benchmark's figures.
struct PngWriteTimings {
    double encode_ms = 0;           // filtering and deflating, on every core (the calling thread's wall time)
    double write_ms = 0;            // the writer thread's time in write(): overlapped with encoding
    double wait_ms = 0;             // the encoder waiting for the writer: above 0, the disk was the slower stage
    double fsync_ms = 0;            // the final flush, fsync and rename (commit)
    uint64_t raw_bytes = 0;         // RGB bytes encoded
    uint64_t compressed_bytes = 0;  // the zlib stream's bytes
    uint64_t file_bytes = 0;        // the whole file
    bool gpu_encoded = false;       // some rows were deflated on the GPU (png_encode_cuda.h), not here
};

// Whole image, RGBA8, rows top to bottom. metadata may be empty (no tEXt chunk).
PngWriteTimings write_png(const std::filesystem::path& path, const uint8_t* rgba, int width, int height,
                          const std::string& metadata);

// Band-by-band PNG: rows are gathered into batches of a few MiB, each filtered and deflated on
// every core (compute/io/png_encode.h) and written as IDAT chunks by a writer thread while the
// next batch is encoded; memory stays at two batches whatever the image size. The path must end
// in .png.
class PngStreamWriter {
public:
    PngStreamWriter(const std::filesystem::path& path, int width, int height, const std::string& metadata);
    ~PngStreamWriter();
    PngStreamWriter(const PngStreamWriter&) = delete;
    PngStreamWriter& operator=(const PngStreamWriter&) = delete;
    void write_rows(const uint8_t* rgba, int rows);  // rows * width * 4 bytes
    // Rows deflated elsewhere (the GPU encoder, png_encode_cuda.h), written as the next rows;
    // `encode_ms` is the time they took there, added to the timings'. No rows may be waiting
    // from write_rows (call it with whole batches, or only this).
    void write_deflated_rows(const PngDeflatedRows& rows, double encode_ms);
    // write_rows calls of part_rows() rows each, from the top, and then one call of all the rest
    // write the same bytes as one call of every row (each call of that size is one encoder part):
    // a caller whose rows come in pieces streams them that way and gets write_png's file.
    int part_rows() const;
    void finish();                           // all rows written: end the file, rename it
    const PngWriteTimings& timings() const;  // complete after finish()

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// What the disk alone does: writes `bytes` bytes (not all zero) to a temporary file in `dir` in
// 1 MiB write()s, fsyncs and removes it, as `dd bs=1M conv=fsync` would; returns the
// milliseconds from the first write to the end of the fsync. Throws with a sentence on failure.
double time_plain_disk_write_ms(const std::filesystem::path& dir, uint64_t bytes);

struct PngImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4
};
// Caps on what the readers accept (the file's size bounds everything else).
inline constexpr int64_t kMaxPngTextBytes = int64_t(1) << 20;  // a tEXt chunk we read whole
inline constexpr int64_t kMaxNpyValues = int64_t(1) << 32;     // 16 GiB of float32
PngImage read_png(const std::filesystem::path& path);
// The raw text of a tEXt chunk, or false when the file has none with that keyword. A chunk
// longer than the rest of the file is an error; tEXt chunks over kMaxPngTextBytes are skipped
// unread.
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
