// cnn_cuda_nocuda.cpp: the CUDA entry points of cnn_cuda.h and cnn_train.h for builds without
// nvcc. They report "built without CUDA" so the CPU paths run and the cuda rows say why.
#include <stdexcept>

#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_train.h"

#include "compute/system/cuda_info.h"

namespace ms {

namespace {
constexpr const char* kNoCuda = kCudaNotBuiltReason;
[[noreturn]] void no_cuda() { throw std::runtime_error(std::string("cannot use CUDA: ") + kNoCuda); }
}  // namespace

bool cnn_cuda_available(std::string* reason) {
    if (reason) *reason = kNoCuda;
    return false;
}
std::string cnn_cuda_device_name() { return kNoCuda; }
const char* cnn_cuda_variant_name(CnnCudaVariant variant) {
    return variant == CnnCudaVariant::Fused ? "cuda" : "cuda-unfused";
}
void CnnCudaDeleter::operator()(CnnCuda*) const {}
CnnCudaHandle cnn_cuda_create(const CnnWeights&, int) { no_cuda(); }
void cnn_cuda_set_weights(CnnCuda&, const CnnWeights&) { no_cuda(); }
void cnn_cuda_set_conv_tiling(CnnCuda&, int, int) { no_cuda(); }
void cnn_cuda_forward(CnnCuda&, const uint8_t*, int, float*, CnnForwardStats*, CnnCudaVariant) { no_cuda(); }
void cnn_cuda_forward_device(CnnCuda&, const uint8_t*, int, float*, CnnForwardStats*, CnnCudaVariant) { no_cuda(); }
uint8_t* cnn_cuda_upload_images(const uint8_t*, int) { no_cuda(); }
float* cnn_cuda_alloc_logits(int) { no_cuda(); }
void cnn_cuda_download_logits(const float*, int, float*) { no_cuda(); }
void cnn_cuda_free(void*) {}
double cnn_loss_and_gradient_cuda(const CnnWeights&, const FashionMnist&, const int*, int, CnnWeights*, int*,
                                  const uint8_t*) {
    no_cuda();
}
CnnTrainResult cnn_train_cuda(const FashionMnist&, const FashionMnist*, const CnnTrainOptions&) { no_cuda(); }

}  // namespace ms
