// compare_worker.h: Compare's background job: renders one view on both paths, off the UI thread,
// and says how much faster CUDA was and whether the two pictures agree.
//
// One worker std::thread takes the newest request and
//   1. renders it with CUDA (direct_cuda_to_host, smooth values only; CUDA events time it),
//   2. renders it on the CPU's fast path, all cores, full resolution in one call (wall time;
//      a newer request cancels it within a few rows),
//   3. checks that the two frames agree (compute/fractal/direct/frame_compare.h).
// Past FP64 (a deep precision) it compares the deep paths instead: deep_cuda against deep_cpu,
// both with one reference orbit computed first (their times are frames with it cached), and
// their escape counts (int64) and smooth values in double.
// A new request or cancel_compare() stops the stale job at once; the UI thread only reads the
// status under the lock. The worker and its OpenMP team run in the SCHED_IDLE class, so the UI
// thread and the X server keep their frame rate while every core computes (on a machine busy
// with other programs, the CPU frame then waits for them, and its time says so).
#pragma once

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "render/frame/worker_requests.h"

namespace ms {

// Where a job stands and what it found. Times in milliseconds.
struct CompareStatus {
    uint64_t id = 0;  // the request it belongs to; 0: none yet
    View view;
    Precision precision = Precision::Fp64;  // resolved: both paths ran in it
    bool running = false;
    bool cuda_done = false;
    bool cpu_done = false;
    bool finished = false;  // both rendered and compared (or failed)
    bool cancelled = false;
    std::string error;     // a sentence when a path failed; finished is then set
    double cuda_ms = 0.0;  // CUDA events around the kernels
    double cpu_ms = 0.0;   // wall time of direct_cpu over the whole frame
    uint64_t cuda_iterations = 0;
    uint64_t cpu_iterations = 0;
    uint64_t cuda_skipped = 0;  // of those, skipped by BLA (deep frames; 0 on the direct paths)
    uint64_t cpu_skipped = 0;
    double cpu_progress = 0.0;  // 0..1 of the CPU frame while it runs
    double agreement = 0.0;     // fraction of pixels with identical escape counts, 0..1
    bool agree = false;         // compare_mu_frames' verdict (compute/fractal/direct/frame_compare.h)
    std::string disagreement;   // its sentence (the figures, and where they first differ)
};

struct CompareWorker {
    // Stops the thread if it still runs (an exception skipped stop_compare_worker), so that
    // ~PerfMonitor never destroys the condition variable the worker waits on.
    ~CompareWorker();
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> cancel{false};
    std::atomic<int> cpu_rows_done{0};
    ReferenceCache cache;        // deep views: the reference both deep paths use (kept across jobs)
    DeepCudaStream cuda_stream;  // deep views: deep_cuda runs on it (created on first use)
    // The worker thread's scheduling policy, set before start_compare_worker: SCHED_IDLE behind the
    // window (compare_worker.cpp says why). Under SCHED_IDLE a job waits while every core is busy,
    // so the tests, which wait for their jobs beside ctest's other tests, take SCHED_OTHER.
    int policy = SCHED_IDLE;
    // Guarded by mutex: the request waiting to be picked up (worker_requests.h) and the job's status.
    bool quit = false;
    bool has_request = false;
    WorkerRequest request;
    CompareStatus status;
};

void start_compare_worker(CompareWorker& worker);
// Compares `view` in `precision` (Auto is resolved here); cancels the job under way. Returns its id.
uint64_t request_compare(CompareWorker& worker, const View& view, Precision precision, const PaletteTable& palette);
// Stops the job under way, if any (its status says cancelled).
void cancel_compare(CompareWorker& worker);
CompareStatus poll_compare(CompareWorker& worker);
void stop_compare_worker(CompareWorker& worker);

}  // namespace ms
