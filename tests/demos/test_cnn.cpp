// test_cnn.cpp: the Fashion-MNIST network. Verifies the IDX reader on good, corrupt and
// truncated gzip files (made here with zlib), the weights file (round trip, checksum, shape and
// length errors), the fast CPU and CUDA forward passes against the reference within 1e-4 on the
// logits (CUDA tests skip with the reason where no device exists), the backward pass against
// finite differences, reproducible training, one epoch lowering the loss, and the accuracy of
// the committed weights (at least 91.5% on the 10,000 test images).
//
// The data set is read from $MANDELSCOPE_FASHION_MNIST or /usr/share/datasets/fashion-mnist;
// tests that need it skip with the package name where it is missing.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <csignal>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_eval.h"
#include "compute/cnn/cnn_train.h"
#include "compute/cnn/cnn_weights_file.h"
#include "compute/cnn/fashion_mnist.h"
#include "tests/validate.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

// ---- helpers -------------------------------------------------------------------------------

fs::path make_temp_dir(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("mandelscope_test_cnn_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void put_be32(std::string& s, uint32_t v) {
    for (int i = 3; i >= 0; --i) s.push_back(char((v >> (8 * i)) & 0xFF));
}

void write_gz(const fs::path& path, const std::string& bytes) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
}

std::string idx_images(uint32_t magic, uint32_t count, uint32_t rows, uint32_t cols, size_t pixel_bytes) {
    std::string s;
    put_be32(s, magic);
    put_be32(s, count);
    put_be32(s, rows);
    put_be32(s, cols);
    for (size_t i = 0; i < pixel_bytes; ++i) s.push_back(char(i * 7 % 256));
    return s;
}

std::string idx_labels(uint32_t magic, uint32_t count, size_t label_bytes) {
    std::string s;
    put_be32(s, magic);
    put_be32(s, count);
    for (size_t i = 0; i < label_bytes; ++i) s.push_back(char(i % 10));
    return s;
}

// Runs `f` and returns the exception's message ("" when nothing was thrown).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

fs::path dataset_dir() {
    const char* env = std::getenv("MANDELSCOPE_FASHION_MNIST");
    return env && *env ? fs::path(env) : fs::path(kFashionMnistDefaultDir);
}

bool dataset_present(std::string* reason) {
    if (fs::exists(fashion_mnist_images_path(dataset_dir(), FashionMnistSplit::Test))) return true;
    *reason = "no Fashion-MNIST in " + dataset_dir().string() + " (install the Debian package " + kFashionMnistPackage +
              " or set MANDELSCOPE_FASHION_MNIST)";
    return false;
}

// Deterministic pseudo-images: blobs of ink on a dark background, like the data set's range.
// The label is the blob's size class, so a network can learn it.
FashionMnist synthetic_images(int count, uint64_t seed) {
    FashionMnist d;
    d.count = count;
    d.images.resize(size_t(count) * kCnnPixels);
    d.labels.resize(size_t(count));
    CnnRng rng{seed};
    for (int n = 0; n < count; ++n) {
        const float cx = 8 + 12 * rng.next_uniform(), cy = 8 + 12 * rng.next_uniform();
        const float r = 4 + 6 * rng.next_uniform();
        for (int y = 0; y < kCnnSide; ++y)
            for (int x = 0; x < kCnnSide; ++x) {
                float dist = std::hypot(x - cx, y - cy);
                float v = dist < r ? 255.0f * (1.0f - dist / r) + 40.0f * rng.next_uniform() : 0.0f;
                d.images[size_t(n) * kCnnPixels + y * kCnnSide + x] = uint8_t(std::min(v, 255.0f));
            }
        d.labels[n] = uint8_t(std::min(kCnnClasses - 1, int((r - 4.0f) / 0.6f)));
    }
    return d;
}

// ---- IDX reader ----------------------------------------------------------------------------

