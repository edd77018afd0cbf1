// image_io.cpp: PNG (stb_image_write / stb_image, plus a streaming zlib writer for huge
// images) with a metadata tEXt chunk, NumPy .npy, and atomic writes (see image_io.h).
#include "compute/io/image_io.h"

#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compute/system/fault_injection.h"

// stb_image_write compresses with zlib's compress2 (faster and smaller than its own deflate).
static unsigned char* ms_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality);
#define STBIW_ZLIB_COMPRESS ms_zlib_compress
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

static unsigned char* ms_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality) {
    uLongf size = compressBound(uLong(data_len));
    auto* out = static_cast<unsigned char*>(STBIW_MALLOC(size));
    if (!out) return nullptr;
    int level = quality < 1 ? 1 : quality > 9 ? 9 : quality;
    if (compress2(out, &size, data, uLong(data_len), level) != Z_OK || size > uLongf(INT_MAX)) {
        STBIW_FREE(out);
        return nullptr;
    }
    *out_len = int(size);
    return out;
}

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

// Offset just past the IHDR chunk (signature 8 + length 4 + type 4 + data 13 + CRC 4).
constexpr size_t kAfterIhdr = 33;

}  // namespace

// --- Atomic files ---------------------------------------------------------------------------

std::string check_writable(const std::filesystem::path& path) {
    std::error_code ec;
    if (path.empty()) return "no output file was given";
    if (std::filesystem::is_directory(path, ec)) return "the output path " + quoted(path) + " is a directory";
    auto dir = path.parent_path();
    if (dir.empty()) dir = ".";
    if (!std::filesystem::is_directory(dir, ec))
        return "cannot write " + quoted(path) + ": the directory " + quoted(dir) + " does not exist";
    if (::access(dir.c_str(), W_OK) != 0)
        return "cannot write " + quoted(path) + ": the directory " + quoted(dir) + " is not writable";
    if (std::filesystem::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
        return "cannot write " + quoted(path) + ": the existing file is not writable";
    return {};
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
    std::string problem = check_writable(target_);
    if (!problem.empty()) throw std::runtime_error(problem);
    auto dir = target_.parent_path();
    std::string pattern = (dir.empty() ? std::filesystem::path(".") : dir) / ("." + target_.filename().string() + ".tmp-XXXXXX");
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0)
        throw std::runtime_error("cannot create a temporary file beside " + quoted(target_) + ": " + std::strerror(errno));
    temp_ = name.data();
    // mkstemp creates the file 0600; give it the usual permissions (umask applies).
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
        ::close(fd);
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
        throw std::runtime_error("cannot open a temporary file beside " + quoted(target_));
    }
}

AtomicFile::~AtomicFile() {
    if (file_) std::fclose(file_);
    if (!temp_.empty()) {
        std::error_code ec;
        std::filesystem::remove(temp_, ec);
    }
}

void AtomicFile::write(const void* data, size_t bytes) {
    if (!file_) throw std::runtime_error("internal error: write to " + quoted(target_) + " after commit");
    if (fault_injected(Fault::PngWrite))  // a test's full disk (compute/system/fault_injection.h)
        throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(ENOSPC));
    if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
        throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(errno));
}

void AtomicFile::commit() {
    if (!file_) throw std::runtime_error("internal error: " + quoted(target_) + " committed twice");
    bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    int saved_errno = errno;
    ok = std::fclose(file_) == 0 && ok;
    file_ = nullptr;
    if (!ok) throw std::runtime_error("cannot write " + quoted(target_) + ": " + std::strerror(saved_errno));
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) throw std::runtime_error("cannot move the finished file into place as " + quoted(target_) + ": " + ec.message());
    temp_.clear();
}

// --- PNG out --------------------------------------------------------------------------------

