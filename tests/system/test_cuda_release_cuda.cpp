// test_cuda_release_cuda.cpp: a command's devices released beside its last work on the CPU
// (cuda_release_devices_in_background, cuda_start.h), in the order `render` releases a poster's
// devices: a deep frame renders on device 0 with a stream and a device frame of its own, those
// go, the cache's tables and deep_cuda's kept orbit copies are freed, and the device is
// released. Nothing is left on it then: compute-sanitizer's memcheck with --leak-check full on
// this program reports no leak (memory a reset takes back counts as leaked there). The released
// devices are those named, once, devices 0 to 63. Skips with the reason where CUDA cannot run.
#include <gtest/gtest.h>

#include <memory>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/system/cuda_start.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;

TEST(CudaRelease, DevicesReleasedAfterTheirFramesHoldNothing) {
    SKIP_WITHOUT_CUDA();
    ReferenceCache cache;
    {
        DeepCudaStream stream;
        DeepDeviceFrame device_frame;
        DeepRenderOptions options;
        options.cache = &cache;
        options.device = 0;
        options.cuda_stream = stream.get(0);
        options.device_frame = &device_frame;
        const DeepFrame frame = deep_cuda(test::load_location("e227"), 64, 48, options);
        ASSERT_EQ(frame.escape_count.size(), size_t(64 * 48));
        EXPECT_GT(frame.stats.iterations, 0u);
    }
    EXPECT_FALSE(cuda_device_released(0));

    cache.clear();
    deep_cuda_free_device_copies();
    cuda_release_devices_in_background({0, 0, 70});
    EXPECT_TRUE(cuda_device_released(0));
    EXPECT_FALSE(cuda_device_released(1));
    EXPECT_FALSE(cuda_device_released(70));  // past 63: left to the exit
    EXPECT_FALSE(cuda_device_released(-1));
    cuda_release_devices_in_background({1});  // a second call does nothing
    EXPECT_FALSE(cuda_device_released(1));
    cuda_finish_background_work();
}
