// video_segments.cpp: segment files and the parts folder (video_segments.h).
#include "compute/video/video_segments.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "compute/io/image_io.h"

namespace ms {

namespace {

constexpr char kMagic[8] = {'M', 'S', 'V', 'S', 'E', 'G', '1', '\n'};

template <typename T>
void put(std::vector<uint8_t>* out, T value) {
    const size_t at = out->size();
    out->resize(at + sizeof value);
    std::memcpy(out->data() + at, &value, sizeof value);
}

template <typename T>
bool get(const std::vector<uint8_t>& in, size_t* at, T* value) {
    if (in.size() - *at < sizeof(T)) return false;
    std::memcpy(value, in.data() + *at, sizeof(T));
    *at += sizeof(T);
    return true;
}

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

}  // namespace

std::filesystem::path segment_path(const std::filesystem::path& parts, int64_t segment) {
    char name[40];
    std::snprintf(name, sizeof name, "segment-%06lld.seg", (long long)segment);
    return parts / name;
}

void write_segment(const std::filesystem::path& path, const EncodedSegment& segment) {
    std::vector<uint8_t> head(kMagic, kMagic + 8);
    put(&head, uint32_t(segment.header.size()));
    head.insert(head.end(), segment.header.begin(), segment.header.end());
    AtomicFile file(path);
    file.write(head.data(), head.size());
    for (const EncodedPacket& p : segment.packets) {
        std::vector<uint8_t> fields;
        put(&fields, p.pts);
        put(&fields, p.dts);
        put(&fields, p.flags);
        put(&fields, uint32_t(p.data.size()));
        file.write(fields.data(), fields.size());
        file.write(p.data.data(), p.data.size());
    }
    file.commit();
}

EncodedSegment read_segment(const std::filesystem::path& path) {
    // The whole file in one read: a 1080p segment is tens of megabytes, which the mux reads while
    // the video renders and, for what it waited on, after.
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error("cannot read the video part " + quoted(path));
    std::vector<uint8_t> bytes(size_t(std::max<std::streamoff>(in.tellg(), 0)));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
        throw std::runtime_error("cannot read the video part " + quoted(path));
    const std::runtime_error broken("the video part " + quoted(path) + " is not a whole segment");
    if (bytes.size() < 12 || std::memcmp(bytes.data(), kMagic, 8) != 0) throw broken;
    size_t at = 8;
    uint32_t header_size = 0;
    if (!get(bytes, &at, &header_size) || bytes.size() - at < header_size) throw broken;
    EncodedSegment segment;
    segment.header.assign(bytes.begin() + long(at), bytes.begin() + long(at + header_size));
    at += header_size;
    while (at < bytes.size()) {
        EncodedPacket p;
        uint32_t size = 0;
        if (!get(bytes, &at, &p.pts) || !get(bytes, &at, &p.dts) || !get(bytes, &at, &p.flags) ||
            !get(bytes, &at, &size) || bytes.size() - at < size)
            throw broken;
        p.data.assign(bytes.begin() + long(at), bytes.begin() + long(at + size));
        at += size;
        segment.packets.push_back(std::move(p));
    }
    return segment;
}

std::vector<bool> prepare_parts(const std::filesystem::path& parts, const std::string& job_key, int64_t segment_count) {
    std::error_code ec;
    std::filesystem::create_directories(parts, ec);
    if (ec) throw std::runtime_error("cannot create the folder " + quoted(parts) + ": " + ec.message());
    const std::filesystem::path job_file = parts / "job";
    std::string kept;
    {
        std::ifstream in(job_file, std::ios::binary);
        kept.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    const bool same_job = kept == job_key;
    // Temporary files of a killed run (AtomicFile's ".NAME.tmp-XXXXXX"), and another job's parts.
    for (const auto& entry : std::filesystem::directory_iterator(parts, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(".", 0) == 0 || (!same_job && name != "job")) std::filesystem::remove(entry.path(), ec);
    }
    if (!same_job) {
        AtomicFile file(job_file);
        file.write(job_key.data(), job_key.size());
        file.commit();
    }
    std::vector<bool> done(size_t(segment_count), false);
    for (int64_t s = 0; s < segment_count; ++s)
        done[size_t(s)] = std::filesystem::is_regular_file(segment_path(parts, s));
    return done;
}

}  // namespace ms