void write_png(const std::filesystem::path& path, const uint8_t* rgba, int width, int height,
               const std::string& metadata) {
    if (width <= 0 || height <= 0) throw std::runtime_error("cannot write an empty image to " + quoted(path));
    if (int64_t(width) * 4 * height + height > INT_MAX)
        throw std::runtime_error("the image is too large to encode in one piece; use PngStreamWriter");
    AtomicFile file(path);
    int length = 0;
    unsigned char* png = stbi_write_png_to_mem(rgba, width * 4, width, height, 4, &length);
    if (!png || length < int(kAfterIhdr)) {
        if (png) STBIW_FREE(png);
        throw std::runtime_error("cannot encode the PNG for " + quoted(path) + " (out of memory)");
    }
    std::unique_ptr<unsigned char, void (*)(void*)> owner(png, [](void* p) { STBIW_FREE(p); });
    file.write(png, kAfterIhdr);
    if (!metadata.empty()) {
        std::string chunk = text_chunk(kMetadataKey, metadata);
        file.write(chunk.data(), chunk.size());
    }
    file.write(png + kAfterIhdr, size_t(length) - kAfterIhdr);
    file.commit();
}

struct PngStreamWriter::Impl {
    AtomicFile file;
    int width = 0;
    int rows_left = 0;
    z_stream zs{};
    bool zs_open = false;
    std::vector<uint8_t> previous, filtered, out;

    Impl(const std::filesystem::path& path, int w, int h) : file(path), width(w), rows_left(h) {}
    ~Impl() {
        if (zs_open) deflateEnd(&zs);
    }

    void write_idat(const uint8_t* data, size_t bytes) {
        std::string chunk = png_chunk("IDAT", std::string(reinterpret_cast<const char*>(data), bytes));
        file.write(chunk.data(), chunk.size());
    }

