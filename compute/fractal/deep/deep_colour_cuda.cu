// deep_colour_cuda.cu: a deep frame's colours on the device (deep_colour.h's
// colour_deep_frame_cuda) from the mu, distance and atom periods deep_cuda left in a DeepDeviceFrame, and that
// frame's memory. The same two ways as colour_deep_frame on the host:
//   plain    colourize_deep_kernel: colourize_deep's arithmetic (double, the position reduced
//            modulo the table before any float maths), per pixel;
//   layers   the frame's lowest escaped mu (one atomicMin per warp on the double's bits: for
//            values >= 0 their order is the integers'), floored, as deep_mu_origin; mu relative
//            to it in float; then the direct path's colour passes (colour_pass_cuda.h).
// Compiled with --fmad=false (compute/CMakeLists.txt), so the colours round as the host's.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compute/fractal/colour/colour_pass_cuda.h"
#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_device_frame.h"
#include "compute/system/cuda_check.h"
#include "compute/system/cuda_start.h"

namespace ms {

namespace {

constexpr unsigned long long kNoEscapeBits = ~0ull;

__global__ void colourize_deep_kernel(const double* mu, long long count, const uint32_t* table, uint32_t interior,
                                      double scale, double offset, uint32_t* rgba) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= count) return;
    uint32_t c = interior;
    if (mu[i] >= 0.0) c = colour_lookup(table, fmod(mu[i] * scale + offset, double(kPaletteTableSize)));
    rgba[i] = c;
}

__global__ void lowest_mu_kernel(const double* mu, long long count, unsigned long long* lowest_bits) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    unsigned long long bits = kNoEscapeBits;
    if (i < count && mu[i] >= 0.0) bits = (unsigned long long)__double_as_longlong(mu[i]);
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned long long other = __shfl_down_sync(0xffffffffu, bits, offset);
        bits = other < bits ? other : bits;
    }
    if ((threadIdx.x % 32) == 0 && bits != kNoEscapeBits) atomicMin(lowest_bits, bits);
}

__global__ void relative_mu_kernel(const double* mu, long long count, double origin, float* relative) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) relative[i] = mu[i] >= 0.0 ? float(mu[i] - origin) : -1.0f;
}

template <typename T>
void grow(T** pointer, size_t count) {
    cudaFree(*pointer);
    *pointer = nullptr;
    CUDA_CHECK(cuda_malloc(pointer, (count ? count : 1) * sizeof(T)));
}

}  // namespace

DeepDeviceFrame::~DeepDeviceFrame() {
    // -1: the frame never reserved memory. Nothing is freed then, and the CUDA runtime is not
    // started only to free nothing (cudaFree(nullptr) starts it: a driver and a context, about
    // 0.3 s, in a process that rendered on the CPU).
    if (device < 0 || cuda_device_released(device)) return;  // released: freed with its context
    const CudaDeviceScope scope(device);
    for (void* p :
         {static_cast<void*>(mu), static_cast<void*>(distance), static_cast<void*>(atom), static_cast<void*>(rgba[0]),
          static_cast<void*>(rgba[1]), static_cast<void*>(relative), static_cast<void*>(table), static_cast<void*>(cdf),
          static_cast<void*>(counts), static_cast<void*>(lowest_bits)})
        cudaFree(p);
}

void DeepDeviceFrame::reserve(size_t pixels) {
    width = height = 0;
    if (device < 0) CUDA_CHECK(cudaGetDevice(&device));
    has_distance = has_atom = false;
    if (!table) {
        grow(&table, kPaletteTableSize);
        grow(&cdf, kHistogramBins + 1);
        grow(&counts, kHistogramBins);
        grow(&lowest_bits, 1);
        table_uploaded.clear();
    }
    if (pixels <= capacity) return;
    capacity = 0;
    grow(&mu, pixels);
    grow(&distance, pixels);
    grow(&atom, pixels);
    grow(&rgba[0], pixels * 4);
    grow(&rgba[1], pixels * 4);
    grow(&relative, pixels);
    capacity = pixels;
}