TEST(FashionMnistIdx, ReadsGoodFiles) {
    fs::path dir = make_temp_dir("good");
    write_gz(fashion_mnist_images_path(dir, FashionMnistSplit::Test), idx_images(0x803, 3, 28, 28, 3 * 784));
    write_gz(fashion_mnist_labels_path(dir, FashionMnistSplit::Test), idx_labels(0x801, 3, 3));
    FashionMnist d = load_fashion_mnist(dir, FashionMnistSplit::Test);
    ASSERT_EQ(d.count, 3);
    ASSERT_EQ(d.images.size(), 3u * 784u);
    EXPECT_EQ(d.images[0], 0);
    EXPECT_EQ(d.images[1], 7);
    EXPECT_EQ(d.images[784 * 2 + 5], uint8_t((784 * 2 + 5) * 7 % 256));
    EXPECT_EQ(d.labels[2], 2);
    FashionMnist limited = load_fashion_mnist(dir, FashionMnistSplit::Test, 2);
    EXPECT_EQ(limited.count, 2);
    EXPECT_EQ(limited.images.size(), 2u * 784u);
    fs::remove_all(dir);
}

TEST(FashionMnistIdx, RejectsBadMagicDimensionsAndLabels) {
    fs::path dir = make_temp_dir("magic");
    fs::path images = dir / "images.gz", labels = dir / "labels.gz";
    int count = 0;
    write_gz(images, idx_images(0x801, 3, 28, 28, 3 * 784));  // a label magic on images
    EXPECT_NE(error_of([&] { read_idx_images(images, &count); }).find("magic"), std::string::npos);
    write_gz(images, idx_images(0x803, 3, 32, 32, 3 * 1024));
    EXPECT_NE(error_of([&] { read_idx_images(images, &count); }).find("expected 28x28"), std::string::npos);
    write_gz(labels, idx_labels(0x803, 3, 3));
    EXPECT_NE(error_of([&] { read_idx_labels(labels, &count); }).find("magic"), std::string::npos);
    std::string bad = idx_labels(0x801, 3, 3);
    bad[8 + 1] = 12;  // label 12
    write_gz(labels, bad);
    EXPECT_NE(error_of([&] { read_idx_labels(labels, &count); }).find("out of range"), std::string::npos);
    // Images and labels of different counts.
    write_gz(fashion_mnist_images_path(dir, FashionMnistSplit::Test), idx_images(0x803, 3, 28, 28, 3 * 784));
    write_gz(fashion_mnist_labels_path(dir, FashionMnistSplit::Test), idx_labels(0x801, 4, 4));
    EXPECT_NE(error_of([&] { load_fashion_mnist(dir, FashionMnistSplit::Test); }).find("labels"), std::string::npos);
    fs::remove_all(dir);
}

TEST(FashionMnistIdx, RejectsTruncatedAndTrailingData) {
    fs::path dir = make_temp_dir("truncated");
    fs::path images = dir / "images.gz";
    int count = 0;
    // The header promises 3 images, the data holds 2.5.
    write_gz(images, idx_images(0x803, 3, 28, 28, 2 * 784 + 392));
    std::string e = error_of([&] { read_idx_images(images, &count); });
    EXPECT_NE(e.find("truncated"), std::string::npos) << e;
    EXPECT_NE(e.find(images.string()), std::string::npos) << e;
    // A header cut short.
    write_gz(images, idx_images(0x803, 3, 28, 28, 0).substr(0, 10));
    EXPECT_NE(error_of([&] { read_idx_images(images, &count); }).find("truncated"), std::string::npos);
    // More data than the header says.
    write_gz(images, idx_images(0x803, 2, 28, 28, 3 * 784));
    EXPECT_NE(error_of([&] { read_idx_images(images, &count); }).find("unexpected data"), std::string::npos);
    fs::remove_all(dir);
}

TEST(FashionMnistIdx, RejectsCorruptAndCutGzipStreams) {
    fs::path dir = make_temp_dir("corrupt");
    fs::path images = dir / "images.gz";
    write_gz(images, idx_images(0x803, 4, 28, 28, 4 * 784));
    std::string bytes;
    {
        std::FILE* f = std::fopen(images.c_str(), "rb");
        ASSERT_NE(f, nullptr);
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
        std::fclose(f);
    }
    auto write_raw = [&](const std::string& s) {
        std::FILE* f = std::fopen(images.c_str(), "wb");
        std::fwrite(s.data(), 1, s.size(), f);
        std::fclose(f);
    };
    int count = 0;
    std::string flipped = bytes;
    for (size_t i = 20; i < flipped.size() - 12; i += 7) flipped[i] = char(flipped[i] ^ 0x5A);
    write_raw(flipped);
    std::string e = error_of([&] { read_idx_images(images, &count); });
    EXPECT_FALSE(e.empty()) << "a corrupt deflate stream was accepted";
    EXPECT_NE(e.find(images.string()), std::string::npos) << e;
    write_raw(bytes.substr(0, bytes.size() / 2));  // the compressed file cut in half
    e = error_of([&] { read_idx_images(images, &count); });
    EXPECT_NE(e.find("truncated"), std::string::npos) << e;
    write_raw(bytes.substr(0, bytes.size() - 4));  // only the gzip trailer cut
    e = error_of([&] { read_idx_images(images, &count); });
    EXPECT_FALSE(e.empty()) << "a gzip stream without its trailer was accepted";
    fs::remove_all(dir);
}

