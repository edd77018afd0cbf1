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

#include <cstdint>
#include <filesystem>
#include <string>
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

}  // namespace ms
