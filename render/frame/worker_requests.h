// worker_requests.h: the request scaffold the window's background workers share (the CPU
// renderer, cpu_render_worker; the deep-zoom renderer, deep_render_worker; Compare,
// compare_worker): post a request, serve them on the worker's thread, stop it. Each worker
// struct holds a std::thread `thread`, a mutex, a condition variable `wake`, an atomic
// `cancel`, `quit`, and one pending request: `has_request` and `request`, a WorkerRequest or a
// struct that extends it with the worker's own fields (the deep worker's device). A worker's own
// file adds what its frames need; its worker_main() calls serve_worker_requests, its
// request_*() post_worker_request, and its stop and destructor stop_worker_thread.
#pragma once

#include <sched.h>

#include <cstdint>
#include <mutex>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"

namespace ms {

struct WorkerRequest {
    View view;
    Precision precision = Precision::Auto;  // as asked: each worker resolves it for its paths
    PaletteTable palette;
    uint64_t id = 0;  // the requests posted to the worker so far, this one included (0: none yet)
};

// Puts the calling thread in the SCHED_BATCH class (Linux keeps the policy per thread and new
// threads inherit it: the OpenMP team it starts is batch too), then serves the worker's
// requests until it quits. SCHED_BATCH keeps the fair share of an ordinary thread, so a frame
// computes as fast as `mandelscope render` does from a shell, but its threads never preempt
// the UI thread when they wake. A nice value would not do: at nice 5 the workers get a quarter
// of the share of every nice-0 thread (the UI, Mesa's llvmpipe threads and any other program),
// so the window's CPU frame would take several times render's on a busy machine.
// Serving: waits for one, takes a copy of it under the mutex (clearing has_request and cancel;
// on_take(request) runs under the lock too, to reset shared status) and calls serve(request)
// outside the lock.
// policy: SCHED_BATCH for the frame workers; Compare's measurement runs SCHED_IDLE (compare_worker.h).
template <class Worker, class OnTake, class Serve>
void serve_worker_requests(Worker& w, OnTake on_take, Serve serve, int policy = SCHED_BATCH) {
    const sched_param batch{};
    sched_setscheduler(0, policy, &batch);  // best effort: where refused, the thread stays as it was
    for (;;) {
        decltype(w.request) request;
        {
            std::unique_lock lock(w.mutex);
            w.wake.wait(lock, [&w] { return w.quit || w.has_request; });
            if (w.quit) return;
            request = w.request;
            w.has_request = false;
            w.cancel = false;
            on_take(request);
        }
        serve(request);
    }
}

// Posts `view` as the worker's one pending request (replacing any not picked up yet), cancels
// the one being served, wakes the worker and returns the new request's id. also(w.request) sets
// the worker's own request fields under the same lock (the deep worker's device).
template <class Worker, class Also>
uint64_t post_worker_request(Worker& w, const View& view, Precision precision, const PaletteTable& palette, Also also) {
    std::lock_guard lock(w.mutex);
    w.cancel = true;
    w.has_request = true;
    w.request.view = view;
    w.request.precision = precision;
    w.request.palette = palette;
    also(w.request);
    ++w.request.id;
    w.wake.notify_one();
    return w.request.id;
}

template <class Worker>
uint64_t post_worker_request(Worker& w, const View& view, Precision precision, const PaletteTable& palette) {
    return post_worker_request(w, view, precision, palette, [](WorkerRequest&) {});
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
