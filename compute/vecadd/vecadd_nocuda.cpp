// vecadd_nocuda.cpp: the CPU-only build's GPU side of the vector-add demo: every GPU variant
// reports that this Mandelscope was built without CUDA; the CPU variants run as usual.
#include <stdexcept>

#include "compute/vecadd/vecadd.h"

#include "compute/system/cuda_info.h"

namespace ms {

namespace {
constexpr const char* kNoCuda = kCudaNotBuiltReason;

VecAddResult no_cuda(VecAddVariant variant, size_t n) {
    VecAddResult r;
    r.variant = variant;
    r.elements = n;
    r.error = kNoCuda;
    return r;
}
}  // namespace

VecAddDevice vecadd_device_info(bool) {
    VecAddDevice device;
    device.reason = kNoCuda;
    return device;
}

void vecadd_cuda_to_host(const float*, const float*, float*, size_t, const VecAddKernelConfig&) {
    throw std::runtime_error(kNoCuda);
}

std::vector<VecAddResult> vecadd_gpu_measure(const VecAddDevice&, const std::vector<VecAddVariant>& gpu_variants,
                                             const VecAddHostArrays& arrays, const VecAddOptions&,
                                             const std::function<void(const VecAddResult&)>& done) {
    std::vector<VecAddResult> results;
    for (VecAddVariant v : gpu_variants) {
        results.push_back(no_cuda(v, arrays.n));
        if (done) done(results.back());
    }
    return results;
}

std::vector<VecAddConfigResult> vecadd_kernel_configs(const VecAddDevice&, size_t n,
                                                      const std::vector<VecAddKernelConfig>& configs,
                                                      const VecAddOptions&) {
    std::vector<VecAddConfigResult> out;
    for (const VecAddKernelConfig& c : configs) out.push_back({c, no_cuda(VecAddVariant::GpuKernelOnly, n)});
    return out;
}

}  // namespace ms