// A 31-byte .gz declaring 2^20 images must be refused before anything is allocated for them.
TEST(FashionMnistIdx, CountsBeyondWhatTheFileHoldsAreRefusedBeforeAllocating) {
    fs::path dir = make_temp_dir("bigcount");
    fs::path images = dir / "images.gz", labels = dir / "labels.gz";
    write_gz(images, idx_images(0x803, 1u << 20, 28, 28, 0));
    ASSERT_LT(fs::file_size(images), 64u);
    int count = 0;
    std::string e = error_of([&] { read_idx_images(images, &count); });
    EXPECT_NE(e.find("more than the file can hold"), std::string::npos) << e;
    write_gz(labels, idx_labels(0x801, 1u << 20, 0));
    e = error_of([&] { read_idx_labels(labels, &count); });
    EXPECT_NE(e.find("more than the file can hold"), std::string::npos) << e;
    fs::remove_all(dir);
}

// A .gz with its last bytes cut must be an error (gzread stops without one when the input ends
// inside the gzip trailer: this file, 3000 images of a hashed pattern, passes gzread with 1 to 8
// bytes cut). Every cut of the last 64 bytes must be an error.
TEST(FashionMnistIdx, EveryCutOfTheLastBytesIsAnError) {
    fs::path dir = make_temp_dir("cuts");
    fs::path images = dir / "images.gz", cut = dir / "cut.gz";
    std::string idx = idx_images(0x803, 3000, 28, 28, 0);
    for (uint64_t i = 0; i < 3000u * 784u; ++i) idx.push_back(char(((i * 2654435761u) >> 13) & 0xff));
    write_gz(images, idx);
    std::string bytes;
    {
        std::FILE* f = std::fopen(images.c_str(), "rb");
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
        std::fclose(f);
    }
    int count = 0;
    ASSERT_EQ(error_of([&] { read_idx_images(images, &count); }), "");
    for (size_t c = 1; c <= 64 && c < bytes.size(); ++c) {
        std::FILE* f = std::fopen(cut.c_str(), "wb");
        std::fwrite(bytes.data(), 1, bytes.size() - c, f);
        std::fclose(f);
        EXPECT_NE(error_of([&] { read_idx_images(cut, &count); }), "") << "accepted with " << c << " bytes cut";
    }
    fs::remove_all(dir);
}

TEST(FashionMnistIdx, MissingFilesNameThePackage) {
    fs::path dir = make_temp_dir("missing");
    std::string e = error_of([&] { load_fashion_mnist(dir, FashionMnistSplit::Train); });
    EXPECT_NE(e.find("dataset-fashion-mnist"), std::string::npos) << e;
    EXPECT_NE(e.find("train-images-idx3-ubyte.gz"), std::string::npos) << e;
    fs::remove_all(dir);
}

// ---- weights file --------------------------------------------------------------------------

TEST(CnnWeightsFile, ParameterCountMatchesTheIssue) {
    size_t total = 0;
    for (const CnnTensorInfo& t : kCnnTensors) {
        size_t n = 1;
        for (int d = 0; d < t.rank; ++d) n *= size_t(t.dims[d]);
        EXPECT_EQ(n, t.count) << t.name;
        EXPECT_EQ(t.offset, total) << t.name;
        total += n;
    }
    EXPECT_EQ(total, 105866u);
}

