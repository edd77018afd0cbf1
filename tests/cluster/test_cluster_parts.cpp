// test_cluster_parts.cpp: compute/cluster/'s pieces without MPI: the part store keeps finished
// pieces whole and only for their own key (a stale key, a temporary or a cut-short file never
// counts), unfinished_pieces leaves out what is finished, and the launch facts come from
// mpirun's environment (a process started by hand is rank 0 of 1). PartStoreWriter writes pieces
// whole on its own thread, within its bound, keeps them when the job stops, and names a piece it
// could not write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "compute/cluster/cluster.h"
#include "compute/cluster/cluster_job.h"
#include "compute/cluster/part_store.h"

namespace ms {
namespace {

std::filesystem::path scratch_dir(const char* name) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      (std::string("mandelscope-test-") + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir;
}

std::vector<uint8_t> bytes_of(int n, uint8_t seed) {
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) bytes[size_t(i)] = uint8_t(seed + i * 7);
    return bytes;
}

TEST(PartStore, KeepsPiecesWholeAndInOrder) {
    const std::filesystem::path dir = scratch_dir("parts");
    PartStore store = part_store_open(dir, "view A");
    part_store_write(store, {10, 5}, bytes_of(1000, 3));
    part_store_write(store, {0, 10}, bytes_of(0, 0));  // an empty piece is a piece
    part_store_write(store, {15, 1}, bytes_of(17, 9));
    const std::vector<ClusterPiece> pieces = part_store_list(store);
    ASSERT_EQ(pieces.size(), 3u);
    EXPECT_EQ(pieces[0].first, 0);
    EXPECT_EQ(pieces[0].count, 10);
    EXPECT_EQ(pieces[1].first, 10);
    EXPECT_EQ(pieces[2].first, 15);
    EXPECT_EQ(part_store_read(store, {10, 5}), bytes_of(1000, 3));
    EXPECT_TRUE(part_store_read(store, {0, 10}).empty());
    // The same key again keeps them; an unfinished temporary goes.
    std::ofstream(dir / "piece-20-4.part.tmp") << "half";
    store = part_store_open(dir, "view A");
    EXPECT_EQ(part_store_list(store).size(), 3u);
    EXPECT_FALSE(std::filesystem::exists(dir / "piece-20-4.part.tmp"));
    part_store_remove(store);
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(PartStore, AnotherKeyEmptiesTheStore) {
    const std::filesystem::path dir = scratch_dir("key");
    PartStore store = part_store_open(dir, "view A");
    part_store_write(store, {0, 4}, bytes_of(64, 1));
    store = part_store_open(dir, "view B");
    EXPECT_TRUE(part_store_list(store).empty());
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    part_store_remove(store);
}

TEST(PartStore, IgnoresACutShortPiece) {
    const std::filesystem::path dir = scratch_dir("short");
    PartStore store = part_store_open(dir, "view A");
    part_store_write(store, {0, 4}, bytes_of(64, 1));
    part_store_write(store, {4, 4}, bytes_of(64, 2));
    std::filesystem::resize_file(dir / "piece-4-4.part", std::filesystem::file_size(dir / "piece-4-4.part") - 1);
    const std::vector<ClusterPiece> pieces = part_store_list(store);
    ASSERT_EQ(pieces.size(), 1u);
    EXPECT_EQ(pieces[0].first, 0);
    part_store_remove(store);
}

// Pieces {i, 1} of `bytes` bytes each, bytes_of(bytes, i).
void put_one_unit_pieces(PartStoreWriter& writer, int count, int bytes) {
    for (int i = 0; i < count; ++i)
        writer.put({i, 1}, std::make_shared<const std::vector<uint8_t>>(bytes_of(bytes, uint8_t(i))));
}

TEST(PartStoreWriter, WritesEveryPieceWholeWithinItsBound) {
    const std::filesystem::path dir = scratch_dir("writer");
    PartStore store = part_store_open(dir, "view A");
    {
        // A bound of three pieces: put() waits for the disk, and every piece still lands.
        PartStoreWriter writer(store, 3000);
        for (int i = 0; i < 20; ++i)
            writer.put({i * 2, 2}, std::make_shared<const std::vector<uint8_t>>(bytes_of(1000, uint8_t(i))));
        writer.put({40, 1}, std::make_shared<const std::vector<uint8_t>>(bytes_of(5000, 99)));  // over the bound, alone
        writer.flush();
        const std::vector<ClusterPiece> pieces = part_store_list(store);
        ASSERT_EQ(pieces.size(), 21u);
        for (int i = 0; i < 20; ++i) {
            EXPECT_EQ(pieces[size_t(i)].first, i * 2);
            EXPECT_EQ(part_store_read(store, pieces[size_t(i)]), bytes_of(1000, uint8_t(i)));
        }
        EXPECT_EQ(part_store_read(store, {40, 1}), bytes_of(5000, 99));
    }
    part_store_remove(store);
}

TEST(PartStoreWriter, KeepsWhatWaitsWhenTheJobStops) {
    const std::filesystem::path dir = scratch_dir("writer-stop");
    PartStore store = part_store_open(dir, "view A");
    {
        PartStoreWriter writer(store, size_t(1) << 30);
        put_one_unit_pieces(writer, 8, 100000);
    }  // destroyed without flush(): a job that throws
    const std::vector<ClusterPiece> pieces = part_store_list(store);
    ASSERT_EQ(pieces.size(), 8u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(part_store_read(store, {i, 1}), bytes_of(100000, uint8_t(i)));
    part_store_remove(store);
}

TEST(PartStoreWriter, DropStopsWritingAndLeavesNoHalfPiece) {
    const std::filesystem::path dir = scratch_dir("writer-drop");
    PartStore store = part_store_open(dir, "view A");
    PartStoreWriter writer(store, size_t(1) << 30);
    put_one_unit_pieces(writer, 16, 200000);
    writer.drop();
    // What is there is whole; nothing is written after drop() returns.
    const std::vector<ClusterPiece> pieces = part_store_list(store);
    for (ClusterPiece piece : pieces) EXPECT_EQ(part_store_read(store, piece), bytes_of(200000, uint8_t(piece.first)));
    size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, pieces.size());
    part_store_remove(store);
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(PartStoreWriter, SaysWhichPieceCouldNotBeWritten) {
    const std::filesystem::path dir = scratch_dir("writer-fail");
    PartStore store = part_store_open(dir, "view A");
    std::filesystem::remove_all(dir);  // the folder is gone: every write fails
    PartStoreWriter writer(store, size_t(1) << 30);
    writer.put({3, 2}, std::make_shared<const std::vector<uint8_t>>(bytes_of(10, 1)));
    try {
        writer.flush();
        FAIL() << "flush() did not report the failed write";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("could not write " + (dir / "piece-3-2.part.tmp").string()),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(writer.put({5, 1}, std::make_shared<const std::vector<uint8_t>>(bytes_of(10, 2))), std::runtime_error);
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(UnfinishedPieces, LeaveOutTheFinishedInRunsOfAtMostTheLimit) {
    const std::vector<ClusterPiece> finished{{2, 2}, {7, 1}};
    const std::vector<ClusterPiece> pieces = unfinished_pieces(0, 12, finished, 3);
    // 0-1, 4-6, 8-10, 11
    ASSERT_EQ(pieces.size(), 4u);
    EXPECT_EQ(pieces[0].first, 0);
    EXPECT_EQ(pieces[0].count, 2);
    EXPECT_EQ(pieces[1].first, 4);
    EXPECT_EQ(pieces[1].count, 3);
    EXPECT_EQ(pieces[2].first, 8);
    EXPECT_EQ(pieces[2].count, 3);
    EXPECT_EQ(pieces[3].first, 11);
    EXPECT_EQ(pieces[3].count, 1);
    // A shard's range: only its units, whole runs without a limit.
    const std::vector<ClusterPiece> shard = unfinished_pieces(5, 5, finished, 0);
    ASSERT_EQ(shard.size(), 2u);
    EXPECT_EQ(shard[0].first, 5);
    EXPECT_EQ(shard[0].count, 2);
    EXPECT_EQ(shard[1].first, 8);
    EXPECT_EQ(shard[1].count, 2);
}

TEST(ClusterLaunch, ComesFromMpirunsEnvironment) {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                             "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
        unsetenv(name);
    ClusterLaunch alone = cluster_launch_from_environment();
    EXPECT_EQ(alone.rank, 0);
    EXPECT_EQ(alone.size, 1);
    setenv("OMPI_COMM_WORLD_SIZE", "6", 1);
    setenv("OMPI_COMM_WORLD_RANK", "4", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    const ClusterLaunch launch = cluster_launch_from_environment();
    EXPECT_EQ(launch.size, 6);
    EXPECT_EQ(launch.rank, 4);
    EXPECT_EQ(launch.local_size, 3);
    EXPECT_EQ(launch.local_rank, 1);
    setenv("OMPI_COMM_WORLD_RANK", "6", 1);  // out of range: not a launch
    EXPECT_EQ(cluster_launch_from_environment().size, 1);
    setenv("OMPI_COMM_WORLD_RANK", "x", 1);
    EXPECT_EQ(cluster_launch_from_environment().size, 1);
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"})
        unsetenv(name);
}

TEST(ClusterLaunch, SkipsTheFabricProbeOnlyForOpenMpiRanksOnOneHost) {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_MCA_pml", "OMPI_MCA_mtl"})
        unsetenv(name);
    EXPECT_FALSE(cluster_skips_fabric_probe());  // not started by Open MPI's mpirun
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
    EXPECT_FALSE(cluster_skips_fabric_probe());  // two hosts
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
    EXPECT_TRUE(cluster_skips_fabric_probe());
    setenv("OMPI_MCA_pml", "ucx", 1);
    EXPECT_FALSE(cluster_skips_fabric_probe());  // the user's choice stands
    unsetenv("OMPI_MCA_pml");
    setenv("OMPI_MCA_mtl", "ofi", 1);
    EXPECT_FALSE(cluster_skips_fabric_probe());
    unsetenv("OMPI_MCA_mtl");
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    EXPECT_FALSE(cluster_skips_fabric_probe());  // a launcher that does not say
    unsetenv("OMPI_COMM_WORLD_SIZE");
}

}  // namespace
}  // namespace ms
