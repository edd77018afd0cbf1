// png_stream.cpp: a streaming PNG writer on zlib, and the view's tEXt chunk (see the header).
// PNG in brief: an 8-byte signature, then chunks (length, type, data, CRC-32 of type + data):
// IHDR (size and pixel format), tEXt (keyword NUL text), IDAT (the zlib stream of all rows,
// each prefixed by its filter type byte; split across as many IDAT chunks as we like), IEND.
#include "render/png_stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace ms {

namespace {

constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(v >> shift));
}

uint32_t get_u32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

bool write_chunk(std::ofstream& out, const char* type, const uint8_t* data, size_t size) {
    std::vector<uint8_t> head;
    put_u32(head, uint32_t(size));
    head.insert(head.end(), type, type + 4);
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(type), 4);
    if (size) crc = crc32(crc, data, uInt(size));
    std::vector<uint8_t> tail;
    put_u32(tail, uint32_t(crc));
    out.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
    if (size) out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    out.write(reinterpret_cast<const char*>(tail.data()), std::streamsize(tail.size()));
    return bool(out);
}

std::string describe_errno(const std::filesystem::path& path, const char* what) {
    return std::string("cannot ") + what + " " + path.string() + ": " + std::strerror(errno);
}

}  // namespace

std::string view_to_png_text(const View& view) {
    nlohmann::json j = {
        {"center_re", view.center_re},       {"center_im", view.center_im},
        {"zoom", view.zoom},                 {"width", view.width},
        {"height", view.height},             {"max_iterations", view.max_iterations},
        {"palette", view.palette},           {"palette_offset", view.palette_offset},
        {"palette_density", view.palette_density},
    };
    return j.dump();
}

View view_from_png_text(const std::string& text) {
    View view;
    try {
        nlohmann::json j = nlohmann::json::parse(text);
        view.center_re = j.at("center_re").get<std::string>();
        view.center_im = j.at("center_im").get<std::string>();
        view.zoom = j.at("zoom").get<double>();
        view.width = j.value("width", view.width);
        view.height = j.value("height", view.height);
        view.max_iterations = j.at("max_iterations").get<int>();
        view.palette = j.value("palette", view.palette);
        view.palette_offset = j.value("palette_offset", view.palette_offset);
        view.palette_density = j.value("palette_density", view.palette_density);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("its Mandelscope view is damaged (") + e.what() + ")");
    }
    std::string problem = validate_view(view);
    if (!problem.empty()) throw std::runtime_error("its Mandelscope view is invalid: " + problem);
    return view;
}

