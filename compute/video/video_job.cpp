// video_job.cpp: a whole video, checked, rendered, encoded in segments and muxed (video_job.h).
#include "compute/video/video_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <fstream>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/exr_write.h"
#include "compute/io/image_io.h"
#include "compute/system/cuda_info.h"
#include "compute/system/fault_injection.h"
#include "compute/system/process_memory.h"
#include "compute/video/dive_plan.h"
#include "compute/video/expmap_share.h"
#include "compute/video/manifest.h"
#include "compute/video/segment_share.h"
#include "compute/video/video_device.h"
#include "compute/video/video_encoder.h"
#include "compute/video/video_mux.h"
#include "compute/video/video_segments.h"

namespace ms {

namespace {

// The largest frame side the encoders take here: H.264's level 6.2 and H.265's level 6.2 both
// stop at 8192 pixels a side.
constexpr int kVideoMaxSide = 8192;
constexpr int kVideoMinSide = 16;

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

const char* const kPresets[] = {"ultrafast", "superfast", "veryfast", "fast",     "faster",
                                "medium",    "slow",      "slower",   "veryslow", "placebo"};

uint64_t fnv1a64(const void* data, size_t bytes, uint64_t hash = 1469598103934665603ull) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
    return hash;
}

std::string hex64(uint64_t value) {
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", (unsigned long long)value);
    return text;
}

// MemAvailable from /proc/meminfo, in bytes (0 when unknown).
double available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024.0;
    return 0.0;
}

int64_t segment_frames_of(const VideoJob& job) {
    return job.encoding.segment_frames > 0 ? job.encoding.segment_frames : int64_t(job.fps);
}

// What the parts were made for: every setting that changes a segment's bytes.
std::string job_key(const VideoJob& job, const std::string& manifest, int64_t segment_frames) {
    const FrameSourceSettings& f = job.frames;
    std::string key = "mandelscope video parts\n" + encoder_identity(job.encoding) + "\n";
    key += "fps " + std::to_string(job.fps) + ", " + std::to_string(f.plan.size()) + " frames, " +
           std::to_string(segment_frames) + " a segment\n";
    key += std::string("method ") + video_method_name(job.method) + ", " + (f.cuda ? "cuda" : "cpu") + ", shortcuts " +
           std::to_string(f.shortcuts.cardioid_bulb) + std::to_string(f.shortcuts.periodicity) + "\n";
    uint64_t palette = fnv1a64(f.palette.rgba.data(), f.palette.rgba.size() * sizeof(uint32_t));
    palette = fnv1a64(&f.palette.interior_rgba, sizeof f.palette.interior_rgba, palette);
    key += "palette " + hex64(palette) + "\n";
    key += "manifest " + hex64(fnv1a64(manifest.data(), manifest.size())) + "\n";
    return key;
}

// The job's parts folder made ready for it (video_segments.h's prepare_parts): which of its
// segments are already there. Throws with a sentence.
std::vector<bool> ready_parts(const VideoJob& job, const std::string& manifest) {
    const int64_t segment_frames = segment_frames_of(job);
    const int64_t segments = (int64_t(job.frames.plan.size()) + segment_frames - 1) / segment_frames;
    return prepare_parts(video_parts_path(job.output), job_key(job, manifest, segment_frames), segments);
}

std::string frame_file_name(int64_t k, const char* extension) {
    char name[48];
    std::snprintf(name, sizeof name, "frame_%06lld.%s", (long long)k, extension);
    return name;
}
std::string frame_png_name(int64_t k) { return frame_file_name(k, "png"); }
std::string frame_exr_name(int64_t k) { return frame_file_name(k, "exr"); }

// Whether an EXR file is a finished frame of this view: it reads back, at the view's size and
// iterations, with the view's location (its Kalles Fraktaler text) as its attribute. The raw
// values depend on nothing else the view holds (the palette and colouring do not reach them).
bool exr_frame_present(const std::filesystem::path& path, const View& view, const std::string& kfr_text) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    ExrRawImage image;
    if (!read_exr(path.string(), &image).empty()) return false;
    return image.width == view.width && image.height == view.height && image.max_iterations == view.max_iterations &&
           image.kfr_text == kfr_text;
}

// AtomicFile's temporary files for `target` (".NAME.tmp-XXXXXX" beside it) that a killed run
// left: SIGKILL gives no handler the chance to remove them.
void remove_stale_temps(const std::filesystem::path& target) {
    const std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
    const std::string prefix = "." + target.filename().string() + ".tmp-";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && entry.is_regular_file(ec)) std::filesystem::remove(entry.path(), ec);
    }
}

// --- The encoders' side: segments encoded side by side --------------------------------------

struct FreeDeleter {
    void operator()(uint8_t* p) const { std::free(p); }
};

// Memory for `bytes` of frames, in 2 MiB pages where the kernel gives them on request
// (transparent huge pages in "madvise" mode): a 1080p frame is 4 faults instead of 2,025.
std::unique_ptr<uint8_t, FreeDeleter> frame_memory(size_t bytes) {
    constexpr size_t kHugePage = size_t(2) << 20;
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, rounded));
    if (!p) throw std::bad_alloc();
    advise_huge_pages(p, rounded);
    return std::unique_ptr<uint8_t, FreeDeleter>(p);
}

// Lowers the calling thread's priority (Linux keeps one a thread): the encoders and the pool's
// maker then yield the cores to the renderers, which keep the GPUs fed, and use what is left.
void lower_thread_priority() { setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 10); }

struct FrameBuffer {
    std::unique_ptr<uint8_t, FreeDeleter> rgba;  // width x height x 4, written whole by a renderer
    int64_t index = 0;                           // from the segment's first frame
};

