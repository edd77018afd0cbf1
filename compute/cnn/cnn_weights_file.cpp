// cnn_weights_file.cpp: reading and writing the .msw weights file described in
// cnn_weights_file.h. Bytes are assembled explicitly in little-endian order, so the file is the
// same on any host.
#include "compute/cnn/cnn_weights_file.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "compute/io/assets.h"
#include "compute/system/fault_injection.h"
#include "compute/io/image_io.h"

namespace ms {

namespace {

constexpr size_t kNameBytes = 16;
constexpr size_t kTableEntryBytes = kNameBytes + 4 + 4 * 4;
constexpr uint32_t kMaxProvenanceBytes = 1u << 16;

void put_u32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}

uint32_t get_u32(const std::string& in, size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(in[at + i])) << (8 * i);
    return v;
}

uint32_t crc_of(const std::string& bytes, size_t length) {
    uLong crc = crc32(0L, Z_NULL, 0);
    const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
    while (length > 0) {  // crc32 takes a uInt length: feed it in chunks
        uInt chunk = uInt(std::min<size_t>(length, 1u << 30));
        crc = crc32(crc, p, chunk);
        p += chunk;
        length -= chunk;
    }
    return uint32_t(crc);
}

}  // namespace

std::string cnn_weights_to_bytes(const CnnWeights& weights, const std::string& provenance) {
    if (weights.values.size() != kCnnParameterCount)
        throw std::runtime_error("cannot save weights: expected " + std::to_string(kCnnParameterCount) +
                                 " parameters, have " + std::to_string(weights.values.size()));
    if (provenance.size() > kMaxProvenanceBytes)
        throw std::runtime_error("cannot save weights: provenance text too long");
    std::string out(kCnnWeightsMagic, sizeof kCnnWeightsMagic);
    put_u32(out, kCnnWeightsVersion);
    put_u32(out, uint32_t(kCnnTensors.size()));
    put_u32(out, uint32_t(provenance.size()));
    out += provenance;
    for (const CnnTensorInfo& t : kCnnTensors) {
        char name[kNameBytes] = {};
        std::strncpy(name, t.name, kNameBytes - 1);
        out.append(name, kNameBytes);
        put_u32(out, uint32_t(t.rank));
        for (int d : t.dims) put_u32(out, uint32_t(d));
    }
    for (float v : weights.values) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        put_u32(out, bits);
    }
    put_u32(out, crc_of(out, out.size()));
    return out;
}

