// test_work_queue.cpp: compute/scale/work_queue.h. Every item goes out exactly once (with and
// without hand-backs, after a resume), in order; guided pieces shrink towards the end and never
// fall below min_piece; several threads share one queue without losing or repeating an item; the
// finished-items record reads back from its text.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "compute/scale/work_queue.h"

using namespace ms;

namespace {

// Takes every piece (no hand-backs) and returns them in order.
std::vector<WorkPiece> drain(WorkQueue* queue) {
    std::vector<WorkPiece> pieces;
    for (WorkPiece piece = queue->take(); !piece.empty(); piece = queue->take()) pieces.push_back(piece);
    return pieces;
}

}  // namespace

TEST(WorkQueue, EveryItemOnceInOrder) {
    WorkQueue queue({.items = 1000, .workers = 4});
    const std::vector<WorkPiece> pieces = drain(&queue);
    int64_t next = 0;
    for (const WorkPiece& piece : pieces) {
        EXPECT_EQ(piece.first, next);
        EXPECT_GT(piece.count, 0);
        next = piece.end();
    }
    EXPECT_EQ(next, 1000);
    EXPECT_EQ(queue.remaining(), 0);
    EXPECT_EQ(queue.pieces_handed_out(), int64_t(pieces.size()));
    EXPECT_FALSE(queue.finished());  // handed out is not finished
    for (const WorkPiece& piece : pieces) EXPECT_EQ(queue.finish(piece), piece.count);
    EXPECT_TRUE(queue.finished());
}

TEST(WorkQueue, GuidedPiecesShrinkToTheMinimum) {
    const int64_t items = 10000;
    const int workers = 8;
    WorkQueue queue({.items = items, .workers = workers, .min_piece = 4, .shrink_factor = 2.0});
    const std::vector<WorkPiece> pieces = drain(&queue);
    ASSERT_GT(pieces.size(), 10u);
    // The first piece is remaining / (k x workers), rounded up.
    EXPECT_EQ(pieces.front().count, (items + 2 * workers - 1) / (2 * workers));
    for (size_t i = 1; i < pieces.size(); ++i) {
        EXPECT_LE(pieces[i].count, pieces[i - 1].count) << "piece " << i;
        if (i + 1 < pieces.size()) {
            EXPECT_GE(pieces[i].count, 4) << "piece " << i;
        }
    }
    EXPECT_EQ(pieces[pieces.size() - 2].count, 4);
    EXPECT_LT(pieces.back().count * 100, pieces.front().count);
}

TEST(WorkQueue, FixedAndCappedPieces) {
    WorkQueue fixed({.items = 103, .workers = 4, .fixed_piece = 10});
    const std::vector<WorkPiece> pieces = drain(&fixed);
    ASSERT_EQ(pieces.size(), 11u);
    for (size_t i = 0; i + 1 < pieces.size(); ++i) EXPECT_EQ(pieces[i].count, 10);
    EXPECT_EQ(pieces.back().count, 3);

    WorkQueue capped({.items = 1000, .workers = 1, .max_piece = 50});
    for (const WorkPiece& piece : drain(&capped)) EXPECT_LE(piece.count, 50);
}

TEST(WorkQueue, HandedBackItemsGoOutFirstAndOnce) {
    WorkQueue queue({.items = 500, .workers = 3, .min_piece = 2});
    std::vector<int> handed(500, 0);
    std::vector<int> finished(500, 0);
    int turn = 0;
    int backs = 0;
    for (WorkPiece piece = queue.take(); !piece.empty(); piece = queue.take(), ++turn) {
        for (int64_t i = piece.first; i < piece.end(); ++i) ++handed[size_t(i)];
        if (turn % 3 == 1) {  // this worker fails: the whole piece comes back
            queue.give_back(piece);
            ++backs;
            const WorkPiece again = queue.take();
            EXPECT_EQ(again.first, piece.first) << "a handed-back piece goes out before new items";
            for (int64_t i = again.first; i < again.end(); ++i) ++handed[size_t(i)];
            // The retry finishes; any part of the piece beyond the retry's size follows next.
            queue.finish(again);
            for (int64_t i = again.first; i < again.end(); ++i) ++finished[size_t(i)];
            continue;
        }
        if (turn % 5 == 2 && piece.count > 1) {  // fails halfway: the back half comes back
            const WorkPiece done{piece.first, piece.count / 2};
            queue.finish(done);
            for (int64_t i = done.first; i < done.end(); ++i) ++finished[size_t(i)];
            queue.give_back({done.end(), piece.count - done.count});
            ++backs;
            continue;
        }
        queue.finish(piece);
        for (int64_t i = piece.first; i < piece.end(); ++i) ++finished[size_t(i)];
    }
    EXPECT_GT(backs, 10);
    for (int i = 0; i < 500; ++i) EXPECT_EQ(finished[size_t(i)], 1) << "item " << i;
    EXPECT_TRUE(queue.finished());
    EXPECT_EQ(queue.remaining(), 0);
}