struct SegmentTask {
    int64_t segment = 0;
    std::deque<FrameBuffer*> frames;
    bool closed = false;     // every frame of the segment has been pushed
    bool abandoned = false;  // its renderer failed: no file; the segment starts again elsewhere
    // Its encoder waits here (under the pool's mutex) for the frames, the close, the abandon or
    // the pool's stop: a frame pushed wakes that encoder only, not every encoder of the pool.
    std::condition_variable changed;
};

// Which segments are in the parts folder, for the mux that follows them in order while the rest
// render: those resumed, then each as its encoder commits it. give_up() ends the mux's wait (a
// failed or cancelled video).
class CommittedSegments {
public:
    explicit CommittedSegments(std::vector<bool> done) : done_(std::move(done)) {}
    void commit(int64_t segment) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_[size_t(segment)] = true;
        }
        changed_.notify_all();
    }
    void give_up() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            given_up_ = true;
        }
        changed_.notify_all();
    }
    // True once `segment` is committed; false once given up.
    bool wait(int64_t segment) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return done_[size_t(segment)] || given_up_; });
        return !given_up_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<bool> done_;
    bool given_up_ = false;
};

// W threads, each taking the oldest segment no one encodes yet and encoding its frames as the
// renderer pushes them, then committing its file. The frame buffers are a pool of at most
// `buffers`: a renderer waits for a free one once all are made, so memory stays bounded whatever
// the length. A pool sized for every encoder to hold a whole segment can be 16 GiB, which takes
// seconds to map, so a thread of the pool makes them beside the rendering, each written once
// (its pages mapped before a renderer's copy lands in it); a renderer that finds none free while
// fewer than `buffers` are made makes one itself.
class EncoderPool {
public:
    EncoderPool(const VideoJob& job, std::filesystem::path parts, int width, int height, int64_t segment_frames,
                int workers, int buffers, CommittedSegments* committed)
        : job_(job), parts_(std::move(parts)), width_(width), height_(height), segment_frames_(segment_frames),
          buffers_(size_t(std::max(buffers, 1))), committed_(committed) {
        all_.reserve(buffers_);
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
        maker_ = std::thread([this] { make_buffers(); });
    }

    ~EncoderPool() { stop(true); }

    // Waits for all segments handed over to be committed (abandon: drops the unfinished ones).
    void stop(bool abandon) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (abandon) abandon_ = true;
            stopping_ = true;
            wake_encoders();
        }
        changed_.notify_all();
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
        if (maker_.joinable()) maker_.join();
    }

    std::shared_ptr<SegmentTask> begin(int64_t segment) {
        auto task = std::make_shared<SegmentTask>();
        task->segment = segment;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            waiting_.push_back(task);
        }
        changed_.notify_all();
        return task;
    }

    // A free buffer (a new one while fewer than `buffers` are made), or null once a worker
    // failed.
    FrameBuffer* acquire() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty() || all_.size() < buffers_ || !error_.empty(); });
        if (!error_.empty()) return nullptr;
        if (free_.empty()) {
            all_.push_back(std::make_unique<FrameBuffer>());
            FrameBuffer* made = all_.back().get();
            lock.unlock();  // its memory is mapped as the renderer first writes it
            made->rgba = frame_memory(size_t(width_) * size_t(height_) * 4);
            return made;
        }
        FrameBuffer* buffer = free_.back();
        free_.pop_back();
        return buffer;
    }

    void push(const std::shared_ptr<SegmentTask>& task, FrameBuffer* buffer) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task->frames.push_back(buffer);
        }
        task->changed.notify_all();
    }

    void close(const std::shared_ptr<SegmentTask>& task) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task->closed = true;
        }
        task->changed.notify_all();
    }

    // The segment's renderer stopped before its end: its frames go back to the pool and its
    // encoder (if one took it) stops without a file. `held`: a buffer the renderer had taken
    // (may be null).
    void abandon(const std::shared_ptr<SegmentTask>& task, FrameBuffer* held) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task->abandoned = true;
            for (FrameBuffer* frame : task->frames) free_.push_back(frame);
            task->frames.clear();
            if (held) free_.push_back(held);
            waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), task), waiting_.end());
        }
        task->changed.notify_all();
        changed_.notify_all();
    }

    std::string error() {
        std::lock_guard<std::mutex> lock(mutex_);
        return error_;
    }
    bool disk_error() {
        std::lock_guard<std::mutex> lock(mutex_);
        return disk_error_;
    }
    double encode_ms() {
        std::lock_guard<std::mutex> lock(mutex_);
        return encode_ms_;
    }