TEST(CnnWeightsFile, RoundTripsThroughBytesAndFiles) {
    CnnWeights w = cnn_init_weights(7);
    w.values[kCnnParameterCount - 1] = -1.5e-3f;
    std::string bytes = cnn_weights_to_bytes(w, "test provenance");
    EXPECT_EQ(bytes.size(), 20u + 15u + 8u * 36u + 4u * kCnnParameterCount + 4u);
    EXPECT_EQ(std::memcmp(bytes.data(), "MSCNNWT\0", 8), 0);
    std::string provenance;
    CnnWeights back = cnn_weights_from_bytes(bytes, "memory", &provenance);
    EXPECT_EQ(provenance, "test provenance");
    EXPECT_EQ(back.values, w.values);

    fs::path dir = make_temp_dir("weights");
    cnn_save_weights(dir / "w.msw", w, "file");
    EXPECT_EQ(cnn_load_weights(dir / "w.msw").values, w.values);
    EXPECT_NE(error_of([&] { cnn_load_weights(dir / "absent.msw"); }).find("not found"), std::string::npos);
    fs::remove_all(dir);
}

TEST(CnnWeightsFile, RejectsCorruption) {
    const std::string good = cnn_weights_to_bytes(cnn_init_weights(3), "p");
    auto load_error = [](const std::string& bytes) {
        return error_of([&] { cnn_weights_from_bytes(bytes, "w.msw", nullptr); });
    };
    EXPECT_EQ(load_error(good), "");

    std::string flipped = good;
    flipped[good.size() / 2] ^= 0x01;  // one bit of one parameter
    EXPECT_NE(load_error(flipped).find("checksum mismatch"), std::string::npos) << load_error(flipped);

    std::string magic = good;
    magic[0] = 'X';
    EXPECT_NE(load_error(magic).find("bad magic"), std::string::npos);

    std::string version = good;
    version[8] = 2;
    EXPECT_NE(load_error(version).find("version 2"), std::string::npos);

    std::string shape = good;
    const size_t table = 20 + 1;  // after the 1-byte provenance
    shape[table + 16 + 4] = 8;    // conv1.weight dims[0]: 16 -> 8
    EXPECT_NE(load_error(shape).find("'conv1.weight' 8x1x3x3"), std::string::npos) << load_error(shape);

    EXPECT_NE(load_error(good.substr(0, good.size() - 100)).find("truncated"), std::string::npos);
    EXPECT_NE(load_error(good + "x").find("expected"), std::string::npos);
    EXPECT_NE(load_error("MSC").find("bad magic"), std::string::npos);
}

// The weights reader must not read any "file" whole: /dev/zero would grow until bad_alloc.
TEST(CnnWeightsFile, RefusesDevicesAndOversizeFilesBeforeReading) {
    if (fs::exists("/dev/zero")) {
        const std::string e = error_of([] { cnn_load_weights("/dev/zero"); });
        EXPECT_NE(e.find("not a regular file"), std::string::npos) << e;
    }
    fs::path dir = make_temp_dir("oversize");
    fs::path big = dir / "big.msw";
    {
        std::FILE* f = std::fopen(big.c_str(), "wb");
        std::fclose(f);
    }
    fs::resize_file(big, 64u << 20);  // sparse: 64 MiB of zeros
    const std::string e = error_of([&] { cnn_load_weights(big); });
    EXPECT_NE(e.find("more than any weights file"), std::string::npos) << e;
    fs::remove_all(dir);
}

// A full disk must not leave w.msw.tmp behind.
TEST(CnnWeightsFile, AFullDiskLeavesNoTemporaryFile) {
    fs::path dir = make_temp_dir("fulldisk");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        // RLIMIT_FSIZE makes write() fail as a full disk does (EFBIG rather than ENOSPC).
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{16 * 1024, 16 * 1024};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
            cnn_save_weights(dir / "w.msw", cnn_init_weights(1), "p");
        } catch (const std::runtime_error&) {
            ::_exit(3);
        }
        ::_exit(4);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << "status " << status;
    EXPECT_TRUE(fs::is_empty(dir)) << "a temporary file was left behind";
    fs::remove_all(dir);
}

// ---- forward passes ------------------------------------------------------------------------

TEST(CnnForward, FastCpuMatchesReference) {
    const CnnWeights w = cnn_init_weights(11);
    const FashionMnist d = synthetic_images(37, 5);  // not a multiple of the 16-image chunks
    std::vector<float> ref(37 * kCnnClasses), fast(37 * kCnnClasses);
    cnn_forward_cpu_reference(w, d.images.data(), d.count, ref.data());
    cnn_forward_cpu(w, d.images.data(), d.count, fast.data());
    auto r = test::validate_result("cpu fast vs reference", ref.data(), fast.data(), ref.size(), 1e-4);
    EXPECT_EQ(r.mismatches, 0u);
    float spread = 0.0f;
    for (float v : ref) spread = std::max(spread, std::fabs(v));
    EXPECT_GT(spread, 0.01f) << "logits all near zero: the comparison would prove nothing";
}

