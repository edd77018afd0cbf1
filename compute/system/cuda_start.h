// cuda_start.h: CUDA's start-up on a helper thread, beside the work a command does on the CPU.
//
// The driver (cuInit), the primary context and this program's probe kernel take a few hundred
// milliseconds of a process's life. cuda_start_in_background() starts them on a helper thread;
// the caller goes on with its work on the CPU (reading a location, a deep view's reference
// orbit, creating a window), and cuda_available() (cuda_info.h) then answers from that thread,
// waiting for what it has not finished. Calling it again does nothing.
#pragma once

#include <string>
#include <vector>

namespace ms {

void cuda_start_in_background();

// Waits for the helper threads (the start above, the release below): main() calls it before
// returning, so that no CUDA start-up or release is still running when the process's exit
// handlers tear CUDA down.
void cuda_finish_background_work();

// Releases the primary contexts of `devices` (cudaDeviceReset) on a helper thread, beside the
// command's last work on the CPU (a poster's last PNG rows and its summary), instead of in the
// process's exit, which otherwise waits for the driver: about 55 ms for one H200 and 130 ms for
// two (docs/performance.md). The caller has freed what it holds on those devices and runs no
// more CUDA work in this process; deep frames, streams and buffers destroyed after this free
// nothing there (their memory went with the context). Calling it again does nothing.
void cuda_release_devices_in_background(const std::vector<int>& devices);

// Whether cuda_release_devices_in_background has been called for `device`.
bool cuda_device_released(int device);

// Whether the driver reports a usable device, in the words of cuda_unavailable_reason(), without
// waiting for the context: after cuda_start_in_background(), the first half of its work. The
// probe kernel's check (can this device run this program's code?) comes in cuda_available(),
// which every CUDA path calls before its first kernel.
bool cuda_device_present(std::string* reason);

}  // namespace ms
