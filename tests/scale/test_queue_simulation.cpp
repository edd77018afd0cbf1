// test_queue_simulation.cpp: compute/scale/queue_simulation.h. A hundred hosts of speeds 0.5x to
// 2x pull guided pieces from one WorkQueue in simulated time, with failures mid-piece and
// stragglers injected: every item finishes exactly once, and the run ends within its bound of the
// ideal (total work / total speed + one longest piece, plus what failures and requests cost).
// Fixed-size pieces run beside them for comparison (printed; the table is docs/scale.md's).
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/scale/queue_simulation.h"

using namespace ms;

namespace {

QueueSimulationDesc unequal_hosts(int hosts) {
    QueueSimulationDesc desc;
    desc.hosts = hosts;
    desc.items = 4096;
    desc.min_speed = 0.5;
    desc.max_speed = 2.0;
    desc.request_seconds = 0.001;
    desc.serve_seconds = 0.00002;
    desc.seed = 7;
    return desc;
}

void print(const char* what, const QueueSimulationResult& r) {
    std::printf("%-34s pieces %5lld failures %2lld (late %lld) redone %4lld  makespan %7.2f  ideal %7.2f  ratio %.3f  "
                "bound %7.2f\n",
                what, (long long)r.pieces, (long long)r.failures, (long long)r.late_failures,
                (long long)r.items_redone, r.makespan_seconds, r.ideal_seconds, r.ratio(), r.bound_seconds);
}

}  // namespace

// No latency, no failures, equal speeds: the textbook bound, ideal + one piece.
TEST(QueueSimulation, EqualHostsEndWithinOnePieceOfIdeal) {
    QueueSimulationDesc desc;
    desc.hosts = 10;
    desc.items = 1000;
    const QueueSimulationResult r = simulate_queue(desc);
    print("10 equal hosts", r);
    ASSERT_TRUE(r.completed);
    EXPECT_TRUE(r.every_item_once());
    EXPECT_DOUBLE_EQ(r.ideal_seconds, 100.0);
    EXPECT_LE(r.makespan_seconds, r.ideal_seconds + r.max_piece_seconds);
    EXPECT_DOUBLE_EQ(r.lost_seconds, 0.0);
}

TEST(QueueSimulation, UnequalHostsEndWithinTheBound) {
    for (int hosts : {10, 100}) {
        const QueueSimulationResult r = simulate_queue(unequal_hosts(hosts));
        print(hosts == 10 ? "10 hosts 0.5-2x, guided k=4" : "100 hosts 0.5-2x, guided k=4", r);
        ASSERT_TRUE(r.completed);
        EXPECT_TRUE(r.every_item_once());
        EXPECT_EQ(r.failures, 0);
        EXPECT_LE(r.makespan_seconds, r.bound_seconds);
        // Without failures the bound is the ideal, the requests' share and one longest piece.
        EXPECT_LE(r.bound_seconds, r.ideal_seconds + r.max_piece_seconds + 0.01 * r.ideal_seconds);
    }
}

// Failures mid-piece (detected after 10 s, hosts back after 20 s, or never) and stragglers
// (a 5 s stall every 100 s of work): every item still finishes once, within the bound.
TEST(QueueSimulation, FailuresAndDelaysStillFinishEveryItemOnce) {
    for (double restart : {20.0, -1.0}) {
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            QueueSimulationDesc desc = unequal_hosts(100);
            desc.seed = seed;
            desc.mean_seconds_between_failures = 300.0;
            desc.detect_seconds = 10.0;
            desc.restart_seconds = restart;
            desc.mean_seconds_between_delays = 100.0;
            desc.delay_seconds = 5.0;
            const QueueSimulationResult r = simulate_queue(desc);
            if (seed == 1) print(restart < 0 ? "100 hosts, failed hosts lost" : "100 hosts, failed hosts back", r);
            ASSERT_TRUE(r.completed) << "seed " << seed;
            EXPECT_TRUE(r.every_item_once()) << "seed " << seed;
            EXPECT_GT(r.failures, 0) << "seed " << seed;
            EXPECT_GT(r.items_redone, 0) << "seed " << seed;
            EXPECT_GT(r.delays, 0) << "seed " << seed;
            EXPECT_LE(r.makespan_seconds, r.bound_seconds) << "seed " << seed;
        }
    }
}

// Every host lost before the end: the run cannot complete, and says so.
TEST(QueueSimulation, AllHostsLostDoesNotComplete) {
    QueueSimulationDesc desc = unequal_hosts(3);
    desc.mean_seconds_between_failures = 1.0;
    desc.restart_seconds = -1.0;
    const QueueSimulationResult r = simulate_queue(desc);
    EXPECT_FALSE(r.completed);
    EXPECT_EQ(r.failures, 3);
    EXPECT_FALSE(r.every_item_once());
}

// Guided pieces against fixed ones at 100 unequal hosts: the guided run makes far fewer requests
// than one-item pieces, and ends no later than one equal share per host (whose slowest host
// sets the end).
TEST(QueueSimulation, GuidedAgainstFixedPieces) {
    const QueueSimulationResult guided = simulate_queue(unequal_hosts(100));
    QueueSimulationDesc one = unequal_hosts(100);
    one.queue.fixed_piece = 1;
    QueueSimulationDesc share = unequal_hosts(100);
    share.queue.fixed_piece = (share.items + 99) / 100;
    const QueueSimulationResult ones = simulate_queue(one);
    const QueueSimulationResult shares = simulate_queue(share);
    print("guided k=4", guided);
    print("fixed 1", ones);
    print("fixed items/hosts", shares);
    EXPECT_TRUE(ones.every_item_once());
    EXPECT_TRUE(shares.every_item_once());
    EXPECT_LT(guided.pieces * 3, ones.pieces);
    EXPECT_LT(guided.makespan_seconds, shares.makespan_seconds);
}

TEST(QueueSimulation, SameSeedSameRun) {
    QueueSimulationDesc desc = unequal_hosts(50);
    desc.mean_seconds_between_failures = 200.0;
    desc.detect_seconds = 3.0;
    desc.restart_seconds = 20.0;
    const QueueSimulationResult a = simulate_queue(desc);
    const QueueSimulationResult b = simulate_queue(desc);
    EXPECT_EQ(a.makespan_seconds, b.makespan_seconds);
    EXPECT_EQ(a.pieces, b.pieces);
    EXPECT_EQ(a.failures, b.failures);
}

// The table docs/scale.md shows (4096 items: the 16-row bands of a 65536-row poster; 20 seeds a
// row). Every run of it finishes every item once within its bound.
TEST(QueueSimulation, Table) {
    const std::vector<std::string> lines = queue_simulation_table(4096, 20);
    EXPECT_EQ(lines.size(), 2u + 2 * 3 * 7);
    for (const std::string& line : lines) {
        std::printf("%s\n", line.c_str());
        EXPECT_EQ(line.find("NO"), std::string::npos) << line;
    }
}