TEST(CnnForward, FastCpuRowDoesNotDependOnTheBatch) {
    const CnnWeights w = cnn_init_weights(12);
    const FashionMnist d = synthetic_images(20, 6);
    std::vector<float> batch(20 * kCnnClasses), one(kCnnClasses);
    cnn_forward_cpu(w, d.images.data(), d.count, batch.data());
    for (int n : {0, 15, 17, 19}) {
        cnn_forward_cpu(w, d.image(n), 1, one.data());
        for (int c = 0; c < kCnnClasses; ++c) EXPECT_EQ(one[c], batch[n * kCnnClasses + c]) << n;
    }
}

TEST(CnnForward, FeatureMapsMatchTheFirstLayer) {
    const CnnWeights w = cnn_init_weights(13);
    const FashionMnist d = synthetic_images(1, 7);
    std::vector<float> maps(kCnnConv1Channels * kCnnPixels);
    cnn_conv1_feature_maps(w, d.image(0), maps.data());
    // Map 3 at (10, 12) by hand.
    float sum = w.tensor(kConv1Bias)[3];
    for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
            sum += w.tensor(kConv1Weight)[3 * 9 + ky * 3 + kx] *
                   (float(d.image(0)[(10 + ky - 1) * 28 + 12 + kx - 1]) / 255.0f);
    EXPECT_NEAR(maps[3 * kCnnPixels + 10 * 28 + 12], std::max(sum, 0.0f), 1e-6);
    for (float v : maps) EXPECT_GE(v, 0.0f);
}

TEST(CnnForward, CudaMatchesReference) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) GTEST_SKIP() << reason;
    const CnnWeights w = cnn_init_weights(21);
    const int count = 300;
    const FashionMnist d = synthetic_images(count, 8);
    std::vector<float> ref(count * kCnnClasses), got(count * kCnnClasses);
    cnn_forward_cpu_reference(w, d.images.data(), count, ref.data());
    CnnCudaHandle cuda = cnn_cuda_create(w, count);
    const int tilings[][2] = {{0, 0}, {1, 4}, {1, 8}, {2, 8}, {2, 16}, {4, 8}, {4, 16}};
    for (CnnCudaVariant variant : {CnnCudaVariant::Fused, CnnCudaVariant::Unfused})
        for (const auto& t : tilings)
            for (int n : {1, 5, 16, 17, 64, 300}) {  // small and tiled dense paths, partial blocks
                cnn_cuda_set_conv_tiling(*cuda, t[0], t[1]);
                std::fill(got.begin(), got.end(), NAN);
                cnn_cuda_forward(*cuda, d.images.data(), n, got.data(), nullptr, variant);
                std::string what = std::string(cnn_cuda_variant_name(variant)) + " tiling " + std::to_string(t[0]) +
                                   "x" + std::to_string(t[1]) + " batch " + std::to_string(n);
                auto r = test::validate_result(what.c_str(), ref.data(), got.data(), size_t(n) * kCnnClasses, 1e-4);
                EXPECT_EQ(r.mismatches, 0u) << what;
            }
    // Slicing: more images than max_batch.
    CnnCudaHandle small = cnn_cuda_create(w, 7);
    cnn_cuda_forward(*small, d.images.data(), count, got.data());
    test::ValidationResult r = test::validate_result("cuda max_batch 7", ref.data(), got.data(), got.size(), 1e-4);
    EXPECT_EQ(r.mismatches, 0u);
    // New weights into the same context (captured graphs keep working).
    const CnnWeights other = cnn_init_weights(22);
    std::vector<float> other_ref(count * kCnnClasses);
    cnn_forward_cpu_reference(other, d.images.data(), count, other_ref.data());
    cnn_cuda_set_conv_tiling(*cuda, 0, 0);
    cnn_cuda_set_weights(*cuda, other);
    for (int n : {1, 300}) {
        cnn_cuda_forward(*cuda, d.images.data(), n, got.data());
        r = test::validate_result("cuda after set_weights", other_ref.data(), got.data(), size_t(n) * kCnnClasses,
                                  1e-4);
        EXPECT_EQ(r.mismatches, 0u);
    }
    cnn_cuda_set_weights(*cuda, w);
    // Device-resident entry point.
    uint8_t* images_device = cnn_cuda_upload_images(d.images.data(), count);
    float* logits_device = cnn_cuda_alloc_logits(count);
    CnnForwardStats stats;
    cnn_cuda_forward_device(*cuda, images_device, count, logits_device, &stats);
    cnn_cuda_download_logits(logits_device, count, got.data());
    cnn_cuda_free(images_device);
    cnn_cuda_free(logits_device);
    r = test::validate_result("cuda device pointers", ref.data(), got.data(), got.size(), 1e-4);
    EXPECT_EQ(r.mismatches, 0u);
    EXPECT_GT(stats.total_ms, 0.0);
}

