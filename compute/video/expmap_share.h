// expmap_share.h: the exponential map's strips shared among the renderers of one dive (one a
// GPU, video_job.h), so that each strip is rendered once, whichever renderer needs it.
//
// A renderer that needs a strip asks the share (take):
//   Ready   another renderer has published it: the caller copies it (on CUDA, device to device;
//           a renderer on the same device uses the same buffer);
//   Render  nobody has: the caller now holds it, renders it and publishes it, or abandons it
//           where its render fails, so that the next renderer to ask renders it instead;
//   Busy    another renderer is rendering it (take without waiting): the caller renders the
//           strips nobody holds first, then, while it waits for these, strips that later frames
//           need (expmap.cpp), so that renderers side by side render different strips at once.
// Nothing waits while holding a strip, so renderers cannot wait on each other in a circle.
//
// A renderer that goes on where another stopped copies about 11 octaves (a 1080p frame's
// strips) instead of rendering them again: the segments of a video can then go out in order
// (segment_share.h), and the mux follows the encoders instead of waiting for the end.
//
// The share keeps a strip while some renderer may still read it: each renderer says from which
// octave its frames read (reading_from), and strips above every renderer's first are dropped.
// A renderer that later asks for a dropped strip renders it again.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "compute/video/expmap_mips.h"

namespace ms {

struct ExpmapDeviceStrip;  // expmap_cuda.h: a strip's levels on a device

// One rendered and coloured strip, as its renderer publishes it.
struct ExpmapSharedStrip {
    int renderer = -1;                                   // its renderer's number in the share
    std::vector<MipLevel> levels;                        // the host's levels; with on_device, their sizes only
    std::shared_ptr<const ExpmapDeviceStrip> on_device;  // CUDA: the levels on their renderer's device
};

class ExpmapStripShare {
public:
    ExpmapStripShare() = default;
    ExpmapStripShare(const ExpmapStripShare&) = delete;
    ExpmapStripShare& operator=(const ExpmapStripShare&) = delete;

    // A renderer's number in the share, and its end (its first octave then holds no strip).
    int join();
    void leave(int renderer);

    enum class Take { Ready, Render, Busy };
    // The strip of `octave`: Ready (*strip set), Render (the caller holds it: publish or
    // abandon follows), or, without wait, Busy. With wait, Busy is waited out: it ends Ready, or
    // Render where its renderer abandoned it.
    Take take(int octave, bool wait, std::shared_ptr<const ExpmapSharedStrip>* strip);
    void publish(int octave, std::shared_ptr<const ExpmapSharedStrip> strip);
    void abandon(int octave);

    // Renderer r's frames now read octaves from `first` on.
    void reading_from(int renderer, int first);

    int renderers();       // renderers joined
    size_t strips_held();  // published strips kept now
private:
    struct Entry {
        bool rendering = false;
        std::shared_ptr<const ExpmapSharedStrip> strip;
    };
    void drop_locked();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<int, Entry> entries_;  // by octave
    std::vector<int> firsts_;       // by renderer; INT_MAX once it left
};

}  // namespace ms