private:
    // Every encoder waiting on its task's frames wakes (to see a stop or an abandon). The caller
    // holds mutex_.
    void wake_encoders() {
        for (const std::shared_ptr<SegmentTask>& task : encoding_) task->changed.notify_all();
    }

    // The pool's buffers, made and written once while renderers and encoders work, until all
    // `buffers` are made or the pool stops.
    void make_buffers() {
        lower_thread_priority();
        const size_t bytes = size_t(width_) * size_t(height_) * 4;
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (stopping_ || abandon_ || all_.size() >= buffers_) return;
            }
            auto buffer = std::make_unique<FrameBuffer>();
            buffer->rgba = frame_memory(bytes);
            std::memset(buffer->rgba.get(), 0, bytes);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (all_.size() >= buffers_) return;  // renderers made the rest
                all_.push_back(std::move(buffer));
                free_.push_back(all_.back().get());
            }
            changed_.notify_all();
        }
    }

    void work() {
        lower_thread_priority();
        for (;;) {
            std::shared_ptr<SegmentTask> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(lock, [&] { return !waiting_.empty() || stopping_ || abandon_; });
                if (abandon_ || waiting_.empty()) return;
                task = waiting_.front();
                waiting_.pop_front();
                encoding_.push_back(task);
            }
            const bool encoded = encode(*task);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                encoding_.erase(std::find(encoding_.begin(), encoding_.end(), task));
            }
            if (!encoded) return;
        }
    }

    // One segment; false when abandoned or failed.
    bool encode(SegmentTask& task) {
        double busy_ms = 0.0;
        bool writing = false;
        try {
            auto start = std::chrono::steady_clock::now();
            const int64_t segments = (int64_t(job_.frames.plan.size()) + segment_frames_ - 1) / segment_frames_;
            SegmentEncoder encoder(job_.encoding, width_, height_, job_.fps, segment_frames_,
                                   segment_encoder_threads(job_.encoding, task.segment, segments));
            busy_ms += ms_since(start);
            for (;;) {
                FrameBuffer* frame = nullptr;
                {
                    std::unique_lock<std::mutex> lock(mutex_);
                    task.changed.wait(
                        lock, [&] { return !task.frames.empty() || task.closed || task.abandoned || abandon_; });
                    if (abandon_) return false;
                    if (task.abandoned) return true;  // its frames went back with it
                    if (task.frames.empty()) break;
                    frame = task.frames.front();
                    task.frames.pop_front();
                }
                start = std::chrono::steady_clock::now();
                encoder.encode(frame->index, frame->rgba.get());
                busy_ms += ms_since(start);
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    free_.push_back(frame);
                }
                changed_.notify_all();
            }
            start = std::chrono::steady_clock::now();
            EncodedSegment segment = encoder.finish();
            writing = true;
            write_segment(segment_path(parts_, task.segment), segment);
            busy_ms += ms_since(start);
            if (committed_) committed_->commit(task.segment);
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (error_.empty()) {
                error_ = e.what();
                disk_error_ = writing;
            }
            abandon_ = true;
            wake_encoders();
            changed_.notify_all();
            return false;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        encode_ms_ += busy_ms;
        return true;
    }

    const VideoJob& job_;
    std::filesystem::path parts_;
    int width_, height_;
    int64_t segment_frames_;
    size_t buffers_;                // the most made
    CommittedSegments* committed_;  // told of each segment written (may be null)
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::shared_ptr<SegmentTask>> waiting_;
    std::vector<std::shared_ptr<SegmentTask>> encoding_;  // taken by an encoder, not yet done
    std::vector<std::unique_ptr<FrameBuffer>> all_;
    std::vector<FrameBuffer*> free_;
    std::vector<std::thread> threads_;
    std::thread maker_;
    bool stopping_ = false, abandon_ = false, disk_error_ = false;
    std::string error_;
    double encode_ms_ = 0.0;
};

// Progress after each rendered frame: rate over this run's rendered frames, ETA for the rest.
// Renderers on several threads count and report under `mutex`.
struct ProgressClock {
    explicit ProgressClock(const VideoProgress& p) : progress(p) {}
    const VideoProgress& progress;
    int64_t total = 0;
    int64_t resumed = 0;
    int64_t done = 0;
    int64_t rendered = 0;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::mutex mutex;

    void report(int64_t frame, const uint8_t* rgba, int width, int height, const char* stage) {
        if (!progress) return;
        VideoProgressInfo info;
        info.frames_done = done;
        info.frames_total = total;
        info.frames_resumed = resumed;
        const double seconds = ms_since(start) * 1e-3;
        info.frames_per_second = seconds > 0 ? double(rendered) / seconds : 0.0;
        info.eta_s = info.frames_per_second > 0 ? double(total - done) / info.frames_per_second : 0.0;
        info.frame = frame;
        info.rgba = rgba;
        info.width = width;
        info.height = height;
        info.stage = stage;
        progress(info);
    }
};

// A failure's result: status 2 for what the user can fix (a full disk, bad input), else 1.
VideoResult failed(VideoResult result, int status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    return result;
}

// --- The renderers: one a device, each with a frame source of its own ------------------------

// A frame source's failure (its device's), as opposed to the job's (the disk, the encoders): the
// renderer stops, and its segments go to the others.
struct RendererFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A renderer's source: any failure of the source but running out of host memory becomes
// RendererFailed; with fail_after >= 0 it fails once it has rendered that many frames (a test's
// failing device).
class RendererSource final : public VideoFrameSource {
public:
    RendererSource(std::unique_ptr<VideoFrameSource> inner, int64_t fail_after)
        : inner_(std::move(inner)), fail_after_(fail_after) {}
    void render(int64_t k, uint8_t* rgba) override {
        guard([&] { inner_->render(k, rgba); });
    }
    void render_raw(int64_t k, RawVideoFrame* out) override {
        guard([&] { inner_->render_raw(k, out); });
    }
    FrameSourceTimes times() const override { return inner_->times(); }
    double start_frames() const override { return inner_->start_frames(); }
    bool takes_segments_in_order() const override { return inner_->takes_segments_in_order(); }
    int64_t frames() const { return rendered_; }
    double busy_ms() const { return busy_ms_; }

private:
    template <typename Render>
    void guard(const Render& render) {
        if (fail_after_ >= 0 && rendered_ >= fail_after_)
            throw RendererFailed("injected fault (device_fail): the device stopped responding");
        const auto start = std::chrono::steady_clock::now();
        try {
            render();
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const RendererFailed&) {
            throw;
        } catch (const std::exception& e) {
            throw RendererFailed(e.what());
        }
        busy_ms_ += ms_since(start);
        ++rendered_;
    }
    std::unique_ptr<VideoFrameSource> inner_;
    int64_t fail_after_ = -1;
    int64_t rendered_ = 0;
    double busy_ms_ = 0.0;
};

// The renderers of a job: their devices (-1: the CPU, or CUDA's current device) and sources.
struct Renderers {
    std::vector<int> devices;
    std::vector<std::unique_ptr<RendererSource>> sources;
    // Filled by render_segments:
    FrameSourceTimes times;                  // the sources', summed
    std::vector<VideoRendererShare> shares;  // one a renderer
};