TEST(CnnForward, CudaUnavailableSaysWhy) {
    std::string reason;
    if (cnn_cuda_available(&reason)) GTEST_SKIP() << "a CUDA device exists";
    EXPECT_FALSE(reason.empty());
    EXPECT_NE(error_of([] { cnn_cuda_create(cnn_init_weights(1), 1); }).find("CUDA"), std::string::npos);
}

// ---- training ------------------------------------------------------------------------------

// 1000 images one epoch can learn from: the first training images, or where the data set is
// missing, synthetic blobs labelled 0 (small) or 9 (large).
FashionMnist learnable_subset() {
    std::string reason;
    if (dataset_present(&reason)) return load_fashion_mnist(dataset_dir(), FashionMnistSplit::Train, 1000);
    FashionMnist d = synthetic_images(1000, 11);
    for (uint8_t& label : d.labels) label = label < 5 ? 0 : 9;
    return d;
}

// The gradient check's weights: doubled, with biases away from zero (see below).
CnnWeights lively_weights(uint64_t seed) {
    CnnWeights w = cnn_init_weights(seed);
    for (size_t i = 0; i < kCnnParameterCount; ++i) w.values[i] *= 2.0f;
    CnnRng rng{seed + 1};
    for (CnnTensor t : {kConv1Bias, kConv2Bias, kFc1Bias, kFc2Bias})
        for (size_t i = 0; i < kCnnTensors[t].count; ++i)
            w.tensor(t)[i] = (rng.next_uniform() < 0.5f ? -1.0f : 1.0f) * (0.05f + 0.05f * rng.next_uniform());
    return w;
}

// Mean cross-entropy from the reference forward pass, in double.
double reference_loss(const CnnWeights& w, const FashionMnist& d, int count) {
    std::vector<float> logits(size_t(count) * kCnnClasses);
    cnn_forward_cpu_reference(w, d.images.data(), count, logits.data());
    double loss = 0.0;
    for (int n = 0; n < count; ++n) {
        const float* z = &logits[n * kCnnClasses];
        double m = z[0], s = 0.0;
        for (int c = 1; c < kCnnClasses; ++c) m = std::max(m, double(z[c]));
        for (int c = 0; c < kCnnClasses; ++c) s += std::exp(double(z[c]) - m);
        loss += m + std::log(s) - z[d.labels[n]];
    }
    return loss / count;
}

TEST(CnnTrain, GradientMatchesFiniteDifferences) {
    // Doubled weights for livelier logits; non-zero biases: with zero biases the blank
    // background sits exactly on ReLU's kink, where a finite difference measures half of a
    // one-sided slope.
    const CnnWeights w = lively_weights(31);
    const FashionMnist d = synthetic_images(20, 9);
    std::vector<int> idx(d.count);
    std::iota(idx.begin(), idx.end(), 0);
    CnnWeights g;
    cnn_loss_and_gradient_cpu(w, d, idx.data(), d.count, &g);
    for (size_t t = 0; t < kCnnTensors.size(); ++t) {
        // The three largest gradients of each tensor: relative errors there mean something.
        const CnnTensorInfo& info = kCnnTensors[t];
        std::vector<size_t> order(info.count);
        std::iota(order.begin(), order.end(), info.offset);
        std::partial_sort(order.begin(), order.begin() + 3, order.end(),
                          [&](size_t a, size_t b) { return std::fabs(g.values[a]) > std::fabs(g.values[b]); });
        for (int k = 0; k < 3; ++k) {
            const size_t p = order[k];
            const float eps = 2e-3f;
            CnnWeights plus = w, minus = w;
            plus.values[p] += eps;
            minus.values[p] -= eps;
            const double numeric = (reference_loss(plus, d, d.count) - reference_loss(minus, d, d.count)) /
                                   (double(plus.values[p]) - double(minus.values[p]));
            EXPECT_NEAR(g.values[p], numeric, 0.05 * std::fabs(numeric) + 2e-4)
                << info.name << " parameter " << p - info.offset;
        }
    }
}

