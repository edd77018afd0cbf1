// part_store.h: the finished pieces of a job kept beside its output (OUTPUT.parts/), so that a
// job that stops (a rank that dies, Ctrl-C, a node lost) resumes from them when the same
// command runs again, and so that shards rendered apart (--shard=I/N) are joined.
//
// A piece is a run of units (rows, or bands) [first, first + count) and its bytes: what a rank
// computed for it. Each is one file, piece-FIRST-COUNT.part, written to a temporary name and
// renamed, so a file present is complete. The store carries a key (the job's description:
// the view, the size, everything that decides the bytes); a store opened with another key is
// emptied, so a changed command never takes stale pieces. A file's header repeats the key's
// hash, its piece and its length, and one that does not match is ignored.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ms {

struct ClusterPiece {
    int first = 0;  // the first unit
    int count = 0;  // units
};

struct PartStore {
    std::filesystem::path dir;  // empty: no store (nothing kept)
    uint64_t key_hash = 0;
};

// OUTPUT.parts beside the output file.
std::filesystem::path part_store_dir_for(const std::filesystem::path& output);
// Creates the folder if needed; removes pieces of another key and unfinished ones. Throws
// std::runtime_error with a sentence when the folder cannot be made.
PartStore part_store_open(const std::filesystem::path& dir, const std::string& key);
// The complete pieces in the store, by first unit.
std::vector<ClusterPiece> part_store_list(const PartStore& store);
std::vector<uint8_t> part_store_read(const PartStore& store, ClusterPiece piece);
// Atomic: a temporary file, fsync, rename. Throws with a sentence on a failure.
void part_store_write(const PartStore& store, ClusterPiece piece, const std::vector<uint8_t>& bytes);
// The folder and everything in it (the job's output is complete).
void part_store_remove(const PartStore& store);

// part_store_write on a thread of its own, so that the caller (rank 0's thread that talks to the
// ranks and deflates the rows) goes on while the disk takes each piece and its fsync. Pieces
// wait in arrival order; put() waits while `max_waiting_bytes` of them wait already. A piece is
// in the store (and a rerun takes it) once its file is renamed; one still waiting when the
// process is killed is computed again.
class PartStoreWriter {
public:
    PartStoreWriter(PartStore store, size_t max_waiting_bytes);
    // Writes what still waits (a job that stops keeps every piece it has), then stops; a failure
    // there is not reported (the pieces it concerns are computed again by a rerun).
    ~PartStoreWriter();
    PartStoreWriter(const PartStoreWriter&) = delete;
    PartStoreWriter& operator=(const PartStoreWriter&) = delete;

    // Throws the sentence of an earlier piece's failure, if one failed.
    void put(ClusterPiece piece, std::shared_ptr<const std::vector<uint8_t>> bytes);
    // Waits until every piece put is in the store; throws the first failure.
    void flush();
    // The output is complete and the store is about to go: the pieces still waiting are not
    // written, and the one being written is finished.
    void drop();

private:
    void run();
    void stop_thread();

    PartStore store_;
    size_t max_waiting_bytes_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::pair<ClusterPiece, std::shared_ptr<const std::vector<uint8_t>>>> waiting_;
    size_t waiting_bytes_ = 0;
    bool writing_ = false;
    bool stopping_ = false;
    std::exception_ptr failure_;
    std::thread thread_;
};

}  // namespace ms
