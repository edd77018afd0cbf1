// deep_bla_cuda_nocuda.cpp: the CPU-only build's GPU BLA build: it says why it cannot run.
#include <stdexcept>

#include "compute/fractal/deep/deep_bla_cuda.h"

namespace ms {

namespace {
[[noreturn]] void no_cuda() {
    throw std::runtime_error(
        "The GPU BLA build is not available: this Mandelscope was built without CUDA (no nvcc at build time).");
}
}  // namespace

template <typename T, typename L>
DeviceBlaTable<T, L>::~DeviceBlaTable() = default;

template <typename T>
std::shared_ptr<DeviceBlaTable<T>> build_bla_table_cuda(const DeepComplex<T>*, int64_t, T, double, int, void*,
                                                        const std::atomic<bool>*) {
    no_cuda();
}

template <typename T>
std::shared_ptr<DeviceBlaTable<T, DeepMatrix<T>>> build_bla_table_matrix_cuda(const DeepComplex<T>*, int64_t, T, double,
                                                                              bool, void*, const std::atomic<bool>*) {
    no_cuda();
}

template <typename T, typename L>
void copy_bla_table_to_host(const DeviceBlaTable<T, L>&, BlaTable<T, L>*) {
    no_cuda();
}

template <typename T>
DeviceOrbit<T>::DeviceOrbit(const DeepComplex<T>*, size_t) {
    no_cuda();
}

template <typename T>
DeviceOrbit<T>::~DeviceOrbit() = default;

template <typename T, typename L>
double upload_bla_table_ms(const BlaTable<T, L>&) {
    no_cuda();
}

MS_DEEP_BLA_CUDA_INSTANTIATE(double)
MS_DEEP_BLA_CUDA_INSTANTIATE(FloatExp)

}  // namespace ms