TEST(CnnTrain, CudaGradientMatchesCpu) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) GTEST_SKIP() << reason;
    const CnnWeights w = lively_weights(41);
    const FashionMnist d = synthetic_images(40, 12);
    std::vector<int> idx(d.count);
    std::iota(idx.begin(), idx.end(), 0);
    std::reverse(idx.begin(), idx.end());  // through the index list, not in storage order
    std::vector<uint8_t> augmentation(d.count);
    CnnRng rng{42};
    for (uint8_t& code : augmentation) code = cnn_random_augmentation(rng);
    CnnWeights cpu, gpu;
    int cpu_correct = 0, gpu_correct = 0;
    const double cpu_loss = cnn_loss_and_gradient_cpu(w, d, idx.data(), d.count, &cpu, &cpu_correct, 0,
                                                      augmentation.data());
    const double gpu_loss = cnn_loss_and_gradient_cuda(w, d, idx.data(), d.count, &gpu, &gpu_correct,
                                                       augmentation.data());
    EXPECT_NEAR(cpu_loss, gpu_loss, 1e-5 * cpu_loss);
    EXPECT_EQ(cpu_correct, gpu_correct);
    for (const CnnTensorInfo& t : kCnnTensors) {
        float largest = 0.0f;
        for (size_t i = 0; i < t.count; ++i) largest = std::max(largest, std::fabs(cpu.values[t.offset + i]));
        auto r = test::validate_result((std::string("cuda gradient of ") + t.name).c_str(), &cpu.values[t.offset],
                                       &gpu.values[t.offset], t.count, 1e-4 * largest, 1e-3);
        EXPECT_EQ(r.mismatches, 0u) << t.name;
    }
}

TEST(CnnTrain, CudaTrainingIsReproducibleAndLearns) {
    std::string reason;
    if (!cnn_cuda_available(&reason)) GTEST_SKIP() << reason;
    const FashionMnist d = learnable_subset();
    CnnTrainOptions o;
    o.backend = CnnBackend::Cuda;
    o.epochs = 1;
    o.batch = 32;
    o.seed = 5;
    CnnTrainResult a = cnn_train(d, &d, o);
    CnnTrainResult b = cnn_train(d, nullptr, o);
    EXPECT_EQ(a.weights.values, b.weights.values) << "CUDA training is not reproducible";
    const double before = cnn_mean_loss_cpu(cnn_init_weights(5), d, d.count);
    const double after = cnn_mean_loss_cpu(a.weights, d, d.count);
    std::printf("cuda: loss %.4f before, %.4f after one epoch; test accuracy %.2f%%\n", before, after,
                100.0 * a.epochs.at(0).test_accuracy);
    EXPECT_LT(after, before * 0.8);
    o.backend = CnnBackend::Cpu;
    CnnTrainResult cpu = cnn_train(d, nullptr, o);
    float max_diff = 0.0f;
    for (size_t i = 0; i < kCnnParameterCount; ++i)
        max_diff = std::max(max_diff, std::fabs(cpu.weights.values[i] - a.weights.values[i]));
    std::printf("cuda vs cpu after one epoch (same seed and order): max |weight difference| %.3g\n", max_diff);
}