std::vector<int> renderer_devices(const VideoJob& job) {
    if (!job.frames.cuda) return std::vector<int>(std::max<size_t>(1, job.devices.size()), -1);
    if (!job.devices.empty()) return job.devices;
    std::vector<int> visible;
    const CudaSystemInfo system = query_cuda_system();
    if (system.usable)
        for (const CudaDeviceInfo& device : system.devices) visible.push_back(device.index);
    if (visible.empty()) visible.push_back(-1);  // the caller checked that a device is usable
    return visible;
}

void add_times(FrameSourceTimes* sum, const FrameSourceTimes& t) {
    sum->reference_ms += t.reference_ms;
    sum->bla_ms += t.bla_ms;
    sum->pixels_ms += t.pixels_ms;
    sum->colour_ms += t.colour_ms;
    sum->reconstruct_ms += t.reconstruct_ms;
    sum->gpu_busy_ms += t.gpu_busy_ms;
    sum->direct_frames += t.direct_frames;
    sum->deep_frames += t.deep_frames;
    sum->expmap_frames += t.expmap_frames;
    sum->strips += t.strips;
    sum->strips_taken += t.strips_taken;
    sum->strips_taken_ms += t.strips_taken_ms;
}

// Renders segment `segment` with `source`, its frames in order from the first, and hands them on
// (to the encoders, or to files). False: stop every renderer (a cancel, or the output failed:
// the caller keeps why). Throws RendererFailed when the source fails; anything else is a failure
// of the job.
using SegmentRender = std::function<bool(int renderer, VideoFrameSource& source, int64_t segment)>;

// Renders `segments` (in increasing order) over the renderers: one on the calling thread, in
// order; several on threads of their own, each on its device, sharing the segments out
// (segment_share.h). Each source is destroyed on its renderer's thread, its device current.
// Rethrows the first failure of the job; throws the first renderer's failure when every renderer
// failed with segments left.
void render_segments(const VideoJob& job, Renderers& renderers, const std::vector<int64_t>& segments,
                     const SegmentRender& render) {
    const int count = int(renderers.sources.size());
    const double segment_frames = double(segment_frames_of(job));
    const VideoFrameSource& first = *renderers.sources.front();
    SegmentShare share(segments, count, first.start_frames() / segment_frames,
                       first.takes_segments_in_order() ? SegmentShare::Order::OneByOne : SegmentShare::Order::Runs);
    renderers.shares.assign(size_t(count), VideoRendererShare{});
    std::mutex mutex;  // guards job_error and the times
    std::exception_ptr job_error;
    auto work = [&](int r) {
        VideoRendererShare& mine = renderers.shares[size_t(r)];
        mine.device = renderers.devices[size_t(r)];
        std::unique_ptr<RendererSource> source = std::move(renderers.sources[size_t(r)]);
        std::optional<VideoDeviceScope> device;
        try {
            device.emplace(mine.device);
        } catch (const std::exception& e) {
            mine.failure = e.what();
            share.fail(r, -1);
            return;
        }
        try {
            for (int64_t s = share.next(r); s >= 0; s = share.next(r)) {
                bool go_on = true;
                try {
                    go_on = render(r, *source, s);
                } catch (const RendererFailed& e) {
                    mine.failure = e.what();
                    share.fail(r, s);
                    break;
                }
                if (!go_on) {
                    share.stop();
                    break;
                }
                ++mine.segments;
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!job_error) job_error = std::current_exception();
            share.stop();
        }
        const FrameSourceTimes times = source->times();
        mine.frames = source->frames();
        mine.busy_ms = source->busy_ms();
        mine.runs = share.runs_started(r);
        source.reset();  // its device memory, freed on its device
        std::lock_guard<std::mutex> lock(mutex);
        add_times(&renderers.times, times);
    };
    if (count == 1) {
        work(0);
    } else {
        std::vector<std::thread> threads;
        for (int r = 0; r < count; ++r) threads.emplace_back(work, r);
        for (std::thread& t : threads) t.join();
    }
    if (job_error) std::rethrow_exception(job_error);
    if (share.remaining() > 0) {
        bool all_failed = true;
        for (const VideoRendererShare& s : renderers.shares) all_failed = all_failed && !s.failure.empty();
        if (all_failed) throw std::runtime_error(renderers.shares.front().failure);
    }
}

// One file a frame: what a PNG or an EXR sequence does differently.
struct FrameFiles {
    // What frame k's file carries of its view (a file holding it is finished).
    std::function<std::string(int64_t k)> text;
    std::function<bool(int64_t k, const std::string& text)> present;
    // Renderer r renders frame k with its source; returns its RGBA for the progress preview, or null.
    std::function<const uint8_t*(int r, VideoFrameSource& source, int64_t k)> render;
    // Writes the frame renderer r rendered last as frame k's file: "" or the sentence (a throw is
    // one too).
    std::function<std::string(int r, int64_t k, const std::string& text)> write;
};

