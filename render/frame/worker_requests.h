// worker_requests.h: the request scaffold the window's background workers share (the CPU
// renderer, cpu_render_worker; the deep-zoom renderer, deep_render_worker; Compare,
// compare_worker): post a request, serve them on the worker's thread, stop it. Each worker
// struct holds a std::thread `thread`, a mutex, a condition variable `wake`, an atomic
// `cancel`, `quit`, and one pending request (`has_request`, request_view, request_precision,
// request_palette, request_id). A worker's own file adds what its frames need; its
// worker_main() calls serve_worker_requests, its request_*() post_worker_request, and its stop
// and destructor stop_worker_thread.
#pragma once

#include <sched.h>

#include <cstdint>
#include <mutex>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"

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
// policy: SCHED_BATCH for the frame workers; Compare's measurement runs SCHED_IDLE (compare_worker.h).
template <class Worker, class OnTake, class Serve>
void serve_worker_requests(Worker& w, OnTake on_take, Serve serve, int policy = SCHED_BATCH) {
    const sched_param batch{};
    sched_setscheduler(0, policy, &batch);  // best effort: where refused, the thread stays as it was
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

// Posts `view` as the worker's one pending request (replacing any not picked up yet), cancels
// the one being served, wakes the worker and returns the new request's id. also(w) sets the
// worker's own request fields under the same lock (the deep worker's device).
template <class Worker, class Also>
uint64_t post_worker_request(Worker& w, const View& view, Precision precision, const PaletteTable& palette,
                             Also also) {
    std::lock_guard lock(w.mutex);
    w.cancel = true;
    w.has_request = true;
    w.request_view = view;
    w.request_precision = precision;
    w.request_palette = palette;
    also(w);
    ++w.request_id;
    w.wake.notify_one();
    return w.request_id;
}

template <class Worker>
uint64_t post_worker_request(Worker& w, const View& view, Precision precision, const PaletteTable& palette) {
    return post_worker_request(w, view, precision, palette, [](Worker&) {});
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