TEST(WorkQueue, FinishingTwiceCountsOnce) {
    WorkQueue queue({.items = 10, .workers = 1});
    const WorkPiece piece = queue.take();
    EXPECT_EQ(queue.finish(piece), piece.count);
    EXPECT_EQ(queue.finish(piece), 0);
    EXPECT_EQ(queue.finished_count(), piece.count);
}

TEST(WorkQueue, ResumeSkipsFinishedItems) {
    FinishedItems done;
    ASSERT_EQ(FinishedItems::parse("0-9,15,40-99", 100, &done), "");
    EXPECT_EQ(done.count(), 10 + 1 + 60);
    WorkQueue queue({.items = 100, .workers = 2, .min_piece = 3}, &done);
    EXPECT_EQ(queue.remaining(), 29);
    EXPECT_EQ(queue.finished_count(), 71);
    std::vector<int> handed(100, 0);
    for (const WorkPiece& piece : drain(&queue)) {
        for (int64_t i = piece.first; i < piece.end(); ++i) ++handed[size_t(i)];
        queue.finish(piece);
    }
    for (int i = 0; i < 100; ++i) EXPECT_EQ(handed[size_t(i)], done.contains(i) ? 0 : 1) << "item " << i;
    EXPECT_TRUE(queue.finished());

    FinishedItems mismatched(50);
    EXPECT_THROW(WorkQueue({.items = 100}, &mismatched), std::invalid_argument);
}

TEST(WorkQueue, FinishedItemsText) {
    FinishedItems record(20);
    EXPECT_EQ(record.to_text(), "");
    record.mark({0, 3});
    record.mark({5, 1});
    record.mark({18, 2});
    EXPECT_EQ(record.to_text(), "0-2,5,18-19");
    FinishedItems back;
    ASSERT_EQ(FinishedItems::parse(record.to_text(), 20, &back), "");
    EXPECT_EQ(back.to_text(), record.to_text());
    EXPECT_EQ(back.count(), 6);
    EXPECT_NE(FinishedItems::parse("3-1", 20, &back), "");
    EXPECT_NE(FinishedItems::parse("0-20", 20, &back), "");
    EXPECT_NE(FinishedItems::parse("a", 20, &back), "");
    EXPECT_NE(FinishedItems::parse("1,,2", 20, &back), "");
    EXPECT_EQ(FinishedItems::parse("", 20, &back), "");
    EXPECT_EQ(back.count(), 0);
}

// Four threads take, sometimes hand back, and finish; every item is finished exactly once.
TEST(WorkQueue, ThreadsShareOneQueue) {
    const int64_t items = 200000;
    const int threads = 4;
    WorkQueue queue({.items = items, .workers = threads, .min_piece = 16});
    std::vector<std::atomic<int>> finished(static_cast<size_t>(items));
    for (auto& count : finished) count.store(0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            int turn = 0;
            while (!queue.finished()) {
                const WorkPiece piece = queue.take();
                if (piece.empty()) {
                    std::this_thread::yield();  // others' pieces may still come back
                    continue;
                }
                if (++turn % 7 == t) {
                    queue.give_back(piece);
                    continue;
                }
                for (int64_t i = piece.first; i < piece.end(); ++i) finished[size_t(i)].fetch_add(1);
                queue.finish(piece);
            }
        });
    }
    for (std::thread& thread : pool) thread.join();
    int64_t wrong = 0;
    for (int64_t i = 0; i < items; ++i) wrong += finished[size_t(i)].load() != 1;
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(queue.finished_count(), items);
}
