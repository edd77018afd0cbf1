// expmap_cuda.cu: the exponential map's reconstruction on the device (expmap_cuda.h), one thread
// an output pixel. Each step mirrors expmap.cpp's reconstruct and expmap_mips.h's lookups, in the
// same order and precision (double coordinates, float colours, no FMA contraction: see
// compute/CMakeLists.txt), so a frame equals the CPU's but where a device atan2, hypot or log2
// rounds its last bit otherwise (tests/video/test_video_cuda.cpp).
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compute/fractal/deep/deep_colour.h"
#include "compute/system/cuda_check.h"
#include "compute/system/cuda_info.h"
#include "compute/video/expmap_cuda.h"

namespace ms {

namespace {

constexpr int kMaxLevels = 32;
constexpr double kTwoPiDevice = 6.283185307179586;

// ---------------------------------------------------------------------------------------------
// The kernel's inputs: the frame's geometry and where each level of the images lies.

struct ReconstructParams {
    ExpmapReconstruction frame;
    int first_octave = 0, last_octave = 0;  // the strips in reach (octave_base[i]: first_octave + i)
    const float* const* octave_base = nullptr;
    size_t strip_offset[kMaxLevels] = {};  // floats from a strip's base to its level L
    int strip_width[kMaxLevels] = {};
    const float* flat_base = nullptr;
    int flat_levels = 0;
    size_t flat_offset[kMaxLevels] = {};
    int flat_width[kMaxLevels] = {};
    int flat_height[kMaxLevels] = {};
    uint8_t* rgba = nullptr;
};

__device__ const float* strip_texel(const ReconstructParams& p, int level, int x, int y) {
    const int level_rows = p.frame.rows_per_octave >> level, level_columns = p.frame.columns >> level;
    const int total_rows = p.frame.octaves * p.frame.rows_per_octave;
    x %= level_columns;
    if (x < 0) x += level_columns;
    y = min(max(y, p.first_octave * level_rows), (p.last_octave + 1) * level_rows - 1);
    y = min(y, (total_rows >> level) - 1);
    const int octave = y / level_rows;
    const float* base = p.octave_base[octave - p.first_octave] + p.strip_offset[level];
    return base + (size_t(y - octave * level_rows) * size_t(p.strip_width[level]) + size_t(x)) * 3;
}

__device__ const float* flat_texel(const ReconstructParams& p, int level, int x, int y) {
    x = min(max(x, 0), p.flat_width[level] - 1);
    y = min(max(y, 0), p.flat_height[level] - 1);
    return p.flat_base + p.flat_offset[level] + (size_t(y) * size_t(p.flat_width[level]) + size_t(x)) * 3;
}

// expmap_mips.h's mip_bilinear and mip_trilinear.
template <bool kStrip>
__device__ void bilinear(const ReconstructParams& p, int level, double u, double v, float out[3]) {
    const double scale = ldexp(1.0, -level);
    const double x = u * scale - 0.5, y = v * scale - 0.5;
    const double fx0 = floor(x), fy0 = floor(y);
    const int x0 = int(fx0), y0 = int(fy0);
    const float tx = float(x - fx0), ty = float(y - fy0);
    const float* a = kStrip ? strip_texel(p, level, x0, y0) : flat_texel(p, level, x0, y0);
    const float* b = kStrip ? strip_texel(p, level, x0 + 1, y0) : flat_texel(p, level, x0 + 1, y0);
    const float* c = kStrip ? strip_texel(p, level, x0, y0 + 1) : flat_texel(p, level, x0, y0 + 1);
    const float* d = kStrip ? strip_texel(p, level, x0 + 1, y0 + 1) : flat_texel(p, level, x0 + 1, y0 + 1);
    for (int i = 0; i < 3; ++i) {
        const float top = a[i] + tx * (b[i] - a[i]);
        const float bottom = c[i] + tx * (d[i] - c[i]);
        out[i] = top + ty * (bottom - top);
    }
}

template <bool kStrip>
__device__ void trilinear(const ReconstructParams& p, int levels, double u, double v, double footprint, float out[3]) {
    const double lambda = footprint > 1.0 ? log2(footprint) : 0.0;
    if (lambda >= double(levels - 1)) {
        bilinear<kStrip>(p, levels - 1, u, v, out);
        return;
    }
    const int level = int(lambda);
    const float t = float(lambda - level);
    bilinear<kStrip>(p, level, u, v, out);
    if (t > 0.0f) {
        float next[3];
        bilinear<kStrip>(p, level + 1, u, v, next);
        for (int i = 0; i < 3; ++i) out[i] += t * (next[i] - out[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel: expmap.cpp's reconstruct for one pixel.

__global__ void expmap_reconstruct_kernel(const ReconstructParams p) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
    const ExpmapReconstruction& f = p.frame;
    if (x >= f.width || y >= f.height) return;
    const int kk = f.supersample;
    const double inv_k = 1.0 / kk;
    const double rows = f.rows_per_octave, columns = f.columns;
    double sum[3] = {0.0, 0.0, 0.0};
    for (int j = 0; j < kk; ++j) {
        for (int i = 0; i < kk; ++i) {
            const double dx = x + (i + 0.5) * inv_k - 0.5 * f.width;
            const double dy = -(y + (j + 0.5) * inv_k - 0.5 * f.height);
            float colour[3] = {0.0f, 0.0f, 0.0f};
            double w_flat = 0.0;
            if (f.has_flat) {
                const double fx = (dx * f.f_flat + 0.5 * f.deep_width + f.flat_border_pixels) * kk;
                const double fy = (0.5 * f.deep_height + f.flat_border_pixels - dy * f.f_flat) * kk;
                const double margin = fmin(fmin(fx, f.flat_width - fx), fmin(fy, f.flat_height - fy)) - 0.5 * f.f_flat;
                w_flat = fmin(fmax(margin / f.band, 0.0), 1.0);
                if (w_flat > 0.0) trilinear<false>(p, p.flat_levels, fx, fy, f.f_flat, colour);
            }
            if (w_flat < 1.0) {
                const double r = fmax(hypot(dx, dy), 0.25 * inv_k);
                double angle = atan2(dy, dx);
                if (angle < 0.0) angle += kTwoPiDevice;
                const double u = columns * angle / kTwoPiDevice;
                const double v = (f.log2_top_radius - f.log2_step - log2(r)) * rows;
                const double footprint = columns / (kTwoPiDevice * kk * r);
                float strip[3];
                trilinear<true>(p, f.levels, u, v, footprint, strip);
                const float wf = float(w_flat);
                for (int c = 0; c < 3; ++c) colour[c] = wf * colour[c] + (1.0f - wf) * strip[c];
            }
            for (int c = 0; c < 3; ++c) sum[c] += colour[c];
        }
    }
    uint8_t* out = p.rgba + (size_t(y) * size_t(f.width) + size_t(x)) * 4;
    const double n = double(kk) * kk;
    for (int c = 0; c < 3; ++c) out[c] = uint8_t(fmin(fmax(floor(sum[c] / n + 0.5), 0.0), 255.0));
    out[3] = 255;
}

// ---------------------------------------------------------------------------------------------
// Mip levels on the device: expmap_mips.h's texel functions, a thread a texel.

__global__ void mip_from_rgba_kernel(const uint8_t* rgba, int width, int height, int factor, float* out, int out_width,
                                     int out_height) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= out_width || y >= out_height) return;
    mip_texel_from_rgba(rgba, width, height, factor, x, y, out + (size_t(y) * size_t(out_width) + size_t(x)) * 3);
}

__global__ void mip_halve_kernel(const float* in, int in_width, int in_height, float* out, int out_width,
                                 int out_height) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= out_width || y >= out_height) return;
    mip_texel_halve(in, in_width, in_height, x, y, out + (size_t(y) * size_t(out_width) + size_t(x)) * 3);
}

dim3 texel_grid(int width, int height) { return dim3(unsigned(width + 15) / 16, unsigned(height + 15) / 16); }

// ---------------------------------------------------------------------------------------------
// The launcher and the device copies of the images.

// A device buffer freed with its owner, on the device it was made on: a strip shared with other
// renderers (expmap_share.h) may be freed from their threads, another device current.
struct DeviceFloats {
    float* ptr = nullptr;
    size_t count = 0;
    int device = 0;
    DeviceFloats() = default;
    explicit DeviceFloats(size_t n) : count(n) {
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cuda_malloc(&ptr, count * sizeof(float)));
    }
    ~DeviceFloats() {
        if (!ptr) return;
        int current = device;
        if (cudaGetDevice(&current) == cudaSuccess && current != device && cudaSetDevice(device) == cudaSuccess) {
            cudaFree(ptr);
            cudaSetDevice(current);
        } else {
            cudaFree(ptr);
        }
    }
    DeviceFloats(const DeviceFloats&) = delete;
    DeviceFloats& operator=(const DeviceFloats&) = delete;
};

