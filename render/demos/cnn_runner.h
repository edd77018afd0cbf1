// cnn_runner.h: the CNN demo's work on a worker thread, so the window keeps drawing while it
// runs (like export_image.h's ExportJob). One job at a time, in the order asked:
//   Load         the test split (load_fashion_mnist), the committed weights, the grid's
//                predictions for all 10,000 images on the CPU, and the GPU: when
//                cnn_cuda_available, the runner creates its CnnCuda here and keeps it (the
//                panel never sees it) for every later GPU job
//   ClassifyAll  cnn_evaluate over the 10,000 images on one backend at the panel's batch size
//   Sweep        cnn_evaluate on every usable backend at each of cnn_sweep_batches(batch)
// Progress and Cancel go through atomics; results are copied into the panel's facts when the
// job ends (sweep points one by one, so the plot fills in live).
//
// The main loop calls carry_out_cnn_demo(demo, runner) once a frame after draw_cnn_panel.
// stop_cnn_runner at shutdown cancels and joins. Every finished job is also logged on stdout
// ("cnn: accuracy 91.77% on 10000 images (cpu, 41.2k images/s, batch 1000)").
#pragma once

#include <atomic>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/cnn/cnn.h"
#include "render/demos/panel_cnn.h"

namespace ms {

struct CnnJob {
    CnnTask task = CnnTask::None;
    CnnBackend backend = CnnBackend::Cpu;  // ClassifyAll
    int batch = 1000;                      // ClassifyAll; Sweep: the slider's, added to the sizes
};

struct CnnRunner {
    ~CnnRunner();  // stop_cnn_runner: the thread never outlives the runner it writes into
    // Shared between the UI thread and the worker.
    std::thread thread;
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::atomic<long> done{0};  // images (or steps) done of `total`
    std::atomic<long> total{0};
    std::mutex mutex;                                                 // guards `sweep_partial`
    std::vector<std::pair<CnnBackend, CnnSweepPoint>> sweep_partial;  // points so far
    // Set before the first job (--cnn-data): where the data set is; empty: the package's folder.
    std::filesystem::path data_dir;
    // Owned by the runner; written only by a Load job, read by every job after it.
    std::shared_ptr<const FashionMnist> test;
    std::shared_ptr<const CnnWeights> weights;
    CnnCudaHandle cuda;  // null when no GPU can be used
    // Written by the worker before `finished`.
    std::string error;       // the job failed: why
    std::string load_error;  // Load: why the data or the weights are unusable
    std::string weights_note;
    std::string cpu_device;
    std::string cuda_unavailable;
    std::string cuda_device;
    std::vector<uint8_t> predicted;  // Load: the grid's predictions
    std::vector<float> probabilities;
    CnnEvalResult result;  // ClassifyAll
    double seconds = 0.0;
    // UI thread only.
    CnnJob job;                // running when job.task != None
    std::deque<CnnJob> queue;  // waiting (--cnn-classify-all, --cnn-sweep)
    size_t sweep_seen = 0;
};

// Once a frame, after draw_cnn_panel: queues the panel's requests (and a Load when the panel is
// open and nothing is loaded), starts the next job when the worker is free, passes Cancel on,
// copies the worker's progress and results into the panel's facts, and computes the selected
// image's feature maps when the selection changed (16 maps of 28x28 from 3x3 kernels: 113k
// multiply-adds, a few tens of microseconds, so the main loop does it without a thread).
void carry_out_cnn_demo(CnnDemo& demo, CnnRunner& runner);

// Queues a job (the command line's start-up work; the panel's buttons go through its requests).
void queue_cnn_job(CnnRunner& runner, const CnnJob& job);

// A job is running or waiting (--screenshot waits for them).
bool cnn_demo_busy(const CnnRunner& runner);

// Cancels the running job, drops the waiting ones and joins the worker (shutdown).
void stop_cnn_runner(CnnRunner& runner);

}  // namespace ms