// A segment whose frames are all there (with their views) is kept; otherwise it renders from its
// first frame, so that its pixels are an uninterrupted run's, and writes the missing frames,
// each through an AtomicFile (a temporary name, then a rename).
VideoResult run_frame_sequence(const VideoJob& job, const FrameFiles& files, Renderers& renderers, ProgressClock& clock,
                               const std::atomic<bool>* cancel, VideoResult result) {
    const std::vector<View>& plan = job.frames.plan;
    const int64_t n = int64_t(plan.size());
    const int64_t segment_frames = segment_frames_of(job);
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(job.output, ec)) {  // a killed run's temporaries
        const std::string name = entry.path().filename().string();
        if (name.rfind(".frame_", 0) == 0 && name.find(".tmp-") != std::string::npos)
            std::filesystem::remove(entry.path(), ec);
    }
    const int width = plan[0].width, height = plan[0].height;
    std::vector<int64_t> todo;
    for (int64_t first = 0; first < n; first += segment_frames) {
        const int64_t last = std::min(n, first + segment_frames);
        bool all_present = true;
        for (int64_t k = first; k < last && all_present; ++k) all_present = files.present(k, files.text(k));
        if (!all_present) {
            todo.push_back(first / segment_frames);
            continue;
        }
        clock.done += last - first;
        clock.resumed += last - first;
        result.frames_resumed += last - first;
    }
    bool cancelled = false;
    std::string problem;  // the first write's failure
    auto render_segment = [&](int r, VideoFrameSource& source, int64_t segment) {
        const int64_t first = segment * segment_frames, last = std::min(n, first + segment_frames);
        int64_t written = 0, kept = 0;  // this segment's, taken back if it fails part-way
        for (int64_t k = first; k < last; ++k) {
            if (cancel && cancel->load()) {
                std::lock_guard<std::mutex> lock(clock.mutex);
                cancelled = true;
                return false;
            }
            const std::string text = files.text(k);
            const bool present = files.present(k, text);
            const uint8_t* preview = nullptr;
            try {
                preview = files.render(r, source, k);
            } catch (...) {
                std::lock_guard<std::mutex> lock(clock.mutex);
                clock.done -= written + kept;
                clock.rendered -= written;
                result.frames_rendered -= written;
                clock.resumed -= kept;
                result.frames_resumed -= kept;
                throw;
            }
            double write_ms = 0.0;
            if (!present) {
                const auto start = std::chrono::steady_clock::now();
                std::string failure;
                try {
                    failure = files.write(r, k, text);
                } catch (const std::exception& e) {
                    failure = e.what();
                }
                if (!failure.empty()) {
                    std::lock_guard<std::mutex> lock(clock.mutex);
                    if (problem.empty()) problem = failure;
                    return false;
                }
                write_ms = ms_since(start);
            }
            std::lock_guard<std::mutex> lock(clock.mutex);
            if (!present) {
                result.times.encode_ms += write_ms;
                ++clock.rendered;
                ++result.frames_rendered;
                ++written;
            } else {
                ++result.frames_resumed;
                ++clock.resumed;
                ++kept;
            }
            ++clock.done;
            clock.report(k, r == 0 ? preview : nullptr, width, height, "rendering");
        }
        return true;
    };
    if (!todo.empty()) render_segments(job, renderers, todo, render_segment);
    if (!problem.empty()) return failed(result, 2, problem);
    result.cancelled = cancelled;
    return result;
}

VideoResult run_png_sequence(const VideoJob& job, Renderers& renderers, ProgressClock& clock,
                             const std::atomic<bool>* cancel, VideoResult result) {
    const std::vector<View>& plan = job.frames.plan;
    const std::filesystem::path dir = job.output;
    const int width = plan[0].width, height = plan[0].height;
    std::vector<std::vector<uint8_t>> rgba(renderers.sources.size());  // one a renderer
    FrameFiles files;
    files.text = [&](int64_t k) {
        return view_to_json(manifest_record(plan[size_t(k)], job.frames.precision, job.frames.supersample));
    };
    files.present = [&](int64_t k, const std::string& text) {
        std::string stored;
        try {
            return read_png_text(dir / frame_png_name(k), kMetadataKey, &stored) && stored == text;
        } catch (const std::exception&) {
            return false;
        }
    };
    files.render = [&](int r, VideoFrameSource& source, int64_t k) {
        std::vector<uint8_t>& mine = rgba[size_t(r)];
        mine.resize(size_t(width) * size_t(height) * 4);
        source.render(k, mine.data());
        return static_cast<const uint8_t*>(mine.data());
    };
    files.write = [&](int r, int64_t k, const std::string& text) {
        write_png(dir / frame_png_name(k), rgba[size_t(r)].data(), width, height, text);
        return std::string();
    };
    return run_frame_sequence(job, files, renderers, clock, cancel, result);
}

VideoResult run_exr_sequence(const VideoJob& job, Renderers& renderers, ProgressClock& clock,
                             const std::atomic<bool>* cancel, VideoResult result) {
    const std::vector<View>& plan = job.frames.plan;
    const std::filesystem::path dir = job.output;
    std::vector<RawVideoFrame> raw(renderers.sources.size());  // one a renderer
    FrameFiles files;
    files.text = [&](int64_t k) { return format_kfr(deep_location(plan[size_t(k)])); };
    files.present = [&](int64_t k, const std::string& text) {
        return exr_frame_present(dir / frame_exr_name(k), plan[size_t(k)], text);
    };
    files.render = [&](int r, VideoFrameSource& source, int64_t k) {
        source.render_raw(k, &raw[size_t(r)]);
        return static_cast<const uint8_t*>(nullptr);
    };
    files.write = [&](int r, int64_t k, const std::string& text) {
        const RawVideoFrame& mine = raw[size_t(r)];
        ExrFrame frame;
        frame.width = mine.width;
        frame.height = mine.height;
        frame.escape_count = mine.escape_count.data();
        frame.mu = mine.mu.data();
        frame.distance = mine.distance.empty() ? nullptr : mine.distance.data();
        frame.max_iterations = plan[size_t(k)].max_iterations;
        frame.kfr_text = text;
        AtomicFile file(dir / frame_exr_name(k));
        if (std::string problem = write_exr(file.temp_path().string(), frame); !problem.empty()) return problem;
        file.commit();
        return std::string();
    };
    return run_frame_sequence(job, files, renderers, clock, cancel, result);
}

