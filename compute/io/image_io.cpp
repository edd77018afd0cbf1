// image_io.cpp: PNG (our own writer over compute/io/png_encode.h; stb_image to read pixels)
// with a metadata tEXt chunk, NumPy .npy, and safe atomic writes (see image_io.h).
#include "compute/io/image_io.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <utility>
#include <cerrno>
#include <cctype>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include "compute/io/png_encode.h"
#include "compute/system/fault_injection.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

namespace ms {

namespace {

std::string quoted(const std::filesystem::path& path) {
    std::string text = path.string();  // (built by appending: GCC 12 -O3 misfires -Wrestrict on "'" + s)
    text.insert(text.begin(), '\'');
    text.push_back('\'');
    return text;
}

// --- PNG chunks ---------------------------------------------------------------------------

constexpr uint8_t kPngSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};

void put_be32(std::string* out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(char((v >> shift) & 0xff));
}

uint32_t get_be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// A whole chunk: length, type, data, CRC-32 of type and data.
std::string png_chunk(const char type[4], const std::string& data) {
    std::string chunk;
    put_be32(&chunk, uint32_t(data.size()));
    chunk.append(type, 4);
    chunk += data;
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.data() + 4), uInt(4 + data.size()));
    put_be32(&chunk, uint32_t(crc));
    return chunk;
}

std::string text_chunk(const std::string& keyword, const std::string& text) {
    std::string data = keyword;
    data.push_back('\0');
    data += text;
    return png_chunk("tEXt", data);
}

}  // namespace

// --- Atomic files ---------------------------------------------------------------------------

