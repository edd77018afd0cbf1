// vecadd_runner.cpp: the Vector-add demo's worker thread and the main loop's part of the panel
// (see vecadd_runner.h).
#include "render/demos/vecadd_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ms {

namespace {

void log_line(const std::string& text) {
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
}

std::string format_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

void start_task(VecAddRunner& r, VecAddTask task, const VecAddMachine& machine, std::vector<size_t> sizes,
                std::vector<VecAddVariant> variants) {
    stop_vecadd_runner(r);
    r.cancel = false;
    r.finished = false;
    r.steps_done = 0;
    r.steps_total = sizes.size() * variants.size();
    r.elements = sizes.empty() ? 0 : sizes.front();
    r.partial.clear();
    r.partial_seen = 0;
    r.task = task;
    r.thread = std::thread([&r, task, machine, sizes = std::move(sizes), variants = std::move(variants)] {
        const auto t0 = std::chrono::steady_clock::now();
        if (task == VecAddTask::MachineInfo) {
            r.machine = vecadd_machine_info(true);
        } else {
            VecAddOptions options;
            options.cancel = &r.cancel;
            r.sweep = run_vecadd_sweep(machine, sizes, variants, options, [&r](const VecAddProgress& p) {
                r.steps_done = p.steps_done;
                r.elements = p.elements;
                if (p.last) {
                    std::lock_guard<std::mutex> lock(r.mutex);
                    r.partial.push_back(*p.last);
                }
            });
        }
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.finished = true;
    });
}

std::string describe_machine(const VecAddMachine& m) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "vecadd machine: CPU %d threads, SIMD %s, %.1f GB available; ", m.host.threads,
                  m.host.simd_target.c_str(), double(m.host.available_memory_bytes) / 1e9);
    std::string text = buf;
    const VecAddDevice& d = m.device;
    if (!d.available) return text + "GPU: none (" + d.reason + ")";
    std::snprintf(buf, sizeof buf, "GPU: %s, %.0f GB/s memory, host link %.1f GB/s in, %.1f GB/s out", d.name.c_str(),
                  d.memory_gb_per_second, d.link_h2d_gb_per_second, d.link_d2h_gb_per_second);
    return text + buf;
}

// "21 results, 15 not measured (15: built without CUDA ...)": what a finished task measured,
// each reason for a missing row once with its count.
std::string describe_results(const std::vector<VecAddResult>& results) {
    std::vector<std::pair<std::string, size_t>> reasons;
    size_t failed = 0;
    for (const VecAddResult& r : results) {
        if (r.ok) continue;
        ++failed;
        auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == r.error; });
        if (it == reasons.end()) reasons.push_back({r.error, 1});
        else ++it->second;
    }
    std::string text = std::to_string(results.size()) + " results";
    if (failed == 0) return text;
    text += ", " + std::to_string(failed) + " not measured (";
    for (size_t i = 0; i < reasons.size(); ++i)
        text += (i ? "; " : "") + std::to_string(reasons[i].second) + ": " + reasons[i].first;
    return text + ")";
}

// The task that just ended, into the panel's facts and the log.
void finish_task(VectorAddDemo& demo, VecAddRunner& r) {
    r.thread.join();
    const VecAddTask task = r.task;
    r.task = VecAddTask::None;
    switch (task) {
    case VecAddTask::None: break;
    case VecAddTask::MachineInfo:
        demo.machine = r.machine;
        demo.machine_known = true;
        log_line(describe_machine(demo.machine));
        break;
    case VecAddTask::Run: {
        demo.run_rows = r.sweep.results;
        const size_t n = r.sweep.sizes.empty() ? 0 : r.sweep.sizes.front();
        log_line("vecadd run: " + std::to_string(n) + " elements x " + std::to_string(r.sweep.variants.size()) +
                 " variants in " + format_seconds(r.seconds) + (r.sweep.cancelled ? ", cancelled" : "") + ": " +
                 describe_results(r.sweep.results));
        demo.message = r.sweep.cancelled ? "Run cancelled." : "";
        demo.message_is_error = false;
        break;
    }
    case VecAddTask::Sweep:
        demo.sweep = r.sweep;
        demo.lesson = vecadd_lesson(demo.sweep);
        log_line("vecadd sweep: " + std::to_string(r.sweep.sizes.size()) + " sizes x " +
                 std::to_string(r.sweep.variants.size()) + " variants in " + format_seconds(r.seconds) +
                 (r.sweep.cancelled ? ", cancelled" : "") + ": " + describe_results(r.sweep.results));
        log_line("vecadd lesson: " + demo.lesson.sentence);
        demo.message = r.sweep.cancelled ? "Sweep cancelled: the plot shows the sizes that finished." : "";
        demo.message_is_error = false;
        break;
    }
}