// Removes a finished video's parts folder. Where the disk frees a file's blocks as it goes (ext4
// with discard), removing a segment waits for that, so the segments go on a few threads: on the
// 2x H200 host, 166 one-second 1080p60 segments (3.5 GB) took 0.9 s on 4 or 16 threads against
// 1.3 s one after another.
void remove_parts_folder(const std::filesystem::path& parts) {
    constexpr size_t kRemovers = 4;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(parts, ec)) files.push_back(entry.path());
    std::atomic<size_t> next{0};
    std::vector<std::thread> removers;
    for (size_t t = 0; t < std::min(kRemovers, files.size()); ++t)
        removers.emplace_back([&] {
            for (size_t i = next++; i < files.size(); i = next++) {
                std::error_code ignored;  // what is left goes with the folder below
                std::filesystem::remove(files[i], ignored);
            }
        });
    for (std::thread& t : removers) t.join();
    std::filesystem::remove_all(parts, ec);
}

VideoResult run_mp4(const VideoJob& job, Renderers& renderers, ProgressClock& clock, const std::atomic<bool>* cancel,
                    const std::string& manifest, VideoResult result) {
    const std::vector<View>& plan = job.frames.plan;
    const int64_t n = int64_t(plan.size());
    const int64_t segment_frames = segment_frames_of(job);
    const int64_t segments = (n + segment_frames - 1) / segment_frames;
    const std::filesystem::path parts = video_parts_path(job.output);
    std::vector<bool> done;
    try {
        done = ready_parts(job, manifest);
    } catch (const std::exception& e) {
        return failed(result, 2, e.what());
    }
    const bool share = job.segment_count > 0;  // only these segments, no mux (video_job.h)
    if (share)
        for (int64_t s = 0; s < segments; ++s)
            if (s < job.first_segment || s >= job.first_segment + job.segment_count) done[size_t(s)] = true;
    for (int64_t s = 0; s < segments; ++s)
        if (done[size_t(s)]) {
            const int64_t frames = std::min(n, (s + 1) * segment_frames) - s * segment_frames;
            clock.done += frames;
            clock.resumed += frames;
            result.frames_resumed += frames;
        }
    const int width = plan[0].width, height = plan[0].height;
    // The mux follows the finished segments in order on a thread of its own while the rest render
    // (video_mux.h), so that when the encoders finish only the last segments are left to it. It
    // keeps the usual priority: it needs little of a core, but where the encoders fill every
    // core at their lower one, it would otherwise fall behind them.
    MuxSettings mux;
    mux.codec = job.encoding.codec;
    mux.width = width;
    mux.height = height;
    mux.fps = job.fps;
    mux.frames = n;
    mux.segment_frames = segment_frames;
    mux.audio = job.audio;
    CommittedSegments committed(done);
    std::string mux_error;
    std::thread muxer;
    if (!share)
        muxer = std::thread([&] {
            try {
                mux_segments(job.output, parts, mux, [&](int64_t s) { return committed.wait(s); });
            } catch (const std::exception& e) {
                mux_error = e.what();
            }
        });
    // Every way out before the last segment (a failure, a cancel) stops the mux, which leaves
    // nothing at the output.
    struct StopMux {
        CommittedSegments& committed;
        std::thread& muxer;
        ~StopMux() {
            if (!muxer.joinable()) return;
            committed.give_up();
            muxer.join();
        }
    } stop_mux{committed, muxer};
    if (result.frames_resumed < n) {
        // Enough frames for every encoder to hold a whole segment (each encoder is one thread,
        // so the encoders keep up with a fast renderer only when segments wait side by side),
        // within a quarter of the free memory (at most 16 GiB: 60 frames for each of 16 encoders
        // at 1080p take 8 GiB), and never fewer than one a worker and two a renderer. At least
        // one encoder a renderer: a segment still rendering then always has one (a renderer
        // waiting for a buffer held by a segment no encoder has taken would wait for good).
        const int renderer_count = int(renderers.sources.size());
        const int workers = std::max(renderer_count, job.encoding.encoder_threads > 0
                                                         ? job.encoding.encoder_threads
                                                         : int(std::max(1u, std::thread::hardware_concurrency())));
        const double frame_bytes = double(width) * height * 4;
        double budget = std::min(16.0 * 1073741824.0, 0.25 * available_memory_bytes());
        if (budget <= 0) budget = 512.0 * 1048576.0;
        const int64_t least = int64_t(workers) + 2 * int64_t(renderer_count);
        // (no more than the frames there are to render)
        const int64_t wanted = std::min(int64_t(workers) * segment_frames, n - result.frames_resumed) +
                               2 * int64_t(renderer_count);
        const int buffers = int(
            std::clamp<int64_t>(int64_t(budget / frame_bytes), least, std::max<int64_t>(wanted, least)));
        EncoderPool pool(job, parts, width, height, segment_frames, workers, buffers, &committed);
        std::vector<int64_t> todo;
        for (int64_t s = 0; s < segments; ++s)
            if (!done[size_t(s)]) todo.push_back(s);
        bool cancelled = false;
        auto render_segment = [&](int r, VideoFrameSource& source, int64_t segment) {
            auto task = pool.begin(segment);
            const int64_t first = segment * segment_frames, last = std::min(n, first + segment_frames);
            for (int64_t k = first; k < last; ++k) {
                // A segment that fails part-way starts again elsewhere: its frames so far are
                // not counted twice.
                if (cancel && cancel->load()) {
                    pool.abandon(task, nullptr);
                    std::lock_guard<std::mutex> lock(clock.mutex);
                    cancelled = true;
                    return false;
                }
                const auto wait_start = std::chrono::steady_clock::now();
                FrameBuffer* buffer = pool.acquire();
                const double wait_ms = ms_since(wait_start);
                if (!buffer) {  // an encoder failed
                    pool.abandon(task, nullptr);
                    return false;
                }
                buffer->index = k - first;
                const auto render_start = std::chrono::steady_clock::now();
                try {
                    source.render(k, buffer->rgba.get());
                } catch (...) {
                    pool.abandon(task, buffer);
                    std::lock_guard<std::mutex> lock(clock.mutex);
                    clock.done -= k - first;
                    clock.rendered -= k - first;
                    result.frames_rendered -= k - first;
                    throw;
                }
                const double render_ms = ms_since(render_start);
                {
                    std::lock_guard<std::mutex> lock(clock.mutex);
                    result.times.encode_wait_ms += wait_ms;
                    result.times.render_ms += render_ms;
                    ++clock.done;
                    ++clock.rendered;
                    ++result.frames_rendered;
                    clock.report(k, r == 0 ? buffer->rgba.get() : nullptr, width, height, "rendering");
                }
                pool.push(task, buffer);
            }
            pool.close(task);
            return pool.error().empty();
        };
        const auto rendering_start = std::chrono::steady_clock::now();
        try {
            render_segments(job, renderers, todo, render_segment);
        } catch (...) {
            pool.stop(true);
            throw;
        }
        if (cancelled) {
            result.cancelled = true;
            pool.stop(true);
            result.times.encode_ms = pool.encode_ms();
            return result;
        }
        result.times.rendering_wall_ms = ms_since(rendering_start);
        clock.report(-1, nullptr, width, height, "encoding the last segments");
        const auto tail_start = std::chrono::steady_clock::now();
        pool.stop(false);
        result.times.encode_tail_ms = ms_since(tail_start);
        result.times.encode_ms = pool.encode_ms();
        if (std::string error = pool.error(); !error.empty())
            return failed(result, pool.disk_error() ? 2 : 1,
                          error + "; the finished segments stay in " + quoted(parts));
    }
    if (share) return result;
    clock.report(-1, nullptr, width, height, "muxing");
    const auto mux_start = std::chrono::steady_clock::now();
    muxer.join();
    if (!mux_error.empty()) return failed(result, 2, mux_error + "; the segments stay in " + quoted(parts));
    result.times.mux_ms = ms_since(mux_start);
    const auto removal_start = std::chrono::steady_clock::now();
    remove_parts_folder(parts);
    result.times.parts_removal_ms = ms_since(removal_start);
    return result;
}

}  // namespace

