// worker_requests.h: the request loop (and its stop) the window's background workers share (the progressive
// CPU renderer, cpu_render_worker; Compare, compare_worker). Each worker struct holds a mutex,
// a condition variable `wake`, an atomic `cancel`, `quit`, and one pending request
// (`has_request`, request_view, request_precision, request_palette, request_id).
#pragma once

#include <sched.h>

#include <cstdint>
#include <mutex>

#include "compute/fractal/palette.h"
#include "compute/fractal/view.h"

namespace ms {

struct WorkerRequest {
    View view;
    Precision precision = Precision::Auto;
    PaletteTable palette;
    uint64_t id = 0;
};

// Puts the calling thread in the SCHED_BATCH class (Linux keeps the policy per thread and new
// threads inherit it: the OpenMP team it starts is batch too), then serves the worker's
// requests until it quits. SCHED_BATCH keeps the fair share of an ordinary thread, so a frame
// computes as fast as `mandelscope render` does from a shell, but its threads never preempt
// the UI thread when they wake. (A nice value was used before: at nice 5 the workers got a
// quarter of the share of every nice-0 thread, the UI, Mesa's llvmpipe threads and any other
// program, and the window's CPU frame took 3 to 10 times render's on a busy machine.)
// Serving: waits for one, takes it under the mutex (clearing has_request and cancel;
// on_take(request) runs under the lock too, to reset shared status) and calls serve(request)
// outside the lock.
template <class Worker, class OnTake, class Serve>
void serve_worker_requests(Worker& w, OnTake on_take, Serve serve) {
    const sched_param batch{};
    sched_setscheduler(0, SCHED_BATCH, &batch);  // best effort: where refused, the thread stays as it was
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