CnnWeights cnn_weights_from_bytes(const std::string& in, const std::string& source, std::string* provenance) {
    auto fail = [&](const std::string& what) -> void { throw std::runtime_error(source + ": " + what); };
    const size_t header_bytes = sizeof kCnnWeightsMagic + 12;
    if (in.size() < header_bytes || std::memcmp(in.data(), kCnnWeightsMagic, 8) != 0)
        fail("not a Mandelscope CNN weights file (bad magic)");
    uint32_t version = get_u32(in, 8);
    if (version != kCnnWeightsVersion)
        fail("weights format version " + std::to_string(version) + ", this build reads version " +
             std::to_string(kCnnWeightsVersion));
    uint32_t tensors = get_u32(in, 12);
    uint32_t provenance_bytes = get_u32(in, 16);
    if (tensors != kCnnTensors.size())
        fail("has " + std::to_string(tensors) + " tensors, the model has " + std::to_string(kCnnTensors.size()));
    if (provenance_bytes > kMaxProvenanceBytes || header_bytes + provenance_bytes > in.size())
        fail("truncated or corrupt header (provenance length " + std::to_string(provenance_bytes) + ")");
    const size_t table_at = header_bytes + provenance_bytes;
    const size_t values_at = table_at + kCnnTensors.size() * kTableEntryBytes;
    const size_t expected_size = values_at + 4 * kCnnParameterCount + 4;
    if (in.size() != expected_size)
        fail("is " + std::to_string(in.size()) + " bytes, expected " + std::to_string(expected_size) +
             (in.size() < expected_size ? " (truncated)" : ""));
    for (size_t i = 0; i < kCnnTensors.size(); ++i) {
        const CnnTensorInfo& t = kCnnTensors[i];
        size_t at = table_at + i * kTableEntryBytes;
        std::string name(in.data() + at, strnlen(in.data() + at, kNameBytes));
        uint32_t rank = get_u32(in, at + kNameBytes);
        std::string shape, expected;
        bool same = name == t.name && rank == uint32_t(t.rank);
        for (int d = 0; d < 4; ++d) {
            uint32_t dim = get_u32(in, at + kNameBytes + 4 + 4 * d);
            same = same && dim == uint32_t(t.dims[d]);
            if (d < int(rank)) {
                if (d) shape += 'x';
                shape += std::to_string(dim);
            }
            if (d < t.rank) {
                if (d) expected += 'x';
                expected += std::to_string(t.dims[d]);
            }
        }
        if (!same)
            fail("tensor " + std::to_string(i) + " is '" + name + "' " + shape + ", the model expects '" + t.name +
                 "' " + expected);
    }
    uint32_t stored_crc = get_u32(in, in.size() - 4);
    uint32_t actual_crc = crc_of(in, in.size() - 4);
    if (stored_crc != actual_crc) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "checksum mismatch (stored %08x, computed %08x): corrupt file", stored_crc,
                      actual_crc);
        fail(buf);
    }
    CnnWeights w;
    for (size_t i = 0; i < kCnnParameterCount; ++i) {
        uint32_t bits = get_u32(in, values_at + 4 * i);
        std::memcpy(&w.values[i], &bits, 4);
        if (!std::isfinite(w.values[i])) fail("parameter " + std::to_string(i) + " is not a finite number");
    }
    if (provenance) provenance->assign(in.data() + header_bytes, provenance_bytes);
    return w;
}

void cnn_save_weights(const std::filesystem::path& path, const CnnWeights& weights, const std::string& provenance) {
    std::string bytes = cnn_weights_to_bytes(weights, provenance);
    // The shared atomic writer: a temporary file that a failure (disk full) or a signal removes,
    // renamed into place only when complete; devices and FIFOs are refused.
    AtomicFile file(path);
    file.write(bytes.data(), bytes.size());
    file.commit();
}

CnnWeights cnn_load_weights(const std::filesystem::path& path, std::string* provenance) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw std::runtime_error(path.string() + ": weights file not found");
    if (!std::filesystem::is_regular_file(status))
        throw std::runtime_error(path.string() + ": not a regular file, so not a weights file");
    // The largest valid file: header, the longest provenance, the tensor table, the values and
    // the CRC. Nothing larger is read (a weights "file" of /dev/zero or a video stops here).
    const uint64_t max_bytes = sizeof kCnnWeightsMagic + 12 + kMaxProvenanceBytes +
                               kCnnTensors.size() * kTableEntryBytes + 4 * kCnnParameterCount + 4;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw std::runtime_error(path.string() + ": cannot read the weights file (" + ec.message() + ")");
    if (size > max_bytes)
        throw std::runtime_error(path.string() + ": is " + std::to_string(size) +
                                 " bytes, more than any weights file (" + std::to_string(max_bytes) + " at most)");
    std::ifstream in(path, std::ios::binary);
    if (!in || fault_injected(Fault::AssetOpen))  // (a test can make this fail: fault_injection.h)
        throw std::runtime_error(path.string() + ": cannot open the weights file");
    std::string bytes(size_t(size), '\0');
    if (!in.read(bytes.data(), std::streamsize(size)))
        throw std::runtime_error(path.string() + ": cannot read the weights file");
    return cnn_weights_from_bytes(bytes, path.string(), provenance);
}

std::filesystem::path cnn_default_weights_path() {
    // Looked up file by file, not by directory: build/bin/assets is copied only when
    // `mandelscope` is relinked, so it may lack the file while the source tree has it.
    const std::filesystem::path relative = std::filesystem::path("cnn") / "fashion_mnist.msw";
    try {
        return find_data_file("assets", relative);
    } catch (const std::runtime_error&) {
        return data_dir_candidates("assets").front() / relative;  // the reader says it is missing
    }
}

}  // namespace ms
