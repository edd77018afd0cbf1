// segment_share.cpp: a video's segments over renderers, in runs or one by one (segment_share.h).
#include "compute/video/segment_share.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace ms {

SegmentShare::SegmentShare(std::vector<int64_t> segments, int renderers, double start_cost, Order order)
    : segments_(std::move(segments)), start_cost_(start_cost), order_(order) {
    if (renderers < 1) throw std::invalid_argument("A share of segments needs at least one renderer.");
    const size_t n = segments_.size(), r_count = size_t(renderers);
    runs_.resize(r_count);
    busy_.assign(r_count, false);
    failed_.assign(r_count, false);
    runs_started_.assign(r_count, 0);
    last_.assign(r_count, -1);
    if (order_ == Order::OneByOne) {
        // One run of them all, which every renderer takes from the front (take_locked).
        if (n > 0) orphans_.push_back({0, n});
        return;
    }
    for (size_t r = 0; r < r_count; ++r) {
        runs_[r] = {r * n / r_count, (r + 1) * n / r_count};
        if (runs_[r].size() > 0) runs_started_[r] = 1;
    }
}

int64_t SegmentShare::take_locked(int r) {
    if (order_ == Order::OneByOne) {
        // The first segment left: a failed renderer's come back to the front.
        while (!orphans_.empty() && orphans_.front().size() == 0) orphans_.pop_front();
        if (orphans_.empty()) return -1;
        const int64_t segment = segments_[orphans_.front().begin++];
        if (last_[size_t(r)] < 0 || segment != last_[size_t(r)] + 1) ++runs_started_[size_t(r)];
        last_[size_t(r)] = segment;
        busy_[size_t(r)] = true;
        return segment;
    }
    Run& mine = runs_[size_t(r)];
    if (mine.size() == 0 && !orphans_.empty()) {
        mine = orphans_.front();
        orphans_.pop_front();
        ++runs_started_[size_t(r)];
    }
    if (mine.size() == 0) {
        // The later part of the longest run left: k segments for the newcomer, who starts them
        // after start_cost, and size - k for the owner; both end together at k = (size - cost) / 2.
        size_t longest = runs_.size();
        for (size_t v = 0; v < runs_.size(); ++v)
            if (int(v) != r && !failed_[v] && (longest == runs_.size() || runs_[v].size() > runs_[longest].size()))
                longest = v;
        if (longest < runs_.size()) {
            Run& theirs = runs_[longest];
            const double k = std::floor((double(theirs.size()) - start_cost_) / 2.0);
            if (k >= 1.0) {
                mine = {theirs.end - size_t(k), theirs.end};
                theirs.end = mine.begin;
                ++runs_started_[size_t(r)];
            }
        }
    }
    if (mine.size() == 0) return -1;
    busy_[size_t(r)] = true;
    return segments_[mine.begin++];
}

int64_t SegmentShare::next(int r) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (r < 0 || size_t(r) >= runs_.size()) throw std::invalid_argument("No such renderer in the share.");
    busy_[size_t(r)] = false;
    changed_.notify_all();  // a renderer waiting for the end may be the last one waiting
    for (;;) {
        if (stopped_ || failed_[size_t(r)]) return -1;
        const int64_t segment = take_locked(r);
        if (segment >= 0) return segment;
        // Nothing to take now: done unless another renderer still works (it may fail and leave
        // its run behind).
        bool working = false;
        for (size_t v = 0; v < runs_.size(); ++v) working = working || busy_[v];
        if (!working) return -1;
        changed_.wait(lock);
    }
}

void SegmentShare::fail(int r, int64_t segment) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (r < 0 || size_t(r) >= runs_.size()) throw std::invalid_argument("No such renderer in the share.");
    if (order_ == Order::OneByOne) {
        if (segment >= 0 && busy_[size_t(r)]) {
            // Its index in segments_ (increasing), back to the front.
            const auto at = std::lower_bound(segments_.begin(), segments_.end(), segment);
            const size_t index = size_t(at - segments_.begin());
            orphans_.push_front({index, index + 1});
        }
        busy_[size_t(r)] = false;
        failed_[size_t(r)] = true;
        changed_.notify_all();
        return;
    }
    Run rest = runs_[size_t(r)];
    // The segment it held is the one before its run's rest (segments go out in order).
    if (segment >= 0 && busy_[size_t(r)] && rest.begin > 0 && segments_[rest.begin - 1] == segment) --rest.begin;
    runs_[size_t(r)] = {};
    busy_[size_t(r)] = false;
    failed_[size_t(r)] = true;
    if (rest.size() > 0) orphans_.push_back(rest);
    changed_.notify_all();
}

void SegmentShare::stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
}

int64_t SegmentShare::runs_started(int r) {
    std::lock_guard<std::mutex> lock(mutex_);
    return runs_started_.at(size_t(r));
}

int64_t SegmentShare::remaining() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t left = 0;
    for (const Run& run : runs_) left += run.size();
    for (const Run& run : orphans_) left += run.size();
    return int64_t(left);
}

}  // namespace ms
