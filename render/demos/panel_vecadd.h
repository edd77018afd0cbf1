// panel_vecadd.h: the Vector-add demo panel: c = a + b on float32 arrays measured on
// this machine's CPU and GPU, to see when the GPU loses, when it wins, and why.
//
// Like the panels in panels.h it is one function over a plain struct: the user edits the size,
// the variants and the CSV path, and raises requests (Run, Sweep, Cancel, Save CSV). The panel
// measures nothing and owns no GPU resource: the main loop hands the requests to a worker thread
// (render/demos/vecadd_runner.h, carry_out_vector_add) and fills the facts back in each frame, so the
// window never waits for a measurement.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compute/vecadd/vecadd.h"

namespace ms {

inline constexpr size_t kVecAddPanelMinElements = 400;  // the tutorials' example size

// What the worker is doing, as the panel shows it.
enum class VecAddTask { None, MachineInfo, Run, Sweep };

struct VectorAddDemo {
    bool open = false;
    bool raise = false;  // request: bring its tab of the right column to the front

    // Settings the user edits (kept between frames).
    size_t elements = kVecAddPanelMinElements;  // Run's size: 400 .. max_elements
    size_t sweep_max_elements = 0;              // the sweep's largest size; 0: max_elements
    bool variant_enabled[kVecAddVariantCount] = {true, true, true, true, true, true, true};
    bool plot_hidden[kVecAddVariantCount] = {};  // legend toggles
    std::string size_text;                       // the size as typed ("1e6", "2^20")
    std::string csv_path = "vecadd.csv";

    // Facts, filled by the main loop (carry_out_vector_add) each frame.
    bool machine_known = false;  // false until vecadd_machine_info returned
    VecAddMachine machine;
    size_t max_elements = 0;             // what memory allows for the chosen variants
    VecAddTask task = VecAddTask::None;  // running on the worker
    double progress = 0.0;               // 0..1 of the task
    size_t progress_elements = 0;        // the size being measured
    std::vector<VecAddResult> run_rows;  // the latest Run, in variant order
    VecAddSweep sweep;                   // the latest sweep (growing while it runs)
    VecAddLesson lesson;                 // of `sweep`
    std::string message;                 // the latest outcome (saved, cancelled, ...)
    bool message_is_error = false;

    // Requests raised this frame (cleared at the start of each draw).
    bool run = false;
    bool start_sweep = false;
    bool cancel = false;
    bool save_csv = false;
};

// The "Vector add" tab of the right column (when open and the column is drawn, panel_layout.h).
void draw_vector_add_panel(VectorAddDemo& demo, bool in_column);

// The variants ticked in the panel, in the order of VecAddVariant.
std::vector<VecAddVariant> vecadd_enabled_variants(const VectorAddDemo& demo);

}  // namespace ms
