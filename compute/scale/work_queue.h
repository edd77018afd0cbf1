// work_queue.h: hands out a range of items (rows or bands of an image, frames or segments of a
// video) to workers in pieces, and records which items are finished.
//
// Guided self-scheduling (Polychronopoulos and Kuck, 1987): each request takes
//     max(min_piece, ceil(remaining / (shrink_factor x workers)))
// items, so the first pieces are large (few requests) and the last ones small (the workers end
// together: the slowest holds at most a small piece when the queue runs dry). Items go out in
// order, so output written as it streams in stays close to sequential. A piece a failed worker
// hands back goes out again before any new item. Items finished on an earlier run (a resume
// record, FinishedItems) are never handed out.
//
// One mutex guards the queue: workers are threads of one process, or rank 0 serving the
// requests of other ranks (compute/cluster/); a request costs a lock and a few compares, far
// below the work of the smallest piece.
//
//   WorkQueue queue({.items = height, .workers = threads});
//   for (WorkPiece piece = queue.take(); !piece.empty(); piece = queue.take()) {
//       if (render(piece)) queue.finish(piece); else queue.give_back(piece);
//   }
// take() returns an empty piece once nothing is left to hand out now; pieces still out may yet
// be handed back, so a worker that must wait for those calls take() again after them
// (finished() says when every item is done).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace ms {

// Items [first, first + count).
struct WorkPiece {
    int64_t first = 0;
    int64_t count = 0;
    bool empty() const { return count <= 0; }
    int64_t end() const { return first + count; }
};

// Which items of [0, items) are finished: the record a resumed run starts from. Its text form
// lists the finished ranges, "0-99,120,130-131" (inclusive ends), empty when none.
class FinishedItems {
public:
    FinishedItems() = default;
    explicit FinishedItems(int64_t items) : done_(size_t(items), false) {}

    int64_t items() const { return int64_t(done_.size()); }
    int64_t count() const { return count_; }
    bool all() const { return count_ == items(); }
    bool contains(int64_t item) const { return done_[size_t(item)]; }
    // Marks the piece's items; returns how many were not finished before.
    int64_t mark(WorkPiece piece);

    std::string to_text() const;
    // Empty string on success, else one sentence (a range outside [0, items), a bad number).
    static std::string parse(const std::string& text, int64_t items, FinishedItems* out);

private:
    std::vector<bool> done_;
    int64_t count_ = 0;
};

// Zero-initialised fields mean "use the default", written beside each.
struct WorkQueueDesc {
    int64_t items = 0;           // the range [0, items)
    int workers = 1;             // workers sharing it (the pieces' size follows it); < 1: 1
    int64_t min_piece = 1;       // the smallest piece (only the last may be smaller); < 1: 1
    int64_t max_piece = 0;       // the largest piece; 0: no limit
    // k in remaining / (k x workers); <= 0: 4. Larger k: more, smaller pieces; 4 keeps a slow
    // host's first piece short enough at a hundred hosts of unequal speed (docs/scale.md).
    double shrink_factor = 4.0;
    // > 0: every piece this size instead (fixed-size chunks, the yardstick guided pieces are
    // measured against in queue_simulation.h).
    int64_t fixed_piece = 0;
};

class WorkQueue {
public:
    // finished: items done on an earlier run (its items() must equal desc.items); null: none.
    explicit WorkQueue(const WorkQueueDesc& desc, const FinishedItems* finished = nullptr);
    WorkQueue(const WorkQueue&) = delete;
    WorkQueue& operator=(const WorkQueue&) = delete;

    // The next piece: a handed-back one first (or its front part, at the current piece size),
    // else the next items in order. Empty when nothing is left to hand out now.
    WorkPiece take();
    // A failed worker's piece (or part of one): it goes out again before any new item.
    void give_back(WorkPiece piece);
    // The piece's items are done. Returns how many were not finished before: a piece finished
    // twice (a worker thought lost reports after all) counts once, and its caller drops it.
    int64_t finish(WorkPiece piece);

    // Items not yet handed out, handed-back ones included.
    int64_t remaining();
    // Whether every item is finished.
    bool finished();
    int64_t finished_count();
    FinishedItems finished_items();  // a copy, for a resume file
    int64_t pieces_handed_out();     // take() calls that returned a piece, hand-backs' included

private:
    int64_t piece_size_locked() const;
    WorkPiece take_from_locked(std::deque<WorkPiece>* ranges, int64_t size);

    WorkQueueDesc desc_;
    std::mutex mutex_;
    std::deque<WorkPiece> returned_;  // handed back, in the order they came
    std::deque<WorkPiece> fresh_;     // never handed out, in order (resume leaves gaps)
    int64_t remaining_ = 0;
    int64_t pieces_ = 0;
    FinishedItems finished_;
};

}  // namespace ms