TEST(CnnTrain, AugmentationFlipsThenShifts) {
    std::vector<uint8_t> img(kCnnPixels, 0);
    img[3 * kCnnSide + 5] = 255;  // one white pixel at (y 3, x 5)
    auto at = [&](uint8_t code, int y, int x) { return cnn_augmented_pixel(img.data(), code, y, x); };
    EXPECT_EQ(at(kCnnAugmentIdentity, 3, 5), 1.0f);
    const uint8_t flip = kCnnAugmentIdentity | 1;
    EXPECT_EQ(at(flip, 3, 22), 1.0f);                        // x 5 -> 27 - 5
    const uint8_t shift = uint8_t(1 | (4 << 1) | (0 << 4));  // flip, dx +2, dy -2
    EXPECT_EQ(at(shift, 1, 24), 1.0f);
    EXPECT_EQ(at(shift, 3, 5), 0.0f);
    EXPECT_EQ(at(uint8_t((0 << 1) | (2 << 4)), 0, 27), 0.0f);  // shifted in from outside: black
    CnnRng rng{1};
    int seen[2 * 5 * 5] = {};
    for (int i = 0; i < 5000; ++i) {
        const uint8_t c = cnn_random_augmentation(rng);
        ASSERT_LE((c >> 1) & 7, 4);
        ASSERT_LE((c >> 4) & 7, 4);
        ++seen[(c & 1) + 2 * ((c >> 1) & 7) + 10 * ((c >> 4) & 7)];
    }
    for (int n : seen) EXPECT_GT(n, 40);  // all 50 transforms come up
}

TEST(CnnTrain, ReproducibleWhateverTheThreadCount) {
    const FashionMnist d = synthetic_images(150, 10);
    CnnTrainOptions o;
    o.epochs = 1;
    o.batch = 50;
    o.seed = 99;
    o.threads = 1;
    CnnTrainResult one = cnn_train(d, nullptr, o);
    o.threads = 3;
    CnnTrainResult three = cnn_train(d, nullptr, o);
    EXPECT_EQ(one.weights.values, three.weights.values);
    o.seed = 100;
    CnnTrainResult other = cnn_train(d, nullptr, o);
    EXPECT_NE(one.weights.values, other.weights.values);
}

TEST(CnnTrain, OneEpochOnASubsetLowersTheLoss) {
    const FashionMnist d = learnable_subset();
    const CnnWeights initial = cnn_init_weights(5);
    const double before = cnn_mean_loss_cpu(initial, d, d.count);
    CnnTrainOptions o;
    o.epochs = 1;
    o.batch = 32;
    o.seed = 5;
    CnnTrainResult r = cnn_train(d, nullptr, o);
    const double after = cnn_mean_loss_cpu(r.weights, d, d.count);
    std::printf("loss on %d images: %.4f before, %.4f after one epoch\n", d.count, before, after);
    EXPECT_LT(after, before * 0.8);
}

// ---- the committed weights -----------------------------------------------------------------

TEST(CnnCommittedWeights, ReachTheAccuracyTargetOnTheCpu) {
    std::string reason;
    if (!dataset_present(&reason)) GTEST_SKIP() << reason;
    const FashionMnist test = load_fashion_mnist(dataset_dir(), FashionMnistSplit::Test);
    ASSERT_EQ(test.count, 10000);
    const CnnWeights w = cnn_load_weights(cnn_default_weights_path());
    CnnEvalOptions o;
    o.backend = CnnBackend::Cpu;
    o.batch = 1000;
    CnnEvalResult r = cnn_evaluate(w, test, o);
    std::printf("committed weights: %.2f%% on the %d test images (%.0f images/s on %s)\n", 100.0 * r.accuracy, r.images,
                r.images_per_second, r.device.c_str());
    EXPECT_GE(r.accuracy, 0.915);
    // The reference agrees on a sample of real images.
    std::vector<float> ref(64 * kCnnClasses), fast(64 * kCnnClasses);
    cnn_forward_cpu_reference(w, test.images.data(), 64, ref.data());
    cnn_forward_cpu(w, test.images.data(), 64, fast.data());
    auto v = test::validate_result("committed weights: cpu fast vs reference", ref.data(), fast.data(), ref.size(),
                                   1e-4);
    EXPECT_EQ(v.mismatches, 0u);
    std::string cuda_reason;
    if (cnn_cuda_available(&cuda_reason)) {
        std::vector<float> gpu(64 * kCnnClasses);
        CnnCudaHandle cuda = cnn_cuda_create(w, 64);
        cnn_cuda_forward(*cuda, test.images.data(), 64, gpu.data());
        v = test::validate_result("committed weights: cuda vs reference", ref.data(), gpu.data(), ref.size(), 1e-4);
        EXPECT_EQ(v.mismatches, 0u);
    }
}

}  // namespace
}  // namespace ms