void colour_deep_frame_cuda(DeepDeviceFrame& frame, const PaletteTable& palette, const View& view, double pixel_scale,
                            uint8_t* rgba_device, void* stream_handle) {
    if (frame.width <= 0 || frame.height <= 0)
        throw std::runtime_error("colour_deep_frame_cuda: the device holds no deep frame to colour");
    if (palette.rgba.size() != size_t(kPaletteTableSize))
        throw std::invalid_argument("the palette table must have " + std::to_string(kPaletteTableSize) + " entries");
    auto stream = static_cast<cudaStream_t>(stream_handle);
    const long long count = (long long)frame.width * frame.height;
    if (frame.table_uploaded != palette.rgba) {
        frame.table_uploaded.clear();
        CUDA_CHECK(cudaMemcpyAsync(frame.table, palette.rgba.data(), kPaletteTableSize * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));  // the host table may change after this call
        frame.table_uploaded = palette.rgba;
    }
    const int threads = 256;
    const unsigned blocks = unsigned((count + threads - 1) / threads);
    uint32_t* rgba = reinterpret_cast<uint32_t*>(rgba_device);
    if (colouring_is_plain(view.colouring)) {
        // colourize_deep's scale and offset, in table entries.
        const double scale = view.palette_density / 100.0 * kPaletteTableSize;
        const double offset = view.palette_offset * kPaletteTableSize;
        colourize_deep_kernel<<<blocks, threads, 0, stream>>>(frame.mu, count, frame.table, palette.interior_rgba,
                                                              scale, offset, rgba);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return;
    }
    // The origin: the lowest escaped mu, floored (deep_mu_origin), read back for the palette offset.
    CUDA_CHECK(cudaMemsetAsync(frame.lowest_bits, 0xff, sizeof(unsigned long long), stream));
    lowest_mu_kernel<<<blocks, threads, 0, stream>>>(frame.mu, count, frame.lowest_bits);
    CUDA_CHECK_LAUNCH();
    unsigned long long bits = kNoEscapeBits;
    CUDA_CHECK(cudaMemcpyAsync(&bits, frame.lowest_bits, sizeof bits, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double lowest = -1.0;
    if (bits != kNoEscapeBits) std::memcpy(&lowest, &bits, sizeof lowest);
    const double origin = lowest > 0.0 ? std::floor(lowest) : 0.0;
    relative_mu_kernel<<<blocks, threads, 0, stream>>>(frame.mu, count, origin, frame.relative);
    CUDA_CHECK_LAUNCH();
    // colouring.cpp's colour_layers, on the device.
    ColourParams p = make_colour_params(view, pixel_scale);
    if (origin != 0.0) p.offset += std::fmod(origin * p.mu_scale, double(kPaletteTableSize));
    p.table = frame.table;
    p.interior_rgba = palette.interior_rgba;
    if (view.colouring.base == ColourBase::Histogram) {
        p.bins_per_log2 = launch_histogram_cdf(frame.relative, count, view.max_iterations, frame.counts, frame.cdf,
                                               stream);
        p.cdf = frame.cdf;
    }
    launch_colour_pass(p, frame.relative, frame.has_distance ? frame.distance : nullptr, nullptr, nullptr,
                       frame.has_atom ? frame.atom : nullptr, frame.width, frame.height, rgba, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

void colour_deep_frame_cuda_to_host(DeepDeviceFrame& frame, const PaletteTable& palette, const View& view,
                                    double pixel_scale, uint8_t* rgba_host, void* stream_handle) {
    const CudaDeviceScope scope(frame.device);
    colour_deep_frame_cuda(frame, palette, view, pixel_scale, frame.rgba[0], stream_handle);
    auto stream = static_cast<cudaStream_t>(stream_handle);
    const size_t bytes = size_t(frame.width) * size_t(frame.height) * 4;
    CUDA_CHECK(cudaMemcpyAsync(rgba_host, frame.rgba[0], bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace ms