// An image's levels, one after another in one device buffer; offsets in floats.
std::unique_ptr<DeviceFloats> upload_levels(const std::vector<MipLevel>& levels, size_t* offsets) {
    size_t total = 0;
    for (size_t l = 0; l < levels.size(); ++l) {
        if (levels[l].rgb.size() != size_t(levels[l].width) * size_t(levels[l].height) * 3)
            throw std::logic_error("The exponential map's levels to upload have no colours.");
        offsets[l] = total;
        total += levels[l].rgb.size();
    }
    auto buffer = std::make_unique<DeviceFloats>(std::max<size_t>(total, 1));
    for (size_t l = 0; l < levels.size(); ++l)
        CUDA_CHECK(cudaMemcpy(buffer->ptr + offsets[l], levels[l].rgb.data(), levels[l].rgb.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
    return buffer;
}

// Lets `device` (current) read `peer`'s memory directly, where the driver allows it, so that a
// copy between them goes straight over their link; else the driver stages it. Once a pair for the
// process: peer access belongs to the devices' primary contexts, which live as long as it.
void enable_peer_access(int device, int peer) {
    static std::mutex mutex;
    static std::set<std::pair<int, int>> asked;
    std::lock_guard<std::mutex> lock(mutex);
    if (!asked.insert({device, peer}).second) return;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, device, peer) != cudaSuccess || !can) return;
    CUDA_CHECK(cudaDeviceEnablePeerAccess(peer, 0));
}

}  // namespace

