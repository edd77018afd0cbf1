// test_scale_bench.cpp: figures for docs/scale.md, as DISABLED_ tests (never run by CTest; run by
// hand). Prints, asserts only that the runs completed and round-tripped.
//   build/bin/test_scale_bench --gtest_also_run_disabled_tests --gtest_filter='*ReferencePack*'
//       (MANDELSCOPE_SCALE_BENCH_LOCATIONS=e1086,e10000 chooses the locations; each orbit runs
//       the location's full iterations, not stopped at a period: what a broadcast sends at most)
//   build/bin/test_scale_bench --gtest_also_run_disabled_tests --gtest_filter='*QueueTable*'
//       (MANDELSCOPE_SCALE_BENCH_RUNS=20 seeds a row)
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "compute/scale/queue_simulation.h"
#include "compute/scale/reference_pack.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> names;
    std::stringstream stream(text);
    for (std::string name; std::getline(stream, name, ',');) names.push_back(name);
    return names;
}

}  // namespace

// Per location: the orbit's memory, each packing's bytes and times (the best of three), and the
// broadcast's time at 10, 25 and 100 Gb/s over a binomial tree of 10 and 100 ranks
// (ceil(log2 P) steps of the whole message) and over scatter-allgather (about 2 n / B, whatever P:
// what MPI libraries use for large messages).
TEST(ScaleBench, DISABLED_ReferencePack) {
    const char* env = std::getenv("MANDELSCOPE_SCALE_BENCH_LOCATIONS");
    for (const std::string& name : split(env ? env : "e1086,e10000")) {
        const DeepLocation location = test::load_location(name);
        const int64_t bits = deep_reference_precision_bits(location.zoom, 1080);
        auto start = std::chrono::steady_clock::now();
        const auto orbit = compute_reference_orbit(location.center_re, location.center_im, bits,
                                                   location.max_iterations, {}, orbit_map(location));
        const double orbit_ms = ms_since(start);
        ASSERT_TRUE(orbit);
        const size_t values = orbit->z.size() + orbit->critical_z.size();
        const size_t memory = values * (sizeof(DeepComplex<double>) + sizeof(DeepComplex<FloatExp>));
        std::printf("%s: %lld iterations asked, %zu values (escaped %d), %lld bits, orbit %.0f ms on one thread; "
                    "%zu bytes in memory (48 a value), centre text %zu + %zu characters\n",
                    name.c_str(), (long long)location.max_iterations, values, int(orbit->escaped),
                    (long long)bits, orbit_ms, memory, orbit->center_re.size(), orbit->center_im.size());
        struct Variant {
            const char* name;
            ReferencePackOptions options;
        };
        const Variant variants[] = {
            {"plain", {.compress = false, .shuffle = false}},
            {"zlib 1", {.compress = true, .zlib_level = 1, .shuffle = false}},
            {"planes + zlib 1", {.compress = true, .zlib_level = 1, .shuffle = true}},
            {"planes + zlib 6", {.compress = true, .zlib_level = 6, .shuffle = true}},
        };
        std::printf("| packing | bytes | bytes a value | pack ms | unpack ms | 10 Gb/s ms | 25 Gb/s ms | 100 Gb/s ms |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        size_t plain_bytes = 0;
        for (const Variant& variant : variants) {
            double pack_ms = 1e30, unpack_ms = 1e30;
            std::vector<uint8_t> bytes;
            ReferenceOrbit back;
            for (int round = 0; round < 3; ++round) {
                start = std::chrono::steady_clock::now();
                bytes = pack_reference_orbit(*orbit, variant.options);
                pack_ms = std::min(pack_ms, ms_since(start));
                start = std::chrono::steady_clock::now();
                ASSERT_EQ(unpack_reference_orbit(bytes.data(), bytes.size(), &back), "");
                unpack_ms = std::min(unpack_ms, ms_since(start));
            }
            ASSERT_TRUE(reference_orbits_identical(*orbit, back));
            if (plain_bytes == 0) plain_bytes = bytes.size();
            auto wire_ms = [&](double gbit) { return double(bytes.size()) * 8.0 / (gbit * 1e9) * 1e3; };
            std::printf("| %s | %zu | %.2f | %.1f | %.1f | %.2f | %.2f | %.2f |\n", variant.name, bytes.size(),
                        double(bytes.size()) / double(values), pack_ms, unpack_ms, wire_ms(10), wire_ms(25),
                        wire_ms(100));
        }
        std::printf("broadcast of the plain %zu bytes (ms): ", plain_bytes);
        for (double gbit : {10.0, 25.0, 100.0}) {
            const double one = double(plain_bytes) * 8.0 / (gbit * 1e9) * 1e3;
            std::printf("%g Gb/s: tree P=10 %.1f, P=100 %.1f, scatter-allgather %.1f; ", gbit,
                        std::ceil(std::log2(10.0)) * one, std::ceil(std::log2(100.0)) * one, 2.0 * one);
        }
        std::printf("\n\n");
        std::fflush(stdout);
    }
}

TEST(ScaleBench, DISABLED_QueueTable) {
    const char* env = std::getenv("MANDELSCOPE_SCALE_BENCH_RUNS");
    const int runs = env ? std::max(1, std::atoi(env)) : 20;
    for (const std::string& line : queue_simulation_table(4096, runs)) std::printf("%s\n", line.c_str());
}

// Rank 0's load: what one take() costs here (the lock and the piece size; an MPI message's
// handling comes on top), and in the simulation how many requests rank 0 answers and how busy
// it is at 20 us a request, for 10 to 3,200 workers (100 hosts of 8 GPUs are 800 ranks) on
// 4,096 bands and on 65,536 rows.
TEST(ScaleBench, DISABLED_Rank0Load) {
    {
        const int64_t items = 10000000;
        WorkQueue queue({.items = items, .workers = 100, .fixed_piece = 1});
        const auto start = std::chrono::steady_clock::now();
        int64_t taken = 0;
        for (WorkPiece piece = queue.take(); !piece.empty(); piece = queue.take()) taken += piece.count;
        const double ns = ms_since(start) * 1e6 / double(items);
        ASSERT_EQ(taken, items);
        std::printf("WorkQueue::take, one thread, uncontended: %.0f ns a piece\n", ns);
    }
    std::printf("| workers | items | requests | rank 0 busy | makespan/ideal |\n|---:|---:|---:|---:|---:|\n");
    for (int64_t items : {int64_t(4096), int64_t(65536)}) {
        for (int workers : {10, 100, 800, 3200}) {
            QueueSimulationDesc desc;
            desc.hosts = workers;
            desc.items = items;
            desc.item_seconds = 4096.0 / double(items);  // the same poster either way
            desc.min_speed = 0.5;
            desc.max_speed = 2.0;
            desc.request_seconds = 0.001;
            desc.serve_seconds = 0.00002;
            const QueueSimulationResult r = simulate_queue(desc);
            ASSERT_TRUE(r.every_item_once());
            std::printf("| %d | %lld | %lld | %.2f%% | %.3f |\n", workers, (long long)items, (long long)r.pieces,
                        100.0 * r.busiest_serve_fraction, r.ratio());
        }
    }
}