namespace {

// Temporary files in progress, for the signal handler. A slot goes free -> claimed (its path
// being copied in) -> ready; the handler reads only ready slots, with async-signal-safe calls.
constexpr int kMaxTempFiles = 32;
struct TempFileSlot {
    std::atomic<int> state{0};  // 0 free, 1 claimed, 2 ready
    char path[PATH_MAX];
};
TempFileSlot g_temp_files[kMaxTempFiles];

int register_temp_file(const std::filesystem::path& temp) {
    const std::string& text = temp.native();
    if (text.size() >= PATH_MAX) return -1;
    for (int i = 0; i < kMaxTempFiles; ++i) {
        int expected = 0;
        if (g_temp_files[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_temp_files[i].path, text.c_str(), text.size() + 1);
            g_temp_files[i].state.store(2);
            return i;
        }
    }
    return -1;  // more than kMaxTempFiles at once: this one is not removed on a signal
}

void unregister_temp_file(int slot) {
    if (slot >= 0) g_temp_files[slot].state.store(0);
}

extern "C" void remove_temp_files_and_exit(int signal_number) {
    int removed = 0;
    for (TempFileSlot& slot : g_temp_files)
        if (slot.state.load() == 2 && ::unlink(slot.path) == 0) ++removed;
    static const char kRemoved[] = "\nmandelscope: interrupted; the unfinished output file was removed.\n";
    static const char kPlain[] = "\nmandelscope: interrupted.\n";
    if (removed) (void)!::write(STDERR_FILENO, kRemoved, sizeof kRemoved - 1);
    else (void)!::write(STDERR_FILENO, kPlain, sizeof kPlain - 1);
    ::_exit(128 + signal_number);
}

std::string describe_file_type(mode_t mode) {
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

bool ends_with_ignoring_case(const std::string& text, const std::string& suffix) {
    if (text.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(uint8_t(text[text.size() - suffix.size() + i])) != std::tolower(uint8_t(suffix[i])))
            return false;
    return true;
}

}  // namespace

void install_output_cleanup_on_signals() {
    struct sigaction action {};
    action.sa_handler = remove_temp_files_and_exit;
    sigemptyset(&action.sa_mask);
    for (int signal_number : {SIGINT, SIGTERM}) {
        // A signal ignored when we started stays ignored (`nohup`, a script's background job).
        struct sigaction current {};
        if (sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        sigaction(signal_number, &action, nullptr);
    }
}

std::filesystem::path resolve_output_path(const std::filesystem::path& path) {
    std::filesystem::path current = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
        std::error_code ec;
        const std::filesystem::path next = std::filesystem::read_symlink(current, ec);
        if (ec) return current;
        current = next.is_absolute() ? next : current.parent_path() / next;
    }
    throw std::runtime_error("cannot write " + quoted(path) + ": it is a loop of symbolic links");
}

std::string check_writable(const std::filesystem::path& path, const std::string& extension) {
    if (path.empty()) return "no output file was given";
    std::filesystem::path resolved;
    try {
        resolved = resolve_output_path(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    const std::string name = resolved == path ? quoted(path) : quoted(path) + " (a link to " + quoted(resolved) + ")";
    struct stat st {};
    if (::stat(resolved.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return "the output path " + name + " is a directory";
        if (!S_ISREG(st.st_mode))
            return "cannot write " + name + ": it is " + describe_file_type(st.st_mode) +
                   ", not a regular file, and Mandelscope replaces only regular files";
        if (::access(resolved.c_str(), W_OK) != 0)
            return "cannot write " + name + ": the existing file is not writable";
    } else if (errno != ENOENT) {
        return "cannot write " + name + ": " + std::strerror(errno);
    }
    if (!extension.empty() && !ends_with_ignoring_case(path.filename().string(), extension))
        return "the output file " + quoted(path) + " must end in " + extension + " (Mandelscope writes " +
               (extension == ".png" ? std::string("PNG images") : extension + " files") + " only)";
    std::filesystem::path dir = resolved.parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return "cannot write " + name + ": the directory " + quoted(dir) + " does not exist";
    // The only sure test of the directory: create a file there (root passes access() even on
    // /proc or a read-only mount).
    std::string probe = (dir / ".mandelscope-probe-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0)
        return "cannot write " + name + ": no file can be created in " + quoted(dir) + " (" + std::strerror(errno) +
               ")";
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
    std::string problem = check_writable(target_);
    if (!problem.empty()) throw std::runtime_error(problem);
    resolved_ = resolve_output_path(target_);
    auto dir = resolved_.parent_path();
    std::string pattern = (dir.empty() ? std::filesystem::path(".") : dir) /
                          ("." + resolved_.filename().string() + ".tmp-XXXXXX");
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0)
        throw std::runtime_error("cannot create a temporary file beside " + quoted(target_) + ": " +
                                 std::strerror(errno));
    temp_ = name.data();
    signal_slot_ = register_temp_file(temp_);
    // mkstemp creates the file 0600: give it the replaced file's permissions, or the usual ones
    // (umask applies).
    struct stat st {};
    if (::stat(resolved_.c_str(), &st) == 0) {
        ::fchmod(fd, st.st_mode & 07777);
    } else {
        mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
        ::close(fd);
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
        unregister_temp_file(signal_slot_);
        throw std::runtime_error("cannot open a temporary file beside " + quoted(target_));
    }
}

AtomicFile::~AtomicFile() {
    if (file_) std::fclose(file_);
    if (!temp_.empty()) {
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
    }
    unregister_temp_file(signal_slot_);
}

void AtomicFile::write(const void* data, size_t bytes) {
    if (!file_) throw std::runtime_error("internal error: write to " + quoted(target_) + " after commit");
    if (fault_injected(Fault::PngWrite))  // a test's full disk (compute/system/fault_injection.h)
        throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(ENOSPC));
    if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
        throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(errno));
    bytes_written_ += bytes;
}

void AtomicFile::start_writeback() {
    if (!file_) return;
    if (std::fflush(file_) != 0)
        throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(errno));
#if defined(__linux__)
    // Asks the kernel to start writing what is dirty now and returns at once; commit's fsync
    // then waits only for the rest. (Where it is not supported, fsync does it all, as before.)
    (void)::sync_file_range(::fileno(file_), 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
}

void AtomicFile::commit() {
    if (!file_) throw std::runtime_error("internal error: " + quoted(target_) + " committed twice");
    bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    int saved_errno = errno;
    ok = std::fclose(file_) == 0 && ok;
    file_ = nullptr;
    if (!ok) throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(saved_errno));
    std::error_code ec;
    std::filesystem::rename(temp_, resolved_, ec);
    if (ec)
        throw std::runtime_error("cannot move the finished file into place as " + quoted(target_) + ": " +
                                 ec.message());
    temp_.clear();
    unregister_temp_file(signal_slot_);
    signal_slot_ = -1;
}

// --- PNG out --------------------------------------------------------------------------------

namespace {

// Signature, IHDR (8-bit RGB, no interlace) and the metadata tEXt chunk.
std::string png_head(int width, int height, const std::string& metadata) {
    std::string head(reinterpret_cast<const char*>(kPngSignature), 8);
    std::string ihdr;
    put_be32(&ihdr, uint32_t(width));
    put_be32(&ihdr, uint32_t(height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, adaptive filters, no interlace
    head += png_chunk("IHDR", ihdr);
    if (!metadata.empty()) head += text_chunk(kMetadataKey, metadata);
    return head;
}

// The zlib stream's pieces as IDAT chunks of at most 8 MiB (several pieces each), written
// straight from the encoder's buffers (building a chunk as a string would make two more copies of
// the image's bytes, in fresh pages whose faults cost a good share of writing a frame). A chunk's
// CRC-32 covers its type and data: it is the type's CRC combined with the pieces' own, which the
// cores computed as they deflated them (png_encode.h), so no serial pass reads the compressed
// bytes. Pieces deflated on the GPU are read from the device here, through its staging buffers, as
// they are written (PngByteReader), in runs: one write per staging span.
void write_idat(AtomicFile& file, const PngStreamPieces& pieces) {
    constexpr size_t kMaxChunk = size_t(8) << 20;
    const uLong type_crc = crc32(0L, reinterpret_cast<const Bytef*>("IDAT"), 4);
    for (size_t k = 0; k < pieces.count;) {
        size_t end = k, n = 0;
        while (end < pieces.count && (end == k || n + pieces.size(end) <= kMaxChunk)) n += pieces.size(end++);
        if (n > 0) {
            uLong crc = type_crc;
            for (size_t i = k; i < end; ++i) crc = crc32_combine(crc, pieces.crc[i], z_off_t(pieces.size(i)));
            std::string head;
            put_be32(&head, uint32_t(n));
            head.append("IDAT", 4);
            std::string tail;
            put_be32(&tail, uint32_t(crc));
            file.write(head.data(), head.size());
            pieces.write_pieces(k, end, [&file](const uint8_t* p, size_t bytes) { file.write(p, bytes); });
            file.write(tail.data(), tail.size());
        }
        k = end;
    }
}

void check_png_size(const std::filesystem::path& path, int width, int height) {
    if (width <= 0 || height <= 0) throw std::runtime_error("cannot write an empty image to " + quoted(path));
    if (std::string problem = check_writable(path, ".png"); !problem.empty()) throw std::runtime_error(problem);
}

}  // namespace

PngWriteTimings write_png(const std::filesystem::path& path, const uint8_t* rgba, int width, int height,
                          const std::string& metadata) {
    PngStreamWriter writer(path, width, height, metadata);
    writer.write_rows(rgba, height);
    writer.finish();
    return writer.timings();
}

double time_plain_disk_write_ms(const std::filesystem::path& dir, uint64_t bytes) {
    std::string name = ((dir.empty() ? std::filesystem::path(".") : dir) / ".mandelscope-disk-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("cannot create a file in " + quoted(dir) + ": " + std::strerror(errno));
    std::vector<uint8_t> block(size_t(1) << 20);
    for (size_t i = 0; i < block.size(); ++i) block[i] = uint8_t(i * 2654435761u >> 13);
    const auto start = std::chrono::steady_clock::now();
    bool ok = true;
    for (uint64_t left = bytes; left > 0 && ok;) {
        const size_t n = size_t(std::min<uint64_t>(left, block.size()));
        ok = ::write(fd, block.data(), n) == ssize_t(n);
        left -= n;
    }
    ok = ok && ::fsync(fd) == 0;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const int saved_errno = errno;
    ::close(fd);
    ::unlink(name.c_str());
    if (!ok) throw std::runtime_error("cannot write a test file in " + quoted(dir) + ": " + std::strerror(saved_errno));
    return ms;
}

// The stream writer is a pipeline of two stages: the calling thread filters and deflates batch
// k on every core while a writer thread writes batch k-1 to the file and starts the kernel's
// writeback of it (AtomicFile::start_writeback), so the final fsync has little left to wait for.
// The total is then about the longer stage, not the sum (README, "Writing PNGs").
struct PngStreamWriter::Impl {
    AtomicFile file;
    PngEncoder encoder;
    int width = 0;
    int rows_left = 0;
    int batch_rows = 0;            // rows gathered before they are encoded together
    std::vector<uint8_t> pending;  // up to batch_rows rows of RGBA
    int pending_rows = 0;
    PngStreamPieces pieces[2];  // one being encoded, one being written
    int encoding = 0;           // which
    std::thread writer;
    std::exception_ptr write_error;  // set by the writer thread, thrown by the caller's next call
    PngWriteTimings timings;

    Impl(const std::filesystem::path& path, int w, int h) : file(path), encoder(w), width(w), rows_left(h) {}
    ~Impl() {
        if (writer.joinable()) writer.join();  // a failure or a cancel: the file is removed after
    }

    void wait_for_writer() {
        const auto start = std::chrono::steady_clock::now();
        if (writer.joinable()) writer.join();
        timings.wait_ms += milliseconds_since(start);
        if (write_error) std::rethrow_exception(std::exchange(write_error, nullptr));
    }

    void write_in_background(const PngStreamPieces& batch) {
        writer = std::thread([this, &batch] {
            try {
                const auto start = std::chrono::steady_clock::now();
                write_idat(file, batch);
                file.start_writeback();
                timings.write_ms += milliseconds_since(start);
            } catch (...) {
                write_error = std::current_exception();
            }
        });
    }

    void encode(const uint8_t* rgba, int rows) {
        const auto start = std::chrono::steady_clock::now();
        PngStreamPieces& batch = pieces[encoding];
        encoder.encode_rows(rgba, rows, &batch);
        timings.encode_ms += milliseconds_since(start);
        timings.raw_bytes += uint64_t(rows) * uint64_t(width) * 3;
        timings.compressed_bytes += batch.total_bytes();
        wait_for_writer();  // batch k-1 is written: its buffers take batch k+1 next
        write_in_background(batch);
        encoding ^= 1;
    }

    static double milliseconds_since(std::chrono::steady_clock::time_point start) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
};

PngStreamWriter::PngStreamWriter(const std::filesystem::path& path, int width, int height,
                                 const std::string& metadata) {
    check_png_size(path, width, height);
    impl_ = std::make_unique<Impl>(path, width, height);
    Impl& m = *impl_;
    // A batch gives every core two segments to deflate, within 64 MiB of RGBA.
    const size_t row_bytes = size_t(width) * 4;
    const size_t segment_rows = std::max<size_t>(1, kPngSegmentBytes / (size_t(width) * 3 + 1));
    const size_t wanted = segment_rows * 2 * size_t(std::max(1, omp_get_max_threads()));
    m.batch_rows = int(std::clamp<size_t>(std::min(wanted, (size_t(64) << 20) / row_bytes), 1, size_t(height)));
    std::string head = png_head(width, height, metadata);
    m.file.write(head.data(), head.size());
}

PngStreamWriter::~PngStreamWriter() = default;

void PngStreamWriter::write_rows(const uint8_t* rgba, int rows) {
    Impl& m = *impl_;
    if (rows > m.rows_left) throw std::runtime_error("internal error: too many rows for " + quoted(m.file.target()));
    m.rows_left -= rows;
    const size_t row_bytes = size_t(m.width) * 4;
    // Large calls go straight to the encoder, in parts of up to 8 batches (16 segments a core;
    // part_rows), so that writing one part overlaps encoding the next while each parallel region
    // still has enough segments to balance the cores (parts of one batch each lost more at their
    // barriers than the overlap gained on 2 cores); the rest is gathered into a batch first, so
    // that every core has work.
    const int part_rows = this->part_rows();
    while (m.pending_rows == 0 && rows >= m.batch_rows) {
        const int take = rows >= 2 * part_rows ? part_rows : rows;  // no small part left at the end
        m.encode(rgba, take);
        rgba += size_t(take) * row_bytes;
        rows -= take;
    }
    while (rows > 0) {
        if (m.pending.empty()) m.pending.resize(size_t(m.batch_rows) * row_bytes);
        const int take = std::min(rows, m.batch_rows - m.pending_rows);
        std::memcpy(m.pending.data() + size_t(m.pending_rows) * row_bytes, rgba, size_t(take) * row_bytes);
        m.pending_rows += take;
        rgba += size_t(take) * row_bytes;
        rows -= take;
        if (m.pending_rows == m.batch_rows) {
            m.encode(m.pending.data(), m.pending_rows);
            m.pending_rows = 0;
        }
    }
}

// Parts of 8 batches, but of at most 128 MiB of RGBA (and at least one batch): on a many-core
// host a batch of a wide image is already 64 MiB, and a streaming caller's last part, encoded
// after its last rows arrive, is then 2 batches instead of 8 (a 16384x16384 poster on 32 cores:
// 2,048 rows, not 8,192).
int PngStreamWriter::part_rows() const {
    const Impl& m = *impl_;
    const size_t batch_bytes = size_t(m.batch_rows) * size_t(m.width) * 4;
    const size_t batches = std::clamp<size_t>((size_t(128) << 20) / std::max<size_t>(batch_bytes, 1), 1, 8);
    return int(batches) * m.batch_rows;
}

void PngStreamWriter::write_deflated_rows(const PngDeflatedRows& rows, double encode_ms) {
    Impl& m = *impl_;
    if (rows.rows > m.rows_left)
        throw std::runtime_error("internal error: too many rows for " + quoted(m.file.target()));
    if (m.pending_rows > 0) throw std::runtime_error("internal error: deflated rows behind rows still waiting");
    m.rows_left -= rows.rows;
    const auto start = std::chrono::steady_clock::now();
    PngStreamPieces& batch = m.pieces[m.encoding];
    m.encoder.append_deflated(rows, &batch);
    m.timings.encode_ms += encode_ms + Impl::milliseconds_since(start);
    m.timings.raw_bytes += uint64_t(rows.rows) * uint64_t(m.width) * 3;
    m.timings.compressed_bytes += batch.total_bytes();
    m.timings.gpu_encoded = true;
    m.wait_for_writer();
    m.write_in_background(batch);
    m.encoding ^= 1;
}

void PngStreamWriter::finish() {
    Impl& m = *impl_;
    if (m.rows_left != 0) throw std::runtime_error("internal error: " + quoted(m.file.target()) + " is missing rows");
    if (m.pending_rows > 0) m.encode(m.pending.data(), m.pending_rows);
    m.pending_rows = 0;
    m.wait_for_writer();
    auto start = std::chrono::steady_clock::now();
    PngStreamPieces& tail = m.pieces[m.encoding];
    m.encoder.finish(&tail);
    write_idat(m.file, tail);
    std::string end = png_chunk("IEND", "");
    m.file.write(end.data(), end.size());
    m.timings.write_ms += Impl::milliseconds_since(start);
    m.timings.compressed_bytes += tail.total_bytes();
    start = std::chrono::steady_clock::now();
    m.file.commit();
    m.timings.fsync_ms = Impl::milliseconds_since(start);
    m.timings.file_bytes = m.file.bytes_written();
}

const PngWriteTimings& PngStreamWriter::timings() const { return impl_->timings; }

// --- PNG in ---------------------------------------------------------------------------------

namespace {

// The size of a regular file, or a sentence-carrying exception: readers allocate nothing until
// they know how much the file can hold.
uint64_t readable_file_size(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw std::runtime_error("cannot open " + quoted(path) + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw std::runtime_error("cannot read " + quoted(path) + ": it is a directory");
    if (!S_ISREG(st.st_mode))
        throw std::runtime_error("cannot read " + quoted(path) + ": it is " + describe_file_type(st.st_mode) +
                                 ", not a regular file");
    return uint64_t(st.st_size);
}

// A chunk type for a message: its four letters, or "corrupt" when they are not letters.
std::string printable_chunk_type(const std::string& type) {
    for (char c : type)
        if (!std::isalpha(uint8_t(c))) return "corrupt";
    return type;
}

// Deflate expands at most 1032:1; a PNG's pixels can be no larger than that times its size.
constexpr uint64_t kMaxDeflateRatio = 1032;

}  // namespace

PngImage read_png(const std::filesystem::path& path) {
    const uint64_t file_bytes = readable_file_size(path);
    // Check the declared size against the file before stb_image allocates it.
    {
        std::ifstream in(path, std::ios::binary);
        uint8_t head[33];
        if (!in.read(reinterpret_cast<char*>(head), sizeof head) || std::memcmp(head, kPngSignature, 8) != 0 ||
            std::memcmp(head + 12, "IHDR", 4) != 0)
            throw std::runtime_error("cannot read " + quoted(path) + " as a PNG (not a PNG file)");
        const uint64_t w = get_be32(head + 16), h = get_be32(head + 20);
        if (w == 0 || h == 0 || w > (1u << 24) || h > (1u << 24) ||
            (w * 8 + 1) * h > (file_bytes + 64) * kMaxDeflateRatio)  // at most 8 bytes a pixel
            throw std::runtime_error("cannot read " + quoted(path) + " as a PNG (it declares " + std::to_string(w) +
                                     "x" + std::to_string(h) + " pixels, more than its " + std::to_string(file_bytes) +
                                     " bytes can hold: it is corrupt or truncated)");
    }
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!data) throw std::runtime_error("cannot read " + quoted(path) + " as a PNG (" + stbi_failure_reason() + ")");
    PngImage image;
    image.width = w;
    image.height = h;
    image.rgba.assign(data, data + size_t(w) * size_t(h) * 4);
    stbi_image_free(data);
    return image;
}

bool read_png_text(const std::filesystem::path& path, const std::string& keyword, std::string* text) {
    const uint64_t file_bytes = readable_file_size(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + quoted(path));
    uint8_t signature[8];
    if (!in.read(reinterpret_cast<char*>(signature), 8) || std::memcmp(signature, kPngSignature, 8) != 0)
        throw std::runtime_error(quoted(path) + " is not a PNG file");
    uint64_t at = 8;  // where the next chunk starts
    for (;;) {
        uint8_t head[8];
        if (!in.read(reinterpret_cast<char*>(head), 8))
            throw std::runtime_error(quoted(path) + " is truncated (no IEND chunk)");
        const uint64_t length = get_be32(head);
        const std::string type(reinterpret_cast<char*>(head + 4), 4);
        // Every length is checked against what is left of the file before anything is read
        // or allocated for it.
        if (length > (1u << 31) || at + 12 + length > file_bytes)
            throw std::runtime_error(quoted(path) + " is corrupt or truncated (its " + printable_chunk_type(type) +
                                     " chunk declares " + std::to_string(length) +
                                     " bytes, more than the rest of the file)");
        at += 12 + length;
        if (type == "IEND") return false;
        if (type != "tEXt" || int64_t(length) > kMaxPngTextBytes) {
            in.seekg(std::streamoff(at));  // past data and CRC
            continue;
        }
        std::string data(length, '\0');
        uint8_t crc_bytes[4];
        if (!in.read(data.data(), std::streamsize(length)) || !in.read(reinterpret_cast<char*>(crc_bytes), 4))
            throw std::runtime_error(quoted(path) + " is truncated inside a tEXt chunk");
        uLong crc = crc32(0L, Z_NULL, 0);
        crc = crc32(crc, head + 4, 4);
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size()));
        if (uint32_t(crc) != get_be32(crc_bytes))
            throw std::runtime_error(quoted(path) + " has a tEXt chunk with a bad CRC");
        const size_t nul = data.find('\0');
        if (nul != std::string::npos && data.compare(0, nul, keyword) == 0 && nul == keyword.size()) {
            *text = data.substr(nul + 1);
            return true;
        }
    }
}

// --- NumPy ----------------------------------------------------------------------------------

namespace {

// Magic, version 1.0, header length, then the header dict padded with spaces to a multiple of
// 64 bytes in all and ending in '\n' (what numpy.save writes).
std::string npy_header(int64_t height, int64_t width) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(height) + ", " +
                       std::to_string(width) + "), }";
    size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict.push_back('\n');
    std::string header("\x93NUMPY\x01\x00", 8);
    header.push_back(char(dict.size() & 0xff));
    header.push_back(char(dict.size() >> 8));
    return header + dict;
}

}  // namespace

void write_npy_f32(const std::filesystem::path& path, const float* values, int64_t height, int64_t width) {
    NpyStreamWriter writer(path, height, width);
    writer.write_rows(values, height);
    writer.finish();
}

NpyStreamWriter::NpyStreamWriter(const std::filesystem::path& path, int64_t height, int64_t width)
    : file_(path), width_(width), rows_left_(height) {
    static_assert(sizeof(float) == 4);
    const uint16_t probe = 1;
    if (*reinterpret_cast<const uint8_t*>(&probe) != 1)
        throw std::runtime_error("big-endian hosts are not supported for .npy output");
    std::string header = npy_header(height, width);
    file_.write(header.data(), header.size());
}

void NpyStreamWriter::write_rows(const float* values, int64_t rows) {
    if (rows > rows_left_) throw std::runtime_error("internal error: too many rows for " + quoted(file_.target()));
    file_.write(values, size_t(rows * width_) * sizeof(float));
    rows_left_ -= rows;
}

void NpyStreamWriter::finish() {
    if (rows_left_ != 0) throw std::runtime_error("internal error: " + quoted(file_.target()) + " is missing rows");
    file_.commit();
}

NpyArray read_npy_f32(const std::filesystem::path& path) {
    const uint64_t file_bytes = readable_file_size(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + quoted(path));
    char magic[10];
    if (!in.read(magic, 10) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw std::runtime_error(quoted(path) + " is not a .npy file");
    if (magic[6] != 1) throw std::runtime_error(quoted(path) + " is a .npy file of a version other than 1.0");
    const size_t header_length = uint8_t(magic[8]) | size_t(uint8_t(magic[9])) << 8;  // at most 65535
    if (10 + header_length > file_bytes) throw std::runtime_error(quoted(path) + " is truncated inside its header");
    std::string header(header_length, '\0');
    if (!in.read(header.data(), std::streamsize(header_length)))
        throw std::runtime_error(quoted(path) + " is truncated");
    if (header.find("'descr': '<f4'") == std::string::npos ||
        header.find("'fortran_order': False") == std::string::npos)
        throw std::runtime_error(quoted(path) + " does not hold little-endian float32 in C order");
    // 'shape': (H, W): two decimal whole numbers, each checked before any arithmetic on them.
    const size_t open = header.find("'shape': (");
    if (open == std::string::npos) throw std::runtime_error(quoted(path) + " does not hold a two-dimensional array");
    const char* p = header.c_str() + open + 10;
    int64_t dims[2] = {0, 0};
    for (int d = 0; d < 2; ++d) {
        while (*p == ' ') ++p;
        if (*p < '0' || *p > '9') throw std::runtime_error(quoted(path) + " does not hold a two-dimensional array");
        for (; *p >= '0' && *p <= '9'; ++p)  // saturates past the cap instead of overflowing
            dims[d] = std::min(dims[d] * 10 + (*p - '0'), kMaxNpyValues + 1);
        while (*p == ' ') ++p;
        if (*p != (d == 0 ? ',' : ')'))
            throw std::runtime_error(quoted(path) + " does not hold a two-dimensional array");
        ++p;
    }
    NpyArray array;
    array.height = dims[0];
    array.width = dims[1];
    if (array.height > kMaxNpyValues || array.width > kMaxNpyValues ||
        (array.width > 0 && array.height > kMaxNpyValues / array.width))
        throw std::runtime_error(quoted(path) + " declares a " + std::to_string(array.height) + " x " +
                                 std::to_string(array.width) + " array, more than the " +
                                 std::to_string(kMaxNpyValues) + " values Mandelscope reads");
    const uint64_t count = uint64_t(array.height) * uint64_t(array.width);
    if (10 + header_length + count * sizeof(float) > file_bytes)
        throw std::runtime_error(quoted(path) + " is shorter than its shape says (" + std::to_string(array.height) +
                                 " x " + std::to_string(array.width) + " floats need " +
                                 std::to_string(count * sizeof(float)) + " bytes after the header)");
    array.values.resize(size_t(count));
    if (!in.read(reinterpret_cast<char*>(array.values.data()), std::streamsize(count * sizeof(float))))
        throw std::runtime_error(quoted(path) + " is shorter than its shape says");
    return array;
}

}  // namespace ms