struct ExpmapDeviceStrip {
    std::shared_ptr<const DeviceFloats> levels;
};

struct ExpmapDevice::State {
    std::map<int, std::shared_ptr<const DeviceFloats>> strips;  // octave -> its levels (shared: read only)
    cudaStream_t copy_stream = nullptr;  // adopt_strip's copies, apart from the other devices' work
    std::unique_ptr<DeviceFloats> flat;
    size_t flat_offset[kMaxLevels] = {};
    std::unique_ptr<DeviceFloats> table;  // the frame's octave pointers
    size_t table_entries = 0;
    uint8_t* rgba = nullptr;
    size_t rgba_bytes = 0;
    ~State() {
        if (rgba) cudaFree(rgba);
        if (copy_stream) cudaStreamDestroy(copy_stream);
    }
};

ExpmapDevice::ExpmapDevice() : state_(std::make_unique<State>()) {}
ExpmapDevice::~ExpmapDevice() = default;

void ExpmapDevice::reconstruct(const ExpmapReconstruction& frame, const std::map<int, std::vector<MipLevel>>& strips,
                               const std::vector<MipLevel>& flat, uint8_t* rgba) {
    std::string reason;
    if (!cuda_available(&reason))
        throw std::runtime_error("The exponential map cannot reconstruct frames on the GPU: " + reason + ".");
    State& s = *state_;
    if (strips.empty()) throw std::runtime_error("The exponential map has no strips for this frame.");
    if (frame.levels > kMaxLevels || int(flat.size()) > kMaxLevels)
        throw std::runtime_error("The exponential map has more mip levels than the GPU reconstruction takes.");
    // The device's strips follow the renderer's: dropped where gone, uploaded where new.
    for (auto it = s.strips.begin(); it != s.strips.end();) {
        if (!strips.count(it->first)) it = s.strips.erase(it);
        else ++it;
    }
    ReconstructParams p;
    p.frame = frame;
    for (const auto& [octave, levels] : strips) {
        size_t offsets[kMaxLevels] = {};
        if (!s.strips.count(octave)) s.strips[octave] = upload_levels(levels, offsets);
    }
    const std::vector<MipLevel>& first_levels = strips.begin()->second;
    size_t offset = 0;
    for (size_t l = 0; l < first_levels.size(); ++l) {  // every strip has the same levels
        p.strip_offset[l] = offset;
        p.strip_width[l] = first_levels[l].width;
        offset += size_t(first_levels[l].width) * size_t(first_levels[l].height) * 3;
    }
    p.first_octave = strips.begin()->first;
    p.last_octave = strips.rbegin()->first;
    // The octaves in reach, by octave - first_octave (every one between is loaded: expmap.cpp
    // keeps a contiguous run).
    std::vector<const float*> bases;
    for (int octave = p.first_octave; octave <= p.last_octave; ++octave) {
        auto it = s.strips.find(octave);
        if (it == s.strips.end()) throw std::runtime_error("The exponential map's strips are not contiguous.");
        bases.push_back(it->second->ptr);
    }
    if (s.table_entries < bases.size()) {
        s.table = std::make_unique<DeviceFloats>(bases.size() * sizeof(float*) / sizeof(float) + 2);
        s.table_entries = bases.size();
    }
    CUDA_CHECK(cudaMemcpy(s.table->ptr, bases.data(), bases.size() * sizeof(float*), cudaMemcpyHostToDevice));
    p.octave_base = reinterpret_cast<const float* const*>(s.table->ptr);
    if (frame.has_flat) {
        if (!s.flat) s.flat = upload_levels(flat, s.flat_offset);
        p.flat_base = s.flat->ptr;
        p.flat_levels = int(flat.size());
        for (size_t l = 0; l < flat.size(); ++l) {
            p.flat_offset[l] = s.flat_offset[l];
            p.flat_width[l] = flat[l].width;
            p.flat_height[l] = flat[l].height;
        }
    }
    const size_t bytes = size_t(frame.width) * size_t(frame.height) * 4;
    if (s.rgba_bytes < bytes) {
        if (s.rgba) CUDA_CHECK(cudaFree(s.rgba));
        s.rgba = nullptr;
        CUDA_CHECK(cuda_malloc(&s.rgba, bytes));
        s.rgba_bytes = bytes;
    }
    p.rgba = s.rgba;
    const dim3 block(16, 16);
    const dim3 grid(unsigned(frame.width + 15) / 16, unsigned(frame.height + 15) / 16);
    expmap_reconstruct_kernel<<<grid, block>>>(p);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(rgba, s.rgba, bytes, cudaMemcpyDeviceToHost));
}

