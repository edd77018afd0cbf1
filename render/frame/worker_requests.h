// worker_requests.h: the request loop (and its stop) the window's background workers share (the progressive
// CPU renderer, cpu_render_worker; Compare, compare_worker). Each worker struct holds a mutex,
// a condition variable `wake`, an atomic `cancel`, `quit`, and one pending request
// (`has_request`, request_view, request_precision, request_palette, request_id).
#pragma once

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>

#include "compute/fractal/palette.h"
#include "compute/fractal/view.h"

namespace ms {

// The workers' nice value: below the UI thread.
inline constexpr int kWorkerNice = 5;

struct WorkerRequest {
    View view;
    Precision precision = Precision::Auto;
    PaletteTable palette;
    uint64_t id = 0;
};

// Lowers the calling thread's priority (Linux keeps nice values per thread and new threads
// inherit them: the OpenMP team it starts runs niced too), then serves the worker's requests
// until it quits: waits for one, takes it under the mutex (clearing has_request and cancel;
// on_take(request) runs under the lock too, to reset shared status) and calls serve(request)
// outside the lock.
template <class Worker, class OnTake, class Serve>
void serve_worker_requests(Worker& w, OnTake on_take, Serve serve) {
    setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), kWorkerNice);
    for (;;) {
        WorkerRequest request;
        {
            std::unique_lock lock(w.mutex);
            w.wake.wait(lock, [&w] { return w.quit || w.has_request; });
            if (w.quit) return;
            request = {w.request_view, w.request_precision, w.request_palette, w.request_id};
            w.has_request = false;
            w.cancel = false;
            on_take(request);
        }
        serve(request);
    }
}

// Stops the worker's thread (if it runs): cancels the frame in progress, tells the loop above to
// quit, and joins.
template <class Worker>
void stop_worker_thread(Worker& w) {
    if (!w.thread.joinable()) return;
    {
        std::lock_guard lock(w.mutex);
        w.quit = true;
        w.cancel = true;
        w.wake.notify_one();
    }
    w.thread.join();
}

}  // namespace ms
