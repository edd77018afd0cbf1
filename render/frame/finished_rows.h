// finished_rows.h: which rows of a frame buffer are finished, marked without a lock by the
// threads that computed them and taken by the UI thread, so rows reach the screen as they come
// without a mutex per job of rows or a copy of them (cpu_render_worker.cpp).
//
// The protocol (the owner holds a mutex that the UI takes around take_finished_rows):
//   1. the owner, holding the mutex, calls reset_finished_rows for a new frame: from then on
//      the UI reads none of the buffer's rows;
//   2. any thread writes rows of the buffer, then mark_finished_rows (a release store);
//   3. the UI, holding the mutex, calls take_finished_rows: each marked row (acquire load),
//      once, in runs of consecutive rows.
// A row is written only before it is marked and read only after, and the next frame's writes
// start after its reset, which waits for the UI's reads to end: no row is read while written.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace ms {

struct FinishedRows {
    std::unique_ptr<std::atomic<uint8_t>[]> state;  // per row: kRowPending, kRowFinished, kRowTaken
    int rows = 0;
};

inline constexpr uint8_t kRowPending = 0;
inline constexpr uint8_t kRowFinished = 1;
inline constexpr uint8_t kRowTaken = 2;

// Every row pending (allocated anew when the count changes). Nobody may read or mark meanwhile.
inline void reset_finished_rows(FinishedRows& f, int rows) {
    if (f.rows != rows) {
        f.state.reset(new std::atomic<uint8_t>[size_t(rows)]);
        f.rows = rows;
    }
    for (int y = 0; y < rows; ++y) f.state[size_t(y)].store(kRowPending, std::memory_order_relaxed);
}

// Rows [first, first + count) are written: from any thread, after writing them.
inline void mark_finished_rows(FinishedRows& f, int first, int count) {
    for (int y = first; y < first + count; ++y) f.state[size_t(y)].store(kRowFinished, std::memory_order_release);
}

// Calls take(first, count) for each run of rows marked since the last call, in order, and
// returns how many rows it handed over.
template <class Take>
int take_finished_rows(FinishedRows& f, Take take) {
    int taken = 0;
    for (int y = 0; y < f.rows;) {
        if (f.state[size_t(y)].load(std::memory_order_acquire) != kRowFinished) {
            ++y;
            continue;
        }
        int end = y + 1;
        while (end < f.rows && f.state[size_t(end)].load(std::memory_order_acquire) == kRowFinished) ++end;
        for (int r = y; r < end; ++r) f.state[size_t(r)].store(kRowTaken, std::memory_order_relaxed);
        take(y, end - y);
        taken += end - y;
        y = end;
    }
    return taken;
}

}  // namespace ms
