// vecadd_runner.h: the Vector-add demo's measurements on a worker thread, so the window keeps
// drawing while they run (like export_image.h's ExportJob). One task at a time: the machine's
// facts (vecadd_machine_info, about a second: it times the host link), a Run at one size, or a
// sweep over sizes. Results arrive one by one, so the panel's table and plot fill in live.
//
// The main loop calls carry_out_vector_add(demo, runner) once a frame after drawing the panel:
// it starts what the panel asked for, passes Cancel on, and copies the worker's progress and
// results into the panel's facts. stop_vecadd_runner at shutdown cancels and joins.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "compute/vecadd/vecadd.h"
#include "render/demos/panel_vecadd.h"

namespace ms {

struct VecAddRunner {
    ~VecAddRunner();  // stop_vecadd_runner: the thread never outlives the runner it writes into
    // Shared between the UI thread and the worker.
    std::thread thread;
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::atomic<size_t> steps_done{0};
    std::atomic<size_t> steps_total{0};
    std::atomic<size_t> elements{0};    // the size being measured
    std::mutex mutex;                   // guards `partial`
    std::vector<VecAddResult> partial;  // results so far, in the order they finished
    // Written by the worker before `finished`.
    VecAddMachine machine;
    VecAddSweep sweep;  // a Run is a sweep of one size
    double seconds = 0.0;
    // UI thread only.
    VecAddTask task = VecAddTask::None;
    size_t partial_seen = 0;
    bool sweep_at_start = false;               // --vecadd-sweep: sweep once the machine is known
    std::vector<size_t> sweep_at_start_sizes;  // its sizes; empty: vecadd_default_sizes
};

// Once a frame, after draw_vector_add_panel: carries out the panel's requests, starts the
// machine query when the panel is open (or a sweep at start is waiting), and fills the facts.
// Logs on stdout when a task ends ("vecadd sweep: 3 sizes x 7 variants in 1.9 s").
void carry_out_vector_add(VectorAddDemo& demo, VecAddRunner& runner);

// A task is running or about to start (--screenshot waits for it).
bool vector_add_busy(const VecAddRunner& runner);

// Cancels the task and waits for the worker (shutdown; a machine query under way finishes first).
void stop_vecadd_runner(VecAddRunner& runner);

}  // namespace ms
