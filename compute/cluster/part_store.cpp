// part_store.cpp: part_store.h's files. Header of a piece file: "MSPART1\n", the key's hash, the
// piece's first unit and count, and the payload's length (little-endian integers), then the
// payload.
#include "compute/cluster/part_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace ms {

namespace {

constexpr char kMagic[8] = {'M', 'S', 'P', 'A', 'R', 'T', '1', '\n'};

struct PieceHeader {
    char magic[8];
    uint64_t key_hash;
    int64_t first;
    int64_t count;
    uint64_t bytes;
};

uint64_t fnv1a(const std::string& text) {
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    return hash;
}

std::string piece_name(ClusterPiece piece) {
    return "piece-" + std::to_string(piece.first) + "-" + std::to_string(piece.count) + ".part";
}

bool read_header(const std::filesystem::path& path, PieceHeader* header) {
    std::ifstream in(path, std::ios::binary);
    return in.read(reinterpret_cast<char*>(header), sizeof *header) && std::memcmp(header->magic, kMagic, 8) == 0;
}

void write_all(int fd, const void* data, size_t bytes, const std::filesystem::path& path) {
    const char* at = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, at, bytes);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error("could not write " + path.string() + ": " + std::strerror(errno));
        }
        at += n;
        bytes -= size_t(n);
    }
}

}  // namespace

std::filesystem::path part_store_dir_for(const std::filesystem::path& output) {
    return output.string() + ".parts";
}

PartStore part_store_open(const std::filesystem::path& dir, const std::string& key) {
    PartStore store{dir, fnv1a(key)};
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw std::runtime_error("could not make the folder " + dir.string() + ": " + error.message());
    // Pieces of another key (another command) and unfinished temporaries go.
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        PieceHeader header;
        const std::string name = entry.path().filename().string();
        if (name.rfind("piece-", 0) != 0) continue;
        if (name.size() < 5 || name.substr(name.size() - 5) != ".part" || !read_header(entry.path(), &header) ||
            header.key_hash != store.key_hash)
            std::filesystem::remove(entry.path(), error);
    }
    return store;
}

std::vector<ClusterPiece> part_store_list(const PartStore& store) {
    std::vector<ClusterPiece> pieces;
    if (store.dir.empty()) return pieces;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(store.dir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("piece-", 0) != 0 || name.size() < 5 || name.substr(name.size() - 5) != ".part") continue;
        PieceHeader header;
        if (!read_header(entry.path(), &header) || header.key_hash != store.key_hash) continue;
        const ClusterPiece piece{int(header.first), int(header.count)};
        if (entry.path().filename() != piece_name(piece)) continue;
        if (entry.file_size(error) != sizeof header + header.bytes) continue;
        pieces.push_back(piece);
    }
    std::sort(pieces.begin(), pieces.end(), [](ClusterPiece a, ClusterPiece b) { return a.first < b.first; });
    return pieces;
}

std::vector<uint8_t> part_store_read(const PartStore& store, ClusterPiece piece) {
    const std::filesystem::path path = store.dir / piece_name(piece);
    std::ifstream in(path, std::ios::binary);
    PieceHeader header;
    if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || std::memcmp(header.magic, kMagic, 8) != 0)
        throw std::runtime_error("the finished piece " + path.string() + " cannot be read");
    std::vector<uint8_t> bytes(size_t(header.bytes));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
        throw std::runtime_error("the finished piece " + path.string() + " is shorter than its header says");
    return bytes;
}

void part_store_write(const PartStore& store, ClusterPiece piece, const std::vector<uint8_t>& bytes) {
    if (store.dir.empty()) return;
    const std::filesystem::path path = store.dir / piece_name(piece);
    const std::filesystem::path temporary = path.string() + ".tmp";
    PieceHeader header{};
    std::memcpy(header.magic, kMagic, 8);
    header.key_hash = store.key_hash;
    header.first = piece.first;
    header.count = piece.count;
    header.bytes = bytes.size();
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("could not write " + temporary.string() + ": " + std::strerror(errno));
    try {
        write_all(fd, &header, sizeof header, temporary);
        write_all(fd, bytes.data(), bytes.size(), temporary);
        if (::fsync(fd) != 0) throw std::runtime_error("could not write " + temporary.string() + ": " + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    ::close(fd);
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
        throw std::runtime_error("could not write " + path.string() + ": " + std::strerror(errno));
}

void part_store_remove(const PartStore& store) {
    if (store.dir.empty()) return;
    std::error_code error;
    std::filesystem::remove_all(store.dir, error);
}

PartStoreWriter::PartStoreWriter(PartStore store, size_t max_waiting_bytes)
    : store_(std::move(store)), max_waiting_bytes_(max_waiting_bytes) {
    if (!store_.dir.empty()) thread_ = std::thread([this] { run(); });
}

PartStoreWriter::~PartStoreWriter() { stop_thread(); }

void PartStoreWriter::stop_thread() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void PartStoreWriter::put(ClusterPiece piece, std::shared_ptr<const std::vector<uint8_t>> bytes) {
    if (store_.dir.empty()) return;
    std::unique_lock<std::mutex> lock(mutex_);
    // One piece larger than the bound still goes in, alone.
    changed_.wait(lock, [&] {
        return failure_ || waiting_.empty() || waiting_bytes_ + bytes->size() <= max_waiting_bytes_;
    });
    if (failure_) std::rethrow_exception(failure_);
    waiting_bytes_ += bytes->size();
    waiting_.emplace_back(piece, std::move(bytes));
    changed_.notify_all();
}

void PartStoreWriter::flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return failure_ || (waiting_.empty() && !writing_); });
    if (failure_) std::rethrow_exception(failure_);
}

void PartStoreWriter::drop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [piece, bytes] : waiting_) waiting_bytes_ -= bytes->size();
        waiting_.clear();
    }
    stop_thread();
}

void PartStoreWriter::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
        if (waiting_.empty() || failure_) return;  // stopping, with nothing left it can write
        auto [piece, bytes] = std::move(waiting_.front());
        waiting_.pop_front();
        writing_ = true;
        lock.unlock();
        std::exception_ptr failure;
        try {
            part_store_write(store_, piece, *bytes);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        writing_ = false;
        waiting_bytes_ -= bytes->size();
        if (failure && !failure_) failure_ = failure;
        changed_.notify_all();
    }
}

}  // namespace ms
