// segment_share.h: a video's segments shared out over several renderers (one a GPU, for
// run_video in video_job.h), each keeping to a run of consecutive segments, or one by one.
//
// A renderer that goes on where it stopped reuses what it rendered: the exponential map's strips
// (a 1080p frame shows about 11 octaves of them, and a segment of a one-doubling-a-second dive
// adds one), the direct path's BLA tables. So the segments are first split into one run a
// renderer, of equal length, in order. A renderer whose run is done takes the later part of the
// longest run left, sized so that both end together once the newcomer has paid its start
// (start_cost, in segments: what a renderer renders before its first frame anywhere but where it
// stopped), and only where that part is a segment or more: near the end, a run's owner finishes
// it sooner than a newcomer would. This is the dynamic share: a slower device, or a harder
// stretch of the dive, gives part of its run to the others.
//
// Order::OneByOne is for sources that render nothing again to go on after another renderer (the
// exponential map with its strips shared, expmap_share.h): each renderer takes the first segment
// left, so that the segments finish about in order and the mux, which writes them in order,
// follows the encoders instead of waiting for the end.
//
// A renderer that fails hands back its segment and the rest of its run; the next idle renderer
// takes them whole. So next() waits while nothing is left to take but other renderers are still
// at work (one of them may yet fail), and returns -1 once every segment is done, every renderer
// left has failed, or the share is stopped.
//
//   SegmentShare share(todo, renderers, start_cost);
//   for (int64_t s = share.next(r); s >= 0; s = share.next(r))
//       if (!render(s)) { share.fail(r, s); break; }
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace ms {

class SegmentShare {
public:
    enum class Order { Runs, OneByOne };
    // segments: the segments to render, in increasing order; renderers >= 1; start_cost >= 0
    // (Runs only).
    SegmentShare(std::vector<int64_t> segments, int renderers, double start_cost, Order order = Order::Runs);
    SegmentShare(const SegmentShare&) = delete;
    SegmentShare& operator=(const SegmentShare&) = delete;

    // Renderer r's next segment (the one it had before, if any, is done), or -1: none is left
    // for it.
    int64_t next(int r);
    // Renderer r failed while rendering `segment` (-1: between segments): it and the rest of r's
    // run go to the others; r takes no more.
    void fail(int r, int64_t segment);
    // Every next() returns -1 from now on (a cancel, or a failure of the whole job).
    void stop();

    // Runs renderer r began somewhere new: its first, each part it took from another run, each
    // run a failed renderer left that it took.
    int64_t runs_started(int r);
    // Segments not yet handed out.
    int64_t remaining();

private:
    struct Run {  // indexes into segments_: [begin, end)
        size_t begin = 0, end = 0;
        size_t size() const { return end - begin; }
    };
    // The next segment for r, or -1 with nothing to take now.
    int64_t take_locked(int r);

    std::vector<int64_t> segments_;
    double start_cost_;
    Order order_;
    std::vector<int64_t> last_;  // OneByOne: each renderer's last segment (-1: none), for runs_started
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Run> runs_;     // each renderer's run left
    std::vector<bool> busy_;    // holds a segment
    std::vector<bool> failed_;  // takes no more
    std::deque<Run> orphans_;   // failed renderers' runs
    bool stopped_ = false;
    std::vector<int64_t> runs_started_;  // by renderer
};

}  // namespace ms
