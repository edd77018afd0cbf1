// deep_square_cuda.h's squarings on the GPU (one block, and spread over a cooperative grid)
// against GMP's mpn_sqr, limb for limb: the first square of a chain and the number the chain
// ends on, at sizes from 2 limbs to e10000's precision and beyond, with limbs of all ones (the
// longest carries) as well as random ones; bad input gives a sentence. Without a CUDA device
// they skip with the reason, and the calls say why they cannot run.
#include <gmp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_square_cuda.h"
#include "compute/system/cuda_info.h"
#include "tests/validate.h"

using namespace ms;

namespace {

// 32-bit limbs (least significant first, an even count) as GMP's 64-bit ones and back.
std::vector<mp_limb_t> to_gmp(const std::vector<uint32_t>& words) {
    std::vector<mp_limb_t> limbs(words.size() / 2);
    for (size_t i = 0; i < limbs.size(); ++i) limbs[i] = mp_limb_t(words[2 * i]) | mp_limb_t(words[2 * i + 1]) << 32;
    return limbs;
}
std::vector<uint32_t> from_gmp(const std::vector<mp_limb_t>& limbs) {
    std::vector<uint32_t> words(2 * limbs.size());
    for (size_t i = 0; i < limbs.size(); ++i) {
        words[2 * i] = uint32_t(limbs[i]);
        words[2 * i + 1] = uint32_t(limbs[i] >> 32);
    }
    return words;
}

// The chain on the CPU: a := a^2 mod 2^(32n), `squarings` times; *first gets start^2.
std::vector<uint32_t> gmp_chain(const std::vector<uint32_t>& start, int squarings, std::vector<uint32_t>* first) {
    std::vector<mp_limb_t> a = to_gmp(start), square(2 * a.size());
    for (int s = 0; s < squarings; ++s) {
        mpn_sqr(square.data(), a.data(), mp_size_t(a.size()));
        if (s == 0) *first = from_gmp(square);
        std::copy(square.begin(), square.begin() + ptrdiff_t(a.size()), a.begin());
    }
    return from_gmp(a);
}

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> words(n);
    for (uint32_t& w : words) w = rng();
    words[0] |= 1;  // odd: the chain's low halves stay odd, never all zero
    return words;
}

// In one block and over the grid.
void expect_chain_matches(const std::vector<uint32_t>& start, int squarings, const std::string& what) {
    std::vector<uint32_t> first;
    const std::vector<uint32_t> last = gmp_chain(start, squarings, &first);
    for (bool grid : {false, true}) {
        const GpuSquaringChain gpu = grid ? gpu_squaring_chain_grid(start, squarings)
                                          : gpu_squaring_chain(start, squarings);
        const std::string how = what + (grid ? ", over the grid" : ", one block");
        EXPECT_EQ(gpu.first_square, first) << how << ": the first square";
        EXPECT_EQ(gpu.last, last) << how << ": after " << squarings << " squarings";
        EXPECT_GT(gpu.us_per_squaring, 0.0) << how;
    }
}

}  // namespace

TEST(DeepSquareCuda, EqualsGmpFromTwoLimbsToPastE10000) {
    SKIP_WITHOUT_CUDA();
    // 3,682 bits (1e1086) is 116 limbs, 33,295 (e10000) 1,042; 2,048 and 3,000 pass a block's
    // 1,024 threads.
    for (size_t n : {2u, 4u, 64u, 116u, 1042u, 2048u, 3000u})
        expect_chain_matches(random_words(n, uint32_t(n)), 20, std::to_string(n) + " limbs");
}

TEST(DeepSquareCuda, CarriesRunTheWholeLength) {
    SKIP_WITHOUT_CUDA();
    // (2^(32n) - 1)^2 = 2^(64n) - 2^(32n + 1) + 1: every column overflows and the carries ripple.
    for (size_t n : {2u, 116u, 1042u}) expect_chain_matches(std::vector<uint32_t>(n, 0xffffffffu), 3, "all ones");
}

TEST(DeepSquareCuda, BadInputGivesASentence) {
    SKIP_WITHOUT_CUDA();
    EXPECT_THROW(gpu_squaring_chain({1u}, 1), std::invalid_argument);
    EXPECT_THROW(gpu_squaring_chain({1u, 2u}, 0), std::invalid_argument);
    EXPECT_THROW(gpu_squaring_chain_grid({1u}, 1), std::invalid_argument);
    try {
        gpu_squaring_chain(std::vector<uint32_t>(100000, 1u), 1);
        FAIL() << "a number larger than a block's shared memory";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
    }
}

TEST(DeepSquareCuda, SaysWhyWithoutCuda) {
    std::string reason;
    if (cuda_available(&reason)) GTEST_SKIP() << "CUDA is available here";
    try {
        gpu_squaring_chain({1u, 2u}, 1);
        FAIL() << "squarings without CUDA";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("GPU squarings"), std::string::npos) << e.what();
    }
    EXPECT_THROW(gpu_squaring_chain_grid({1u, 2u}, 1), std::runtime_error);
    EXPECT_THROW(gpu_grid_barrier_us(1), std::runtime_error);
}