    // Feeds `bytes` to deflate (flush = Z_NO_FLUSH or Z_FINISH) and writes what comes out.
    void deflate_bytes(const uint8_t* data, size_t bytes, int flush) {
        zs.next_in = const_cast<Bytef*>(data);
        zs.avail_in = uInt(bytes);
        int status = Z_OK;
        do {
            zs.next_out = out.data();
            zs.avail_out = uInt(out.size());
            status = deflate(&zs, flush);
            if (status == Z_STREAM_ERROR) throw std::runtime_error("zlib failed while compressing " + quoted(file.target()));
            size_t produced = out.size() - zs.avail_out;
            if (produced) write_idat(out.data(), produced);
        } while (zs.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    }
};

PngStreamWriter::PngStreamWriter(const std::filesystem::path& path, int width, int height,
                                 const std::string& metadata) {
    if (width <= 0 || height <= 0) throw std::runtime_error("cannot write an empty image to " + quoted(path));
    impl_ = std::make_unique<Impl>(path, width, height);
    Impl& m = *impl_;
    if (deflateInit(&m.zs, 6) != Z_OK) throw std::runtime_error("zlib could not start compressing " + quoted(path));
    m.zs_open = true;
    m.previous.assign(size_t(width) * 4, 0);
    m.filtered.resize(size_t(width) * 4 + 1);
    m.out.resize(1 << 16);
    std::string head(reinterpret_cast<const char*>(kPngSignature), 8);
    std::string ihdr;
    put_be32(&ihdr, uint32_t(width));
    put_be32(&ihdr, uint32_t(height));
    ihdr += std::string("\x08\x06\x00\x00\x00", 5);  // 8 bits, RGBA, deflate, adaptive filters, no interlace
    head += png_chunk("IHDR", ihdr);
    if (!metadata.empty()) head += text_chunk(kMetadataKey, metadata);
    m.file.write(head.data(), head.size());
}

PngStreamWriter::~PngStreamWriter() = default;

void PngStreamWriter::write_rows(const uint8_t* rgba, int rows) {
    Impl& m = *impl_;
    if (rows > m.rows_left) throw std::runtime_error("internal error: too many rows for " + quoted(m.file.target()));
    const size_t stride = size_t(m.width) * 4;
    for (int r = 0; r < rows; ++r) {
        const uint8_t* row = rgba + size_t(r) * stride;
        // Paeth filter (type 4): predicts each byte from left, up and upper-left neighbours.
        m.filtered[0] = 4;
        for (size_t i = 0; i < stride; ++i) {
            int a = i >= 4 ? row[i - 4] : 0, b = m.previous[i], c = i >= 4 ? m.previous[i - 4] : 0;
            int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
            int predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            m.filtered[i + 1] = uint8_t(row[i] - predictor);
        }
        m.deflate_bytes(m.filtered.data(), m.filtered.size(), Z_NO_FLUSH);
        std::memcpy(m.previous.data(), row, stride);
    }
    m.rows_left -= rows;
}

void PngStreamWriter::finish() {
    Impl& m = *impl_;
    if (m.rows_left != 0) throw std::runtime_error("internal error: " + quoted(m.file.target()) + " is missing rows");
    m.deflate_bytes(nullptr, 0, Z_FINISH);
    std::string end = png_chunk("IEND", "");
    m.file.write(end.data(), end.size());
    m.file.commit();
}

// --- PNG in ---------------------------------------------------------------------------------

PngImage read_png(const std::filesystem::path& path) {
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + quoted(path));
    uint8_t signature[8];
    if (!in.read(reinterpret_cast<char*>(signature), 8) || std::memcmp(signature, kPngSignature, 8) != 0)
        throw std::runtime_error(quoted(path) + " is not a PNG file");
    for (;;) {
        uint8_t head[8];
        if (!in.read(reinterpret_cast<char*>(head), 8))
            throw std::runtime_error(quoted(path) + " is truncated (no IEND chunk)");
        const uint32_t length = get_be32(head);
        const std::string type(reinterpret_cast<char*>(head + 4), 4);
        if (length > (1u << 31)) throw std::runtime_error(quoted(path) + " has a corrupt chunk length");
        if (type == "IEND") return false;
        if (type != "tEXt") {
            in.seekg(std::streamoff(length) + 4, std::ios::cur);  // data and CRC
            continue;
        }
        std::string data(length, '\0');
        uint8_t crc_bytes[4];
        if (!in.read(data.data(), length) || !in.read(reinterpret_cast<char*>(crc_bytes), 4))
            throw std::runtime_error(quoted(path) + " is truncated inside a tEXt chunk");
        uLong crc = crc32(0L, Z_NULL, 0);
        crc = crc32(crc, head + 4, 4);
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size()));
        if (uint32_t(crc) != get_be32(crc_bytes)) throw std::runtime_error(quoted(path) + " has a tEXt chunk with a bad CRC");
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
    if (*reinterpret_cast<const uint8_t*>(&probe) != 1) throw std::runtime_error("big-endian hosts are not supported for .npy output");
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + quoted(path));
    char magic[10];
    if (!in.read(magic, 10) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw std::runtime_error(quoted(path) + " is not a .npy file");
    if (magic[6] != 1) throw std::runtime_error(quoted(path) + " is a .npy file of a version other than 1.0");
    const size_t header_length = uint8_t(magic[8]) | size_t(uint8_t(magic[9])) << 8;
    std::string header(header_length, '\0');
    if (!in.read(header.data(), std::streamsize(header_length))) throw std::runtime_error(quoted(path) + " is truncated");
    if (header.find("'descr': '<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
        throw std::runtime_error(quoted(path) + " does not hold little-endian float32 in C order");
    NpyArray array;
    const size_t open = header.find("'shape': (");
    if (open == std::string::npos || std::sscanf(header.c_str() + open, "'shape': (%lld, %lld)",
                                                 reinterpret_cast<long long*>(&array.height),
                                                 reinterpret_cast<long long*>(&array.width)) != 2)
        throw std::runtime_error(quoted(path) + " does not hold a two-dimensional array");
    array.values.resize(size_t(array.height * array.width));
    if (!in.read(reinterpret_cast<char*>(array.values.data()), std::streamsize(array.values.size() * sizeof(float))))
        throw std::runtime_error(quoted(path) + " is shorter than its shape says");
    return array;
}

}  // namespace ms
