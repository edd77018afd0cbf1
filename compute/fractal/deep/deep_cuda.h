// deep_cuda.h: the CUDA sibling of deep_cpu (deep_cpu.h): the same frame, the same numbers.
// The reference orbit (MPFR) is computed on the CPU (deep_frame_setup) and copied to the device,
// where it stays while the host keeps it (a cached reference is not copied again); the BLA table
// is built on the device from it (deep_bla_cuda.h: equal to the CPU's table bit for bit) and kept
// in the ReferenceCache beside it (options.bla_on_device false: built on the CPU and copied, as
// before; the benchmark's baseline); every pixel then runs
// deep_iterate_pixel (deep_perturbation.h), the very loop the CPU runs, one thread per pixel.
// Kernels are compiled without FMA contraction (--fmad=false, as the CPU builds with
// -ffp-contract=off), so escape counts match the CPU's bit for bit; mu may differ in the last
// bits (device log/log2).
// options.device picks the device (deep_cpu.h); every device keeps its own copies of the orbits
// and its own BLA tables (built there from the same orbit: equal bit for bit), so a frame's
// regions render on any device with the same numbers (compute/scale/deep_multi_gpu.h spreads
// one frame's bands over several).
// A caller that renders from a thread of its own (the window's deep worker) passes a stream of
// its own (DeepCudaStream, options.cuda_stream), so its frames do not serialise with the
// default stream's work of other threads.
// While the kernel runs, the host polls options.cancel and tells the kernel (blocks not yet
// started skip their pixels; the frame comes back with stats.cancelled) and reports progress
// through options.row_progress (rows, from the warps finished).
// A caller that shows the frame from the device passes options.device_frame (deep_device_frame.h):
// mu and the distance stay there too, for colour_deep_frame_cuda (deep_colour.h).
#pragma once

#include <string>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cpu_rings.h"

namespace ms {

// Throws std::runtime_error with a sentence where CUDA cannot run (the reason from
// cuda_available()) or on any CUDA error; std::invalid_argument on a bad location.
// pixels_ms is the kernel's time from CUDA events; frame_ms includes the reference, the BLA
// build (bla_ms: its wall time, stats.bla_on_device says where) and the copies.
DeepFrame deep_cuda(const DeepLocation& location, int width, int height, const DeepRenderOptions& options = {});

// deep_cpu_rings (deep_cpu_rings.h) on the device: the same points, reference, BLA table and
// number type, the same escape counts bit for bit (mu within the device log's last bits). The
// exponential map's strips (compute/video/expmap.h). Throws as deep_cuda does.
DeepRingsFrame deep_cuda_rings(const DeepLocation& location, int width, int height, const DeepRings& rings,
                               const DeepRenderOptions& options = {});

// Frees the orbit copies and tables deep_cuda keeps on the devices for the orbits the host still
// holds, which a later frame of the same orbit would find there: before the devices' contexts
// are released (cuda_start.h), so that nothing is left on them. A later frame copies anew.
void deep_cuda_free_device_copies();

// A non-blocking CUDA stream for options.cuda_stream, created on first use (get()) on `device`
// (-1: the current one; pass options.device) and destroyed with the object. get() throws
// std::runtime_error with a sentence where CUDA cannot run, std::logic_error when asked for
// another device than the one it was made on.
class DeepCudaStream {
public:
    DeepCudaStream() = default;
    ~DeepCudaStream();
    DeepCudaStream(const DeepCudaStream&) = delete;
    DeepCudaStream& operator=(const DeepCudaStream&) = delete;
    void* get(int device = -1);

private:
    [[maybe_unused]] void* stream_ = nullptr;  // a cudaStream_t; a build without CUDA never has one
    [[maybe_unused]] int device_ = -1;         // the device it was made on
};

}  // namespace ms
