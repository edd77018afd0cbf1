// fault_injection.h: seams that make chosen operations fail on demand, so tests can show what a
// user sees when a GPU allocation, a kernel launch, the CUDA-GL mapping, a disk write or an
// asset fails: one sentence, the fallback where one exists (interop -> copy -> CPU), exit
// status 2 from the command line, and no partial file.
//
//   MANDELSCOPE_INJECT_FAULTS=cuda_malloc,kernel_launch,map_resources,png_write,asset_open,device_fail
//
// Read only by builds made with MANDELSCOPE_FAULT_INJECTION (CMake: on wherever the tests are
// built, the default; -DMANDELSCOPE_FAULT_INJECTION=OFF compiles every check out, and the
// variable is then ignored). An unknown name is reported once on stderr and ignored.
#pragma once

namespace ms {

enum class Fault {
    CudaMalloc,    // cuda_malloc (cuda_check.h) reports cudaErrorMemoryAllocation
    KernelLaunch,  // CUDA_CHECK_LAUNCH() reports cudaErrorLaunchOutOfResources
    MapResources,  // mapping the window's GL buffer into CUDA fails (render/frame/cuda_interop.cu)
    PngWrite,      // AtomicFile::write fails as on a full disk (compute/io/image_io.h)
    AssetOpen,     // opening a palette or the CNN weights fails
    DeviceFail,    // a frame spread over devices loses its last one after a band (compute/scale/)
    Count
};

const char* fault_name(Fault fault);

#if MANDELSCOPE_FAULT_INJECTION
bool fault_injected(Fault fault);
#else
inline bool fault_injected(Fault) { return false; }
#endif

}  // namespace ms