void ExpmapDevice::upload_mu(DeepDeviceFrame& frame, const double* mu, int width, int height) {
    const size_t pixels = size_t(width) * size_t(height);
    frame.reserve(pixels);
    CUDA_CHECK(cudaMemcpy(frame.mu, mu, pixels * sizeof(double), cudaMemcpyHostToDevice));
    frame.width = width;
    frame.height = height;
}

void ExpmapDevice::colour_levels(int octave, DeepDeviceFrame& frame, const PaletteTable& palette, const View& view,
                                 int supersample, int levels) {
    if (levels < 1 || levels > kMaxLevels)
        throw std::runtime_error("The exponential map has more mip levels than the GPU reconstruction takes.");
    State& s = *state_;
    const int width = frame.width, height = frame.height;
    size_t offsets[kMaxLevels] = {};
    int widths[kMaxLevels] = {}, heights[kMaxLevels] = {};
    size_t total = 0;
    for (int l = 0; l < levels; ++l) {
        widths[l] = (width + (1 << l) - 1) >> l;
        heights[l] = (height + (1 << l) - 1) >> l;
        offsets[l] = total;
        total += size_t(widths[l]) * size_t(heights[l]) * 3;
    }
    auto buffer = std::make_unique<DeviceFloats>(std::max<size_t>(total, 1));
    const bool de = view.colouring.distance_estimation;
    const dim3 block(16, 16);
    for (int l = 0; l < levels; ++l) {
        if (l > 0 && !de) {
            mip_halve_kernel<<<texel_grid(widths[l], heights[l]), block>>>(buffer->ptr + offsets[l - 1], widths[l - 1],
                                                                           heights[l - 1], buffer->ptr + offsets[l],
                                                                           widths[l], heights[l]);
            CUDA_CHECK_LAUNCH();
            continue;
        }
        colour_deep_frame_cuda(frame, palette, view, 1.0 / (supersample * double(1 << l)), frame.rgba[0], nullptr);
        mip_from_rgba_kernel<<<texel_grid(widths[l], heights[l]), block>>>(
            frame.rgba[0], width, height, 1 << l, buffer->ptr + offsets[l], widths[l], heights[l]);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
    if (octave == kFlat) {
        s.flat = std::move(buffer);
        for (int l = 0; l < levels; ++l) s.flat_offset[l] = offsets[l];
    } else {
        s.strips[octave] = std::move(buffer);
    }
}

std::shared_ptr<const ExpmapDeviceStrip> ExpmapDevice::share_strip(int octave) const {
    auto it = state_->strips.find(octave);
    if (it == state_->strips.end()) throw std::logic_error("The exponential map shares a strip it does not hold.");
    return std::make_shared<const ExpmapDeviceStrip>(ExpmapDeviceStrip{it->second});
}

void ExpmapDevice::adopt_strip(int octave, const ExpmapDeviceStrip& strip) {
    State& s = *state_;
    const DeviceFloats& from = *strip.levels;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (from.device == device) {
        s.strips[octave] = strip.levels;
        return;
    }
    enable_peer_access(device, from.device);
    if (!s.copy_stream) CUDA_CHECK(cudaStreamCreateWithFlags(&s.copy_stream, cudaStreamNonBlocking));
    auto copy = std::make_shared<DeviceFloats>(from.count);
    CUDA_CHECK(
        cudaMemcpyPeerAsync(copy->ptr, device, from.ptr, from.device, from.count * sizeof(float), s.copy_stream));
    CUDA_CHECK(cudaStreamSynchronize(s.copy_stream));
    s.strips[octave] = std::move(copy);
}

}  // namespace ms
