// cuda_info.cu: what the CUDA runtime and driver say about this machine, filled into the plain
// structs of cuda_info.h (the `info` command prints them; the bench takes SMs, lanes and clocks
// from here for its "% of limit" figures).
//
// CUDA 13 removed several cudaDeviceProp fields (clockRate, memoryClockRate, ...): everything
// numeric comes from cudaDeviceGetAttribute, which also gives the full attribute list.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/system/cuda_info.h"
#include "compute/system/cuda_start.h"

namespace ms {

namespace {

struct NamedAttribute {
    const char* name;
    cudaDeviceAttr attribute;
};

// Every cudaDeviceAttr of CUDA 13's driver_types.h except the cudaDevAttrReservedNN ones, named
// the way PyCUDA's device_attribute does (cudaDevAttrMaxThreadsPerBlock -> MAX_THREADS_PER_BLOCK).
// Generated from the header; attributes the installed driver does not know are left out at run time.
constexpr NamedAttribute kAttributes[] = {
    {"MAX_THREADS_PER_BLOCK", cudaDevAttrMaxThreadsPerBlock},
    {"MAX_BLOCK_DIM_X", cudaDevAttrMaxBlockDimX},
    {"MAX_BLOCK_DIM_Y", cudaDevAttrMaxBlockDimY},
    {"MAX_BLOCK_DIM_Z", cudaDevAttrMaxBlockDimZ},
    {"MAX_GRID_DIM_X", cudaDevAttrMaxGridDimX},
    {"MAX_GRID_DIM_Y", cudaDevAttrMaxGridDimY},
    {"MAX_GRID_DIM_Z", cudaDevAttrMaxGridDimZ},
    {"MAX_SHARED_MEMORY_PER_BLOCK", cudaDevAttrMaxSharedMemoryPerBlock},
    {"TOTAL_CONSTANT_MEMORY", cudaDevAttrTotalConstantMemory},
    {"WARP_SIZE", cudaDevAttrWarpSize},
    {"MAX_PITCH", cudaDevAttrMaxPitch},
    {"MAX_REGISTERS_PER_BLOCK", cudaDevAttrMaxRegistersPerBlock},
    {"CLOCK_RATE", cudaDevAttrClockRate},
    {"TEXTURE_ALIGNMENT", cudaDevAttrTextureAlignment},
    {"GPU_OVERLAP", cudaDevAttrGpuOverlap},
    {"MULTIPROCESSOR_COUNT", cudaDevAttrMultiProcessorCount},
    {"KERNEL_EXEC_TIMEOUT", cudaDevAttrKernelExecTimeout},
    {"INTEGRATED", cudaDevAttrIntegrated},
    {"CAN_MAP_HOST_MEMORY", cudaDevAttrCanMapHostMemory},
    {"COMPUTE_MODE", cudaDevAttrComputeMode},
    {"MAX_TEXTURE_1D_WIDTH", cudaDevAttrMaxTexture1DWidth},
    {"MAX_TEXTURE_2D_WIDTH", cudaDevAttrMaxTexture2DWidth},
    {"MAX_TEXTURE_2D_HEIGHT", cudaDevAttrMaxTexture2DHeight},
    {"MAX_TEXTURE_3D_WIDTH", cudaDevAttrMaxTexture3DWidth},
    {"MAX_TEXTURE_3D_HEIGHT", cudaDevAttrMaxTexture3DHeight},
    {"MAX_TEXTURE_3D_DEPTH", cudaDevAttrMaxTexture3DDepth},
    {"MAX_TEXTURE_2D_LAYERED_WIDTH", cudaDevAttrMaxTexture2DLayeredWidth},
    {"MAX_TEXTURE_2D_LAYERED_HEIGHT", cudaDevAttrMaxTexture2DLayeredHeight},
    {"MAX_TEXTURE_2D_LAYERED_LAYERS", cudaDevAttrMaxTexture2DLayeredLayers},
    {"SURFACE_ALIGNMENT", cudaDevAttrSurfaceAlignment},
    {"CONCURRENT_KERNELS", cudaDevAttrConcurrentKernels},
    {"ECC_ENABLED", cudaDevAttrEccEnabled},
    {"PCI_BUS_ID", cudaDevAttrPciBusId},
    {"PCI_DEVICE_ID", cudaDevAttrPciDeviceId},
    {"TCC_DRIVER", cudaDevAttrTccDriver},
    {"MEMORY_CLOCK_RATE", cudaDevAttrMemoryClockRate},
    {"GLOBAL_MEMORY_BUS_WIDTH", cudaDevAttrGlobalMemoryBusWidth},
    {"L2_CACHE_SIZE", cudaDevAttrL2CacheSize},
    {"MAX_THREADS_PER_MULTIPROCESSOR", cudaDevAttrMaxThreadsPerMultiProcessor},
    {"ASYNC_ENGINE_COUNT", cudaDevAttrAsyncEngineCount},
    {"UNIFIED_ADDRESSING", cudaDevAttrUnifiedAddressing},
    {"MAX_TEXTURE_1D_LAYERED_WIDTH", cudaDevAttrMaxTexture1DLayeredWidth},
    {"MAX_TEXTURE_1D_LAYERED_LAYERS", cudaDevAttrMaxTexture1DLayeredLayers},
    {"MAX_TEXTURE_2D_GATHER_WIDTH", cudaDevAttrMaxTexture2DGatherWidth},
    {"MAX_TEXTURE_2D_GATHER_HEIGHT", cudaDevAttrMaxTexture2DGatherHeight},
    {"MAX_TEXTURE_3D_WIDTH_ALT", cudaDevAttrMaxTexture3DWidthAlt},
    {"MAX_TEXTURE_3D_HEIGHT_ALT", cudaDevAttrMaxTexture3DHeightAlt},
    {"MAX_TEXTURE_3D_DEPTH_ALT", cudaDevAttrMaxTexture3DDepthAlt},
    {"PCI_DOMAIN_ID", cudaDevAttrPciDomainId},
    {"TEXTURE_PITCH_ALIGNMENT", cudaDevAttrTexturePitchAlignment},
    {"MAX_TEXTURE_CUBEMAP_WIDTH", cudaDevAttrMaxTextureCubemapWidth},
    {"MAX_TEXTURE_CUBEMAP_LAYERED_WIDTH", cudaDevAttrMaxTextureCubemapLayeredWidth},
    {"MAX_TEXTURE_CUBEMAP_LAYERED_LAYERS", cudaDevAttrMaxTextureCubemapLayeredLayers},
    {"MAX_SURFACE_1D_WIDTH", cudaDevAttrMaxSurface1DWidth},
    {"MAX_SURFACE_2D_WIDTH", cudaDevAttrMaxSurface2DWidth},
    {"MAX_SURFACE_2D_HEIGHT", cudaDevAttrMaxSurface2DHeight},
    {"MAX_SURFACE_3D_WIDTH", cudaDevAttrMaxSurface3DWidth},
    {"MAX_SURFACE_3D_HEIGHT", cudaDevAttrMaxSurface3DHeight},
    {"MAX_SURFACE_3D_DEPTH", cudaDevAttrMaxSurface3DDepth},
    {"MAX_SURFACE_1D_LAYERED_WIDTH", cudaDevAttrMaxSurface1DLayeredWidth},
    {"MAX_SURFACE_1D_LAYERED_LAYERS", cudaDevAttrMaxSurface1DLayeredLayers},
    {"MAX_SURFACE_2D_LAYERED_WIDTH", cudaDevAttrMaxSurface2DLayeredWidth},
    {"MAX_SURFACE_2D_LAYERED_HEIGHT", cudaDevAttrMaxSurface2DLayeredHeight},
    {"MAX_SURFACE_2D_LAYERED_LAYERS", cudaDevAttrMaxSurface2DLayeredLayers},
    {"MAX_SURFACE_CUBEMAP_WIDTH", cudaDevAttrMaxSurfaceCubemapWidth},
    {"MAX_SURFACE_CUBEMAP_LAYERED_WIDTH", cudaDevAttrMaxSurfaceCubemapLayeredWidth},
    {"MAX_SURFACE_CUBEMAP_LAYERED_LAYERS", cudaDevAttrMaxSurfaceCubemapLayeredLayers},
    {"MAX_TEXTURE_1D_LINEAR_WIDTH", cudaDevAttrMaxTexture1DLinearWidth},
    {"MAX_TEXTURE_2D_LINEAR_WIDTH", cudaDevAttrMaxTexture2DLinearWidth},
    {"MAX_TEXTURE_2D_LINEAR_HEIGHT", cudaDevAttrMaxTexture2DLinearHeight},
    {"MAX_TEXTURE_2D_LINEAR_PITCH", cudaDevAttrMaxTexture2DLinearPitch},
    {"MAX_TEXTURE_2D_MIPMAPPED_WIDTH", cudaDevAttrMaxTexture2DMipmappedWidth},
    {"MAX_TEXTURE_2D_MIPMAPPED_HEIGHT", cudaDevAttrMaxTexture2DMipmappedHeight},
    {"COMPUTE_CAPABILITY_MAJOR", cudaDevAttrComputeCapabilityMajor},
    {"COMPUTE_CAPABILITY_MINOR", cudaDevAttrComputeCapabilityMinor},
    {"MAX_TEXTURE_1D_MIPMAPPED_WIDTH", cudaDevAttrMaxTexture1DMipmappedWidth},
    {"STREAM_PRIORITIES_SUPPORTED", cudaDevAttrStreamPrioritiesSupported},
    {"GLOBAL_L1_CACHE_SUPPORTED", cudaDevAttrGlobalL1CacheSupported},
    {"LOCAL_L1_CACHE_SUPPORTED", cudaDevAttrLocalL1CacheSupported},
    {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", cudaDevAttrMaxSharedMemoryPerMultiprocessor},
    {"MAX_REGISTERS_PER_MULTIPROCESSOR", cudaDevAttrMaxRegistersPerMultiprocessor},
    {"MANAGED_MEMORY", cudaDevAttrManagedMemory},
    {"IS_MULTI_GPU_BOARD", cudaDevAttrIsMultiGpuBoard},
    {"MULTI_GPU_BOARD_GROUP_ID", cudaDevAttrMultiGpuBoardGroupID},
    {"HOST_NATIVE_ATOMIC_SUPPORTED", cudaDevAttrHostNativeAtomicSupported},
    {"SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO", cudaDevAttrSingleToDoublePrecisionPerfRatio},
    {"PAGEABLE_MEMORY_ACCESS", cudaDevAttrPageableMemoryAccess},
    {"CONCURRENT_MANAGED_ACCESS", cudaDevAttrConcurrentManagedAccess},
    {"COMPUTE_PREEMPTION_SUPPORTED", cudaDevAttrComputePreemptionSupported},
    {"CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM", cudaDevAttrCanUseHostPointerForRegisteredMem},
    {"COOPERATIVE_LAUNCH", cudaDevAttrCooperativeLaunch},
    {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", cudaDevAttrMaxSharedMemoryPerBlockOptin},
    {"CAN_FLUSH_REMOTE_WRITES", cudaDevAttrCanFlushRemoteWrites},
    {"HOST_REGISTER_SUPPORTED", cudaDevAttrHostRegisterSupported},
    {"PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES", cudaDevAttrPageableMemoryAccessUsesHostPageTables},
    {"DIRECT_MANAGED_MEM_ACCESS_FROM_HOST", cudaDevAttrDirectManagedMemAccessFromHost},
    {"MAX_BLOCKS_PER_MULTIPROCESSOR", cudaDevAttrMaxBlocksPerMultiprocessor},
    {"MAX_PERSISTING_L2_CACHE_SIZE", cudaDevAttrMaxPersistingL2CacheSize},
    {"MAX_ACCESS_POLICY_WINDOW_SIZE", cudaDevAttrMaxAccessPolicyWindowSize},
    {"SPARSE_CUDA_ARRAY_SUPPORTED", cudaDevAttrSparseCudaArraySupported},
    {"HOST_REGISTER_READ_ONLY_SUPPORTED", cudaDevAttrHostRegisterReadOnlySupported},
    {"TIMELINE_SEMAPHORE_INTEROP_SUPPORTED", cudaDevAttrTimelineSemaphoreInteropSupported},
    {"MEMORY_POOLS_SUPPORTED", cudaDevAttrMemoryPoolsSupported},
    {"GPU_DIRECT_RDMA_SUPPORTED", cudaDevAttrGPUDirectRDMASupported},
    {"GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS", cudaDevAttrGPUDirectRDMAFlushWritesOptions},
    {"GPU_DIRECT_RDMA_WRITES_ORDERING", cudaDevAttrGPUDirectRDMAWritesOrdering},
    {"MEMORY_POOL_SUPPORTED_HANDLE_TYPES", cudaDevAttrMemoryPoolSupportedHandleTypes},
    {"CLUSTER_LAUNCH", cudaDevAttrClusterLaunch},
    {"DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED", cudaDevAttrDeferredMappingCudaArraySupported},
    {"IPC_EVENT_SUPPORT", cudaDevAttrIpcEventSupport},
    {"MEM_SYNC_DOMAIN_COUNT", cudaDevAttrMemSyncDomainCount},
    {"NUMA_CONFIG", cudaDevAttrNumaConfig},
    {"NUMA_ID", cudaDevAttrNumaId},
    {"MPS_ENABLED", cudaDevAttrMpsEnabled},
    {"HOST_NUMA_ID", cudaDevAttrHostNumaId},
    {"D3D12_CIG_SUPPORTED", cudaDevAttrD3D12CigSupported},
    {"VULKAN_CIG_SUPPORTED", cudaDevAttrVulkanCigSupported},
    {"GPU_PCI_DEVICE_ID", cudaDevAttrGpuPciDeviceId},
    {"GPU_PCI_SUBSYSTEM_ID", cudaDevAttrGpuPciSubsystemId},
    {"HOST_NUMA_MEMORY_POOLS_SUPPORTED", cudaDevAttrHostNumaMemoryPoolsSupported},
    {"HOST_NUMA_MULTINODE_IPC_SUPPORTED", cudaDevAttrHostNumaMultinodeIpcSupported},
    {"HOST_MEMORY_POOLS_SUPPORTED", cudaDevAttrHostMemoryPoolsSupported},
    {"ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED", cudaDevAttrOnlyPartialHostNativeAtomicSupported},
};

std::string runtime_error_sentence(cudaError_t err) {
    return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

std::string version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// A kernel to ask the runtime whether this binary has code the device can run.
__global__ void probe_kernel() {}

}  // namespace

// FP32 and FP64 units per SM, from the CUDA C Programming Guide's arithmetic-throughput table
// (results per clock per SM). 0 for capabilities this table does not know.
int cuda_fp32_lanes_per_sm(int major, int minor) {
    const int cc = major * 10 + minor;
    switch (cc) {
    case 50:
    case 52:
    case 53:
    case 61:
    case 62: return 128;  // Maxwell, Pascal consumer
    case 60: return 64;   // P100
    case 70:
    case 72:
    case 75: return 64;  // Volta, Turing
    case 80: return 64;  // A100
    case 86:
    case 87:
    case 89: return 128;  // Ampere consumer, Orin, Ada
    case 90: return 128;  // H100, H200
    case 100:
    case 103:
    case 110:
    case 120:
    case 121: return 128;  // Blackwell
    default: return 0;
    }
}

int cuda_fp64_lanes_per_sm(int major, int minor) {
    const int cc = major * 10 + minor;
    switch (cc) {
    case 50:
    case 52:
    case 53:
    case 61:
    case 62: return 4;
    case 60: return 32;
    case 70: return 32;
    case 72:
    case 75: return 2;
    case 80: return 32;
    case 86:
    case 87:
    case 89: return 2;
    case 90: return 64;
    case 100:
    case 103: return 64;
    case 110:
    case 120:
    case 121: return 2;
    default: return 0;
    }
}

std::string cuda_unavailable_reason() {
    int runtime_version = 0, driver_version = 0;
    cudaRuntimeGetVersion(&runtime_version);
    // cudaDriverGetVersion reports 0 (and succeeds) when no driver is installed at all.
    if (cudaDriverGetVersion(&driver_version) != cudaSuccess) driver_version = 0;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return {};
    cudaGetLastError();  // clear the sticky error for later calls
    if (driver_version == 0) return "no NVIDIA driver is installed";
    if (err == cudaErrorInsufficientDriver || driver_version < runtime_version)
        return "the NVIDIA driver (CUDA " + version_text(driver_version) +
               ") is older than this program's CUDA runtime (" + version_text(runtime_version) +
               "): " + runtime_error_sentence(err);
    if (err == cudaErrorNoDevice || count == 0)
        return "no CUDA device: the NVIDIA driver is installed but reports no GPU" +
               (err != cudaSuccess ? ": " + runtime_error_sentence(err) : std::string());
    return "the NVIDIA driver cannot be used: " + runtime_error_sentence(err);
}

CudaSystemInfo query_cuda_system() {
    CudaSystemInfo info;
    cudaRuntimeGetVersion(&info.runtime_version);
    if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
    info.reason = cuda_unavailable_reason();
    if (!info.reason.empty()) return info;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;  // succeeded just above

    for (int d = 0; d < count; ++d) {
        CudaDeviceInfo dev;
        dev.index = d;
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess) {
            dev.name = prop.name;
            dev.total_memory_bytes = prop.totalGlobalMem;
        }
        for (const auto& a : kAttributes) {
            int value = 0;
            if (cudaDeviceGetAttribute(&value, a.attribute, d) == cudaSuccess)
                dev.attributes.emplace_back(a.name, value);
            else cudaGetLastError();  // an attribute this driver does not know: leave it out
        }
        auto attr = [&](cudaDeviceAttr a) {
            int value = 0;
            if (cudaDeviceGetAttribute(&value, a, d) != cudaSuccess) cudaGetLastError();
            return value;
        };
        dev.compute_major = attr(cudaDevAttrComputeCapabilityMajor);
        dev.compute_minor = attr(cudaDevAttrComputeCapabilityMinor);
        dev.sm_count = attr(cudaDevAttrMultiProcessorCount);
        dev.clock_khz = attr(cudaDevAttrClockRate);
        dev.memory_clock_khz = attr(cudaDevAttrMemoryClockRate);
        dev.memory_bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
        dev.l2_cache_bytes = attr(cudaDevAttrL2CacheSize);
        dev.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
        dev.fp32_lanes_per_sm = cuda_fp32_lanes_per_sm(dev.compute_major, dev.compute_minor);
        dev.fp64_lanes_per_sm = cuda_fp64_lanes_per_sm(dev.compute_major, dev.compute_minor);
        // Double data rate: two transfers per memory clock, bus width in bits.
        dev.memory_bytes_per_second = 2.0 * dev.memory_clock_khz * 1000.0 * dev.memory_bus_width_bits / 8.0;
        info.devices.push_back(std::move(dev));
    }
    info.usable = true;
    return info;
}

int64_t cuda_device_memory_used_bytes() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();  // clear the error: this is a question, not a failure
        return -1;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return int64_t(total_bytes - free_bytes);
}

namespace {

// The probe kernel's check: "" when this device can run this program's kernels. Creates the
// primary context and loads the probe's module.
std::string probe_kernel_reason() {
    cudaFuncAttributes attributes{};
    const cudaError_t err = cudaFuncGetAttributes(&attributes, probe_kernel);
    if (err == cudaSuccess) return {};
    cudaGetLastError();
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    return "the CUDA device (compute capability " + std::to_string(major) + "." + std::to_string(minor) +
           ") cannot run this program's kernels: " + cudaGetErrorString(err);
}

// The helper thread of cuda_start_in_background and its two answers, each set once.
struct BackgroundStart {
    std::once_flag once;
    std::thread thread;
    std::promise<std::string> device_promise, probe_promise;
    std::shared_future<std::string> device_reason, probe_reason;
    std::atomic<bool> started{false};  // set once the futures above exist (release; readers acquire)
};

BackgroundStart& background_start() {
    static BackgroundStart start;
    return start;
}

// The helper thread of cuda_release_devices_in_background. The released devices are a bit
// mask (devices 0 to 63; later ones are not released) that needs no destructor: buffers freed
// by static destructors at the exit still read it.
struct BackgroundRelease {
    std::once_flag once;
    std::thread thread;
    std::atomic<bool> started{false};  // set once `thread` exists (release; readers acquire)
};

BackgroundRelease& background_release() {
    static BackgroundRelease release;
    return release;
}

std::atomic<uint64_t> released_devices{0};

}  // namespace

void cuda_start_in_background() {
    BackgroundStart& b = background_start();
    std::call_once(b.once, [&b] {
        b.device_reason = b.device_promise.get_future().share();
        b.probe_reason = b.probe_promise.get_future().share();
        b.thread = std::thread([&b] {
            std::string why = cuda_unavailable_reason();
            const bool present = why.empty();
            b.device_promise.set_value(why);
            b.probe_promise.set_value(present ? probe_kernel_reason() : why);
        });
        b.started.store(true, std::memory_order_release);
    });
}

void cuda_finish_background_work() {
    BackgroundStart& b = background_start();
    if (b.started.load(std::memory_order_acquire) && b.thread.joinable()) b.thread.join();
    BackgroundRelease& r = background_release();
    if (r.started.load(std::memory_order_acquire) && r.thread.joinable()) r.thread.join();
}

void cuda_release_devices_in_background(const std::vector<int>& devices) {
    BackgroundRelease& r = background_release();
    std::call_once(r.once, [&r, &devices] {
        std::vector<int> released;
        for (int device : devices)
            if (device >= 0 && device < 64 && std::find(released.begin(), released.end(), device) == released.end()) {
                released.push_back(device);
                released_devices.fetch_or(uint64_t(1) << device);
            }
        // One thread a device: the driver releases them one after another, but no reset then
        // waits for another thread's cudaSetDevice.
        r.thread = std::thread([released] {
            std::vector<std::thread> resets;
            for (int device : released)
                resets.emplace_back([device] {
                    if (cudaSetDevice(device) == cudaSuccess) (void)cudaDeviceReset();
                });
            for (std::thread& t : resets) t.join();
        });
        r.started.store(true, std::memory_order_release);
    });
}

bool cuda_device_released(int device) {
    return device >= 0 && device < 64 && (released_devices.load() >> device & 1) != 0;
}

bool cuda_device_present(std::string* reason) {
    BackgroundStart& b = background_start();
    std::string why = b.started.load(std::memory_order_acquire) ? b.device_reason.get() : cuda_unavailable_reason();
    if (reason) *reason = why;
    return why.empty();
}

bool cuda_available(std::string* reason) {
    BackgroundStart& b = background_start();
    std::string why;
    if (b.started.load(std::memory_order_acquire)) {
        why = b.probe_reason.get();
    } else {
        why = cuda_unavailable_reason();
        if (why.empty()) why = probe_kernel_reason();
    }
    if (reason) *reason = why;
    return why.empty();
}

}  // namespace ms