const char* video_codec_name(VideoCodec codec) { return codec == VideoCodec::H265 ? "h265" : "h264"; }

bool video_codec_from_name(const std::string& name, VideoCodec* out) {
    if (name == "h264") *out = VideoCodec::H264;
    else if (name == "h265") *out = VideoCodec::H265;
    else return false;
    return true;
}

bool video_codec_available(VideoCodec codec) {
    return avcodec_find_encoder_by_name(codec == VideoCodec::H265 ? "libx265" : "libx264") != nullptr;
}

double gpu_idle_share(const VideoStageTimes& times) {
    if (times.render.gpu_busy_ms <= 0.0 || times.rendering_wall_ms <= 0.0) return 0.0;
    const double available_ms = times.rendering_wall_ms * std::max(1, times.renderers);
    return std::clamp(1.0 - times.render.gpu_busy_ms / available_ms, 0.0, 1.0);
}

std::string VideoResult::failure_text() const {
    std::string text;
    for (size_t r = 0; r < renderers.size(); ++r) {
        if (renderers[r].failure.empty()) continue;
        std::string why = renderers[r].failure;
        if (!why.empty() && why.back() == '.') why.pop_back();
        if (!text.empty()) text += "\n";
        text += (renderers[r].device >= 0
                     ? "device " + std::to_string(renderers[r].device) + " (renderer " + std::to_string(r) + ")"
                     : "renderer " + std::to_string(r)) +
                " failed: " + why + "; its segments went to the other renderers";
    }
    return text;
}

bool video_output_is_folder(const std::filesystem::path& output) {
    const std::string text = output.string();
    return (!text.empty() && text.back() == '/') || std::filesystem::is_directory(output);
}

std::filesystem::path video_manifest_path(const std::filesystem::path& output) {
    if (video_output_is_folder(output)) return output / "manifest.jsonl";
    return output.parent_path() / (output.stem().string() + ".manifest.jsonl");
}

std::filesystem::path video_parts_path(const std::filesystem::path& output) {
    return output.parent_path() / ("." + output.filename().string() + ".parts");
}

