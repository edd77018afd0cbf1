// nucleus_worker.h: the Newton zoom's searches, off the UI thread.
//
// A search (compute/fractal/nucleus/nucleus.h: the period of the lowest-period nucleus near the
// cursor, then the nucleus by Newton's method in MPFR) takes milliseconds at the default view
// and seconds deep down: far more than a frame. One worker std::thread takes the newest job:
//   Minibrot, EmbeddedJulia  find_minibrot in the disc of radius_pixels around the cursor;
//   NextPeriod               the same, then again for the lowest period above the one found;
//   None (hover)             the same as Minibrot, for the overlay of the period and nucleus
//                            under a resting cursor.
// A newer job cancels the one under way (the cancel flag is polled by the search, as a
// reference orbit polls the deep worker's); a hover job never replaces a zoom the user asked
// for. The UI never waits: it reads the status (stage and fraction) and takes the result when
// one is there. The worker runs SCHED_BATCH, like the frame workers (worker_requests.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <glm/vec2.hpp>

#include "compute/fractal/nucleus/nucleus.h"
#include "compute/fractal/view/view.h"
#include "render/frame/navigation.h"

namespace ms {

struct NucleusJob {
    NewtonTarget target = NewtonTarget::None;  // None: a hover job
    View view;                                 // the view it was asked in
    glm::dvec2 pixel{0.0, 0.0};                // the cursor, in the view's pixels
    double radius_pixels = 24.0;
    uint64_t id = 0;  // the jobs posted so far, this one included
};

struct NucleusResult {
    NucleusJob job;
    Minibrot minibrot;         // found, or the sentence why not
    int64_t below_period = 0;  // NextPeriod: the period found first, which it went beyond
    double ms = 0.0;           // the whole search
};

struct NucleusWorker {
    ~NucleusWorker();  // stops the thread if it still runs
    std::thread thread;
    mutable std::mutex mutex;  // nucleus_status reads a const worker
    std::condition_variable wake;
    std::atomic<bool> cancel{false};
    std::function<void()> on_news;  // called from the worker when a result is ready (set before start)

    // Guarded by mutex. The job waiting to be picked up.
    bool quit = false;
    bool has_request = false;
    NucleusJob request;
    // Guarded by mutex. The job under way and its progress; the last result not taken yet.
    uint64_t working_id = 0;  // 0: idle
    NewtonTarget working_target = NewtonTarget::None;
    std::string stage;
    double fraction = 0.0;
    bool has_result = false;
    NucleusResult result;
};

struct NucleusStatus {
    bool busy = false;  // a job is waiting or under way
    NewtonTarget target = NewtonTarget::None;
    std::string stage;  // what the search does now ("period", "newton", ...)
    double fraction = 0.0;
};

void start_nucleus_worker(NucleusWorker& worker);
// Posts `job` (replacing the one waiting), cancels the one under way, returns its id. A hover
// job (target None) is dropped while a zoom job waits or runs: returns 0 then.
uint64_t request_nucleus(NucleusWorker& worker, NucleusJob job);
// Cancels the job under way and drops the one waiting (Esc).
void cancel_nucleus(NucleusWorker& worker);
NucleusStatus nucleus_status(const NucleusWorker& worker);
// The last finished job's result, once (false when there is none). A cancelled job leaves none.
bool take_nucleus_result(NucleusWorker& worker, NucleusResult* out);
void stop_nucleus_worker(NucleusWorker& worker);

// The disc a job searches: the location at the cursor (the view's centre moved there, exactly)
// and its radius in plane units.
DeepLocation nucleus_search_location(const View& view, glm::dvec2 pixel);
FloatExp nucleus_search_radius(const View& view, double radius_pixels);

}  // namespace ms