// Results that arrived since the last frame, so the table and the plot grow as they come.
void take_partial_results(VectorAddDemo& demo, VecAddRunner& r) {
    std::vector<VecAddResult> fresh;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        if (r.partial.size() == r.partial_seen) return;
        fresh.assign(r.partial.begin() + long(r.partial_seen), r.partial.end());
        r.partial_seen = r.partial.size();
    }
    std::vector<VecAddResult>& into = r.task == VecAddTask::Run ? demo.run_rows : demo.sweep.results;
    into.insert(into.end(), fresh.begin(), fresh.end());
    // The worker fills in the speedups once a size is complete; until then, from what is here.
    for (VecAddResult& row : into) {
        if (!row.ok || row.time_ms <= 0.0 || row.speedup_vs_one_thread > 0.0) continue;
        for (const VecAddResult& base : into)
            if (base.variant == VecAddVariant::CpuOneThread && base.elements == row.elements && base.ok)
                row.speedup_vs_one_thread = base.time_ms / row.time_ms;
    }
    if (r.task == VecAddTask::Sweep) demo.lesson = vecadd_lesson(demo.sweep);
}

// The sweep's sizes: the default log scale up to the chosen largest size.
std::vector<size_t> panel_sweep_sizes(const VectorAddDemo& demo) {
    size_t top = demo.max_elements;
    if (demo.sweep_max_elements > 0) top = std::min(top, demo.sweep_max_elements);
    return vecadd_default_sizes(top);
}

}  // namespace

void carry_out_vector_add(VectorAddDemo& demo, VecAddRunner& r) {
    if (r.task != VecAddTask::None && r.finished) finish_task(demo, r);
    if (r.task == VecAddTask::Run || r.task == VecAddTask::Sweep) take_partial_results(demo, r);

    const std::vector<VecAddVariant> variants = vecadd_enabled_variants(demo);
    demo.max_elements = demo.machine_known ? vecadd_max_elements(demo.machine, variants) : 0;

    // Closing the panel stops its measurements: nobody is watching them, and they load the machine.
    if (demo.cancel || (!demo.open && (r.task == VecAddTask::Run || r.task == VecAddTask::Sweep))) r.cancel = true;
    const bool idle = r.task == VecAddTask::None;
    auto start_sweep = [&](VecAddTask task, std::vector<size_t> sizes) {
        if (variants.empty()) {
            demo.message = "Tick at least one variant to measure.";
            demo.message_is_error = true;
            return;
        }
        demo.message.clear();
        if (task == VecAddTask::Run) {
            demo.run_rows.clear();
        } else {
            demo.sweep = VecAddSweep{demo.machine, sizes, variants, {}, false};
            demo.lesson = {};
        }
        start_task(r, task, demo.machine, std::move(sizes), variants);
    };
    if (idle && demo.machine_known && demo.run) {
        // The panel only offers Run for sizes that fit; a size typed past memory still gets
        // its sentence here rather than an allocation failure.
        if (const std::string why = vecadd_check_size(demo.machine, demo.elements, variants); !why.empty()) {
            demo.message = "Cannot run: " + why + ".";
            demo.message_is_error = true;
        } else {
            start_sweep(VecAddTask::Run, {demo.elements});
        }
    } else if (idle && demo.machine_known && demo.start_sweep) {
        start_sweep(VecAddTask::Sweep, panel_sweep_sizes(demo));
    } else if (idle && demo.machine_known && r.sweep_at_start) {
        r.sweep_at_start = false;
        std::vector<size_t> sizes = r.sweep_at_start_sizes;
        if (sizes.empty()) sizes = vecadd_default_sizes(demo.max_elements);
        start_sweep(VecAddTask::Sweep, sizes);
    } else if (idle && !demo.machine_known && (demo.open || r.sweep_at_start)) {
        start_task(r, VecAddTask::MachineInfo, {}, {}, {});
    }

    if (demo.save_csv) {
        VecAddSweep to_save = demo.sweep;
        if (to_save.results.empty()) {  // nothing swept yet: the Run's rows
            to_save = VecAddSweep{demo.machine, {}, variants, demo.run_rows, false};
            if (!demo.run_rows.empty()) to_save.sizes = {demo.run_rows.front().elements};
        }
        if (to_save.results.empty()) {
            demo.message = "Nothing to save yet: Run or Sweep first.";
            demo.message_is_error = true;
        } else if (const std::string why = save_vecadd_csv(demo.csv_path, to_save); !why.empty()) {
            demo.message = "Cannot save the CSV: " + why + ".";
            demo.message_is_error = true;
        } else {
            demo.message = "Saved " + std::to_string(to_save.results.size()) + " rows to " + demo.csv_path + ".";
            demo.message_is_error = false;
        }
        log_line("vecadd: " + demo.message);
    }

    demo.task = r.task;
    const size_t total = r.steps_total;
    demo.progress = total > 0 ? double(r.steps_done) / double(total) : 0.0;
    demo.progress_elements = r.elements;
}

bool vector_add_busy(const VecAddRunner& r) { return r.task != VecAddTask::None || r.sweep_at_start; }

VecAddRunner::~VecAddRunner() { stop_vecadd_runner(*this); }

void stop_vecadd_runner(VecAddRunner& r) {
    if (!r.thread.joinable()) return;
    r.cancel = true;
    r.thread.join();
}

}  // namespace ms
