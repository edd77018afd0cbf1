// cuda_check.h: error checking for CUDA runtime calls, for .cu files only.
// CUDA_CHECK(expr) throws std::runtime_error carrying the call, file, line and CUDA's own
// message, so a failure reaches the user as a sentence rather than a black frame.
// CUDA_CHECK_LAUNCH() follows every kernel launch (launch errors are only reported by
// cudaGetLastError()).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ms {

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* expr, const char* file, int line) {
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" +
                             cudaGetErrorName(err) + ") in " + expr + " at " + file + ":" +
                             std::to_string(line));
}

}  // namespace ms

#define CUDA_CHECK(expr)                                                   \
    do {                                                                   \
        cudaError_t cuda_check_err_ = (expr);                              \
        if (cuda_check_err_ != cudaSuccess)                                \
            ::ms::cuda_fail(cuda_check_err_, #expr, __FILE__, __LINE__);   \
    } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
