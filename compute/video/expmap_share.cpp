// expmap_share.cpp: strips shared among renderers (expmap_share.h).
#include "compute/video/expmap_share.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace ms {

int ExpmapStripShare::join() {
    std::lock_guard<std::mutex> lock(mutex_);
    firsts_.push_back(0);
    return int(firsts_.size()) - 1;
}

void ExpmapStripShare::leave(int renderer) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (renderer < 0 || size_t(renderer) >= firsts_.size())
        throw std::invalid_argument("No such renderer in the share.");
    firsts_[size_t(renderer)] = INT_MAX;
    drop_locked();
}

ExpmapStripShare::Take ExpmapStripShare::take(int octave, bool wait, std::shared_ptr<const ExpmapSharedStrip>* strip) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        Entry& entry = entries_[octave];
        if (entry.strip) {
            *strip = entry.strip;
            return Take::Ready;
        }
        if (!entry.rendering) {
            entry.rendering = true;
            return Take::Render;
        }
        if (!wait) return Take::Busy;
        changed_.wait(lock);
    }
}

void ExpmapStripShare::publish(int octave, std::shared_ptr<const ExpmapSharedStrip> strip) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = entries_[octave];
    entry.rendering = false;
    entry.strip = std::move(strip);
    drop_locked();
    changed_.notify_all();
}

void ExpmapStripShare::abandon(int octave) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.erase(octave);
    changed_.notify_all();
}

void ExpmapStripShare::reading_from(int renderer, int first) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (renderer < 0 || size_t(renderer) >= firsts_.size())
        throw std::invalid_argument("No such renderer in the share.");
    firsts_[size_t(renderer)] = first;
    drop_locked();
}

int ExpmapStripShare::renderers() {
    std::lock_guard<std::mutex> lock(mutex_);
    return int(firsts_.size());
}

size_t ExpmapStripShare::strips_held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return size_t(std::count_if(entries_.begin(), entries_.end(), [](const auto& e) { return bool(e.second.strip); }));
}

void ExpmapStripShare::drop_locked() {
    if (firsts_.empty()) return;
    const int first = *std::min_element(firsts_.begin(), firsts_.end());
    // Strips held for rendering stay: their renderer publishes or abandons them.
    for (auto it = entries_.begin(); it != entries_.end() && it->first < first;) {
        if (it->second.rendering) ++it;
        else it = entries_.erase(it);
    }
}

}  // namespace ms
