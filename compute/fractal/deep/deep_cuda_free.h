// deep_cuda_free.h: for deep_cuda.cu and deep_bla_cuda.cu only (it includes the CUDA runtime):
// freeing a stream-ordered buffer on the device that allocated it. A frame spread over several
// devices (compute/scale/) keeps orbit copies and BLA tables on each, and the last owner may let
// go of one on any thread, with any device current.
#pragma once

#include <cuda_runtime.h>

#include "compute/system/cuda_start.h"

namespace ms {

// cudaFreeAsync on the legacy stream of `device`, the one that allocated `pointer` (-1: the
// current device); the calling thread's current device is left as it was. Errors are ignored
// (this also runs at exit). A device released for the exit (cuda_start.h) freed everything
// with its context: nothing is freed there, since any call on it would make a new context.
inline void cuda_free_async_on_device(void* pointer, int device) {
    int current = -1;
    if (cuda_device_released(device >= 0 ? device : (cudaGetDevice(&current) == cudaSuccess ? current : -1))) return;
    const bool moved = device >= 0 && cudaGetDevice(&current) == cudaSuccess && current != device &&
                       cudaSetDevice(device) == cudaSuccess;
    cudaFreeAsync(pointer, nullptr);
    if (moved) cudaSetDevice(current);
}

}  // namespace ms