std::string check_video_job(const VideoJob& job) {
    const FrameSourceSettings& f = job.frames;
    if (f.plan.empty()) return "the video has no frames";
    if (job.fps < 1 || job.fps > kVideoMaxFps)
        return "--fps must be between 1 and " + std::to_string(kVideoMaxFps) + " (got " + std::to_string(job.fps) + ")";
    if (f.supersample < 1 || f.supersample > 4) return "--supersample must be between 1 and 4";
    const View& first = f.plan.front();
    bool any_deep = false;
    for (const View& view : f.plan) {
        if (view.width != first.width || view.height != first.height) return "the video's frames differ in size";
        View samples = view;
        samples.width *= f.supersample;
        samples.height *= f.supersample;
        any_deep = any_deep || is_deep(resolve_precision(samples, f.precision));
    }
    for (const View* view : {&f.plan.front(), &f.plan.back()})
        if (std::string problem = validate_view(*view); !problem.empty()) return problem;
    if (first.colouring.base == ColourBase::Histogram)
        return "histogram colouring ranks each frame's own pixels, so a video's colours would flicker from frame to "
               "frame; use smooth or stripe colouring (--colouring=smooth)";
    if (any_deep)
        if (std::string problem = deep_view_colouring_problem(f.plan.back()); !problem.empty()) return problem;
    if (!palette_name_is_plain(first.palette)) return palette_name_problem(first.palette);
    const std::filesystem::path& out = job.output;
    if (out.empty()) return "no output given (-o OUT.mp4 or -o FOLDER/)";
    const bool folder = video_output_is_folder(out);
    if (job.exr) {
        if (!folder) return "--format=exr writes a folder of EXR files: give -o FOLDER/";
        if (job.method != VideoMethod::Direct)
            return "--format=exr writes raw values, which only frames rendered in full keep: use --method=direct";
        if (f.supersample != 1)
            return "--format=exr writes one raw value a pixel, as Kalles Fraktaler's files hold: leave out "
                   "--supersample";
    }
    if (folder) {
        std::filesystem::path dir = out;
        if (!dir.has_filename()) dir = dir.parent_path();
        const std::filesystem::path parent = dir.parent_path().empty() ? "." : dir.parent_path();
        if (!std::filesystem::is_directory(dir) && !std::filesystem::is_directory(parent))
            return "the folder " + quoted(parent) + " does not exist";
        if (!job.audio.empty())
            return std::string("--audio goes with an MP4 output, not ") + (job.exr ? "an EXR" : "a PNG") + " sequence";
        return {};
    }
    const std::filesystem::path parent = out.parent_path().empty() ? "." : out.parent_path();
    if (!std::filesystem::is_directory(parent)) return "the folder " + quoted(parent) + " does not exist";
    if (std::string problem = check_writable(out, ".mp4"); !problem.empty()) return problem;
    if (first.width % 2 != 0 || first.height % 2 != 0)
        return "yuv420p video needs an even width and height (got " + std::to_string(first.width) + "x" +
               std::to_string(first.height) + ")";
    if (first.width < kVideoMinSide || first.height < kVideoMinSide || first.width > kVideoMaxSide ||
        first.height > kVideoMaxSide)
        return "a video frame is " + std::to_string(kVideoMinSide) + " to " + std::to_string(kVideoMaxSide) +
               " pixels a side (got " + std::to_string(first.width) + "x" + std::to_string(first.height) + ")";
    if (!video_codec_available(job.encoding.codec))
        return std::string("the FFmpeg libraries here have no ") +
               (job.encoding.codec == VideoCodec::H265 ? "libx265" : "libx264") +
               " encoder (--codec=" + video_codec_name(job.encoding.codec) + ")";
    if (job.encoding.crf < 0 || job.encoding.crf > 51) return "--crf must be between 0 and 51";
    if (std::find(std::begin(kPresets), std::end(kPresets), job.encoding.preset) == std::end(kPresets))
        return "--preset must be one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, "
               "placebo";
    if (!job.audio.empty())
        if (std::string problem = check_soundtrack(job.audio); !problem.empty()) return problem;
    return {};
}

namespace {

// What run_video does before it renders: the output's folder (a sequence), the temporary files
// a killed run left, and the manifest, written. Returns the manifest's text; *path gets its path.
std::string write_manifest(const VideoJob& job, std::filesystem::path* path) {
    const bool folder = video_output_is_folder(job.output);
    if (folder) {
        std::error_code ec;
        std::filesystem::create_directory(job.output, ec);
    }
    *path = video_manifest_path(job.output);
    remove_stale_temps(*path);
    if (!folder) remove_stale_temps(job.output);
    const std::string manifest = manifest_text(job.frames.plan, job.fps, job.frames.precision, job.frames.supersample);
    AtomicFile file(*path);
    file.write(manifest.data(), manifest.size());
    file.commit();
    return manifest;
}

}  // namespace

std::vector<bool> prepare_video_parts(const VideoJob& job) {
    if (std::string problem = check_video_job(job); !problem.empty()) throw std::runtime_error(problem);
    if (video_output_is_folder(job.output))
        throw std::runtime_error("only an MP4 has a parts folder (a PNG or EXR sequence is written frame by frame)");
    std::filesystem::path manifest_path;
    return ready_parts(job, write_manifest(job, &manifest_path));
}

VideoResult run_video(const VideoJob& job, const VideoProgress& progress, const std::atomic<bool>* cancel) {
    VideoResult result;
    const auto start = std::chrono::steady_clock::now();
    if (std::string problem = check_video_job(job); !problem.empty()) return failed(result, 2, problem);
    // The encoders' and muxer's chatter (x264's statistics for every segment) stays off stderr;
    // their errors reach the caller as sentences.
    av_log_set_level(AV_LOG_ERROR);
    try {
        const bool folder = video_output_is_folder(job.output);
        const std::string manifest = write_manifest(job, &result.manifest);
        FrameSourceSettings settings = job.frames;
        settings.segment_frames = segment_frames_of(job);
        Renderers renderers;
        renderers.devices = renderer_devices(job);
        const int count = int(renderers.devices.size());
        if (count > 1) {
            settings.shared_orbit = std::make_shared<SharedOrbit>();
            settings.expmap_strips = std::make_shared<ExpmapStripShare>();
        }
        int fail_renderer = job.fail_renderer;
        if (fail_renderer < 0 && count > 1 && fault_injected(Fault::DeviceFail)) fail_renderer = count - 1;
        for (int r = 0; r < count; ++r) {
            std::string problem;
            std::unique_ptr<VideoFrameSource> source = make_frame_source(settings, job.method, &problem);
            if (!source) return failed(result, 2, problem);
            renderers.sources.push_back(
                std::make_unique<RendererSource>(std::move(source), r == fail_renderer ? job.fail_after_frames : -1));
        }
        ProgressClock clock(progress);
        clock.total = int64_t(job.frames.plan.size());
        result = !folder   ? run_mp4(job, renderers, clock, cancel, manifest, result)
                 : job.exr ? run_exr_sequence(job, renderers, clock, cancel, result)
                           : run_png_sequence(job, renderers, clock, cancel, result);
        result.times.render = renderers.times;
        result.times.renderers = count;
        if (count > 1) result.renderers = renderers.shares;
    } catch (const std::bad_alloc&) {
        return failed(result, 2, "ran out of memory while rendering the video");
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (!what.empty() && what.back() == '.') what.pop_back();
        return failed(result, 2, what);
    }
    result.times.wall_ms = ms_since(start);
    return result;
}

}  // namespace ms
