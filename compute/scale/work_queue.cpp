// work_queue.cpp: guided self-scheduling over a range of items, and the finished-items record
// (see work_queue.h).
#include "compute/scale/work_queue.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ms {

// --- FinishedItems ---------------------------------------------------------------------------

int64_t FinishedItems::mark(WorkPiece piece) {
    int64_t added = 0;
    for (int64_t i = std::max<int64_t>(piece.first, 0); i < std::min(piece.end(), items()); ++i) {
        if (!done_[size_t(i)]) {
            done_[size_t(i)] = true;
            ++added;
        }
    }
    count_ += added;
    return added;
}

std::string FinishedItems::to_text() const {
    std::string text;
    int64_t i = 0;
    while (i < items()) {
        if (!done_[size_t(i)]) {
            ++i;
            continue;
        }
        int64_t last = i;
        while (last + 1 < items() && done_[size_t(last + 1)]) ++last;
        if (!text.empty()) text += ',';
        text += std::to_string(i);
        if (last > i) text += '-' + std::to_string(last);
        i = last + 1;
    }
    return text;
}

namespace {

// A non-negative decimal integer filling text[begin, end); false otherwise.
bool parse_index(const std::string& text, size_t begin, size_t end, int64_t* out) {
    if (begin >= end || end - begin > 18) return false;
    int64_t value = 0;
    for (size_t i = begin; i < end; ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
        value = value * 10 + (text[i] - '0');
    }
    *out = value;
    return true;
}

}  // namespace

std::string FinishedItems::parse(const std::string& text, int64_t items, FinishedItems* out) {
    FinishedItems record(items);
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find(',', begin);
        if (end == std::string::npos) end = text.size();
        const size_t dash = text.find('-', begin);
        int64_t first = 0, last = 0;
        const bool ok = dash < end ? parse_index(text, begin, dash, &first) && parse_index(text, dash + 1, end, &last)
                                   : parse_index(text, begin, end, &first) && (last = first, true);
        const std::string range = text.substr(begin, std::min<size_t>(end - begin, 40));
        if (!ok || last < first) return "The finished range \"" + range + "\" is not N or N-M with N <= M.";
        if (last >= items) {
            return "The finished range \"" + range + "\" lies outside the " + std::to_string(items) + " items.";
        }
        record.mark({first, last - first + 1});
        begin = end + 1;
    }
    *out = std::move(record);
    return "";
}

// --- WorkQueue -------------------------------------------------------------------------------

WorkQueue::WorkQueue(const WorkQueueDesc& desc, const FinishedItems* finished)
    : desc_(desc), finished_(std::max<int64_t>(desc.items, 0)) {
    desc_.items = std::max<int64_t>(desc_.items, 0);
    desc_.workers = std::max(desc_.workers, 1);
    desc_.min_piece = std::max<int64_t>(desc_.min_piece, 1);
    if (desc_.shrink_factor <= 0.0) desc_.shrink_factor = 4.0;
    if (finished && finished->items() != desc_.items) {
        throw std::invalid_argument("The finished-items record covers " + std::to_string(finished->items()) +
                                    " items, not the queue's " + std::to_string(desc_.items) + ".");
    }
    // The unfinished items as ranges, in order.
    int64_t i = 0;
    while (i < desc_.items) {
        if (finished && finished->contains(i)) {
            ++i;
            continue;
        }
        int64_t end = i + 1;
        while (end < desc_.items && !(finished && finished->contains(end))) ++end;
        fresh_.push_back({i, end - i});
        remaining_ += end - i;
        i = end;
    }
    if (finished) finished_ = *finished;
}

int64_t WorkQueue::piece_size_locked() const {
    if (desc_.fixed_piece > 0) return desc_.fixed_piece;
    const double share = std::ceil(double(remaining_) / (desc_.shrink_factor * double(desc_.workers)));
    int64_t size = std::max(desc_.min_piece, int64_t(share));
    if (desc_.max_piece > 0) size = std::min(size, std::max(desc_.max_piece, desc_.min_piece));
    return size;
}

WorkPiece WorkQueue::take_from_locked(std::deque<WorkPiece>* ranges, int64_t size) {
    WorkPiece& front = ranges->front();
    WorkPiece piece{front.first, std::min(size, front.count)};
    front.first += piece.count;
    front.count -= piece.count;
    if (front.count == 0) ranges->pop_front();
    remaining_ -= piece.count;
    ++pieces_;
    return piece;
}

WorkPiece WorkQueue::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t size = piece_size_locked();
    if (!returned_.empty()) return take_from_locked(&returned_, size);
    if (!fresh_.empty()) return take_from_locked(&fresh_, size);
    return {};
}

void WorkQueue::give_back(WorkPiece piece) {
    if (piece.empty()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    returned_.push_back(piece);
    remaining_ += piece.count;
}

int64_t WorkQueue::finish(WorkPiece piece) {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_.mark(piece);
}

int64_t WorkQueue::remaining() {
    std::lock_guard<std::mutex> lock(mutex_);
    return remaining_;
}

bool WorkQueue::finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_.all();
}

int64_t WorkQueue::finished_count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_.count();
}

FinishedItems WorkQueue::finished_items() {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_;
}

int64_t WorkQueue::pieces_handed_out() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pieces_;
}

}  // namespace ms