PngWriteResult write_png_streamed(const std::filesystem::path& path, int width, int height, const View& view,
                                  int strip_rows, const PngRowSource& source) {
    PngWriteResult result;
    if (width <= 0 || height <= 0) {
        result.error = "cannot write an empty image";
        return result;
    }
    std::filesystem::path partial = path;
    partial += ".partial";
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) {
        result.error = describe_errno(path, "write");
        return result;
    }
    // Removes the partial file on every way out but success.
    auto discard = [&](PngWriteResult r) {
        out.close();
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        return r;
    };

    out.write(reinterpret_cast<const char*>(kPngSignature), 8);
    std::vector<uint8_t> ihdr;
    put_u32(ihdr, uint32_t(width));
    put_u32(ihdr, uint32_t(height));
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, adaptive filters, no interlace
    write_chunk(out, "IHDR", ihdr.data(), ihdr.size());
    std::string text = std::string(kPngViewKeyword) + '\0' + view_to_png_text(view);
    write_chunk(out, "tEXt", reinterpret_cast<const uint8_t*>(text.data()), text.size());

    z_stream z{};
    // Level 6 (zlib's default): within a few percent of 9's size at a third of its time.
    if (deflateInit(&z, 6) != Z_OK) {
        result.error = "zlib could not start compressing";
        return discard(result);
    }
    std::unique_ptr<z_stream, void (*)(z_stream*)> z_guard(&z, [](z_stream* s) { deflateEnd(s); });
    std::vector<uint8_t> compressed(1 << 18);
    auto flush_idat = [&](int mode) {
        // Deflates what is in z.next_in, writing an IDAT chunk each time the buffer fills.
        do {
            z.next_out = compressed.data();
            z.avail_out = uInt(compressed.size());
            int rc = deflate(&z, mode);
            if (rc == Z_STREAM_ERROR) return false;
            size_t produced = compressed.size() - z.avail_out;
            if (produced && !write_chunk(out, "IDAT", compressed.data(), produced)) return false;
        } while (z.avail_out == 0);
        return true;
    };

    strip_rows = std::max(1, std::min(strip_rows, height));
    std::vector<uint8_t> rgba(size_t(width) * strip_rows * 4);
    // Each row: filter byte 1 ("Sub": each byte minus the one a pixel to its left), which
    // compresses smooth gradients well and costs one subtraction per byte.
    std::vector<uint8_t> filtered(1 + size_t(width) * 3);
    for (int y0 = 0; y0 < height; y0 += strip_rows) {
        int rows = std::min(strip_rows, height - y0);
        std::string error;
        if (!source(y0, rows, rgba.data(), &error)) {
            result.cancelled = error.empty();
            result.error = error;
            return discard(result);
        }
        for (int r = 0; r < rows; ++r) {
            const uint8_t* px = rgba.data() + size_t(r) * width * 4;
            filtered[0] = 1;
            for (int x = 0; x < width; ++x)
                for (int c = 0; c < 3; ++c) {
                    uint8_t left = x ? px[4 * (x - 1) + c] : 0;
                    filtered[1 + 3 * size_t(x) + c] = uint8_t(px[4 * x + c] - left);
                }
            z.next_in = filtered.data();
            z.avail_in = uInt(filtered.size());
            if (!flush_idat(Z_NO_FLUSH)) {
                result.error = describe_errno(path, "write");
                return discard(result);
            }
        }
    }
    z.next_in = nullptr;
    z.avail_in = 0;
    if (!flush_idat(Z_FINISH) || !write_chunk(out, "IEND", nullptr, 0)) {
        result.error = describe_errno(path, "write");
        return discard(result);
    }
    out.close();
    if (!out) {
        result.error = describe_errno(path, "write");
        return discard(result);
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) {
        result.error = "cannot write " + path.string() + ": " + ec.message();
        return discard(result);
    }
    result.ok = true;
    return result;
}

std::optional<View> read_png_view(const std::filesystem::path& path, std::string* error) {
    auto fail = [&](const std::string& sentence) {
        if (error) *error = sentence;
        return std::optional<View>{};
    };
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(describe_errno(path, "open"));
    uint8_t signature[8] = {};
    in.read(reinterpret_cast<char*>(signature), 8);
    if (!in || std::memcmp(signature, kPngSignature, 8) != 0) return fail(path.string() + " is not a PNG file");
    // Walk the chunks up to IEND; only tEXt chunks are read, the rest is skipped.
    for (;;) {
        uint8_t head[8];
        in.read(reinterpret_cast<char*>(head), 8);
        if (!in) break;
        uint32_t length = get_u32(head);
        std::string type(reinterpret_cast<char*>(head + 4), 4);
        if (type == "IEND") break;
        if (length > (1u << 31)) return fail(path.string() + " is a damaged PNG file");
        if (type == "tEXt") {
            std::string data(length, '\0');
            in.read(data.data(), length);
            if (!in) break;
            size_t nul = data.find('\0');
            if (nul != std::string::npos && data.compare(0, nul, kPngViewKeyword) == 0) {
                try {
                    return view_from_png_text(data.substr(nul + 1));
                } catch (const std::exception& e) {
                    return fail(path.string() + " is a Mandelscope PNG, but " + e.what());
                }
            }
            in.seekg(4, std::ios::cur);  // CRC
        } else {
            in.seekg(std::streamoff(length) + 4, std::ios::cur);
        }
    }
    return fail(path.string() + " has no Mandelscope view in it (it was not saved by Mandelscope), so there is no place to go back to");
}

}  // namespace ms
