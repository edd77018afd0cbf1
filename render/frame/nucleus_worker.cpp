// nucleus_worker.cpp: the Newton zoom's search thread (see nucleus_worker.h).
#include "render/frame/nucleus_worker.h"

#include <chrono>

#include "render/frame/view_math.h"
#include "render/frame/worker_requests.h"

namespace ms {

DeepLocation nucleus_search_location(const View& view, glm::dvec2 pixel) {
    return deep_location(center_view_on(view, pixel));
}

FloatExp nucleus_search_radius(const View& view, double radius_pixels) {
    return deep_pixel_spacing(view_zoom(view), view.height) * fe_from_double(radius_pixels);
}

namespace {

NucleusResult run_job(NucleusWorker& w, const NucleusJob& job) {
    const auto start = std::chrono::steady_clock::now();
    NucleusResult out;
    out.job = job;
    NucleusSearch search;
    search.cancel = &w.cancel;
    search.progress = [&w](const char* stage, double fraction) {
        std::lock_guard lock(w.mutex);
        w.stage = stage ? stage : "";
        w.fraction = fraction;
    };
    const DeepLocation around = nucleus_search_location(job.view, job.pixel);
    const FloatExp radius = nucleus_search_radius(job.view, job.radius_pixels);
    out.minibrot = find_minibrot(around, radius, search);
    if (job.target == NewtonTarget::NextPeriod && out.minibrot.found && !w.cancel) {
        out.below_period = out.minibrot.period;
        search.after_period = out.minibrot.period;
        out.minibrot = find_minibrot(around, radius, search);
    }
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

void worker_main(NucleusWorker& w) {
    serve_worker_requests(
        w,
        [&w](const NucleusJob& job) {
            w.working_id = job.id;
            w.working_target = job.target;
            w.stage.clear();
            w.fraction = 0.0;
        },
        [&w](const NucleusJob& job) {
            NucleusResult result;
            try {
                result = run_job(w, job);
            } catch (const std::exception& e) {  // out of memory, a location MPFR refuses
                result.job = job;
                result.minibrot.failure = e.what();
            }
            {
                std::lock_guard lock(w.mutex);
                w.working_id = 0;
                if (w.cancel || w.has_request) return;  // superseded: its result is stale
                w.result = std::move(result);
                w.has_result = true;
            }
            if (w.on_news) w.on_news();
        });
}

}  // namespace

NucleusWorker::~NucleusWorker() { stop_nucleus_worker(*this); }

void start_nucleus_worker(NucleusWorker& worker) {
    if (!worker.thread.joinable()) worker.thread = std::thread(worker_main, std::ref(worker));
}

uint64_t request_nucleus(NucleusWorker& w, NucleusJob job) {
    std::lock_guard lock(w.mutex);
    const bool zoom_pending = (w.has_request && w.request.target != NewtonTarget::None) ||
                              (w.working_id != 0 && w.working_target != NewtonTarget::None);
    if (job.target == NewtonTarget::None && zoom_pending) return 0;
    job.id = w.request.id + 1;
    w.request = job;
    w.has_request = true;
    w.cancel = true;
    w.has_result = false;
    w.wake.notify_one();
    return job.id;
}

void cancel_nucleus(NucleusWorker& w) {
    std::lock_guard lock(w.mutex);
    w.has_request = false;
    w.cancel = true;
    w.has_result = false;
}

NucleusStatus nucleus_status(const NucleusWorker& w) {
    std::lock_guard lock(w.mutex);
    NucleusStatus s;
    s.busy = w.has_request || w.working_id != 0;
    s.target = w.has_request ? w.request.target : w.working_target;
    s.stage = w.has_request ? "" : w.stage;
    s.fraction = w.has_request ? 0.0 : w.fraction;
    return s;
}

bool take_nucleus_result(NucleusWorker& w, NucleusResult* out) {
    std::lock_guard lock(w.mutex);
    if (!w.has_result) return false;
    *out = std::move(w.result);
    w.has_result = false;
    return true;
}

void stop_nucleus_worker(NucleusWorker& w) { stop_worker_thread(w); }

}  // namespace ms
