// deep_reference_guard.cpp: TeamGuard (see deep_reference_guard.h).
#include "compute/fractal/deep/deep_reference_guard.h"

#include <algorithm>

namespace ms {

void TeamGuard::Kept::add(double s) {
    seconds[next] = s;
    next = (next + 1) % kBlocksKept;
    count = std::min(count + 1, kBlocksKept);
}

double TeamGuard::Kept::fastest() const {
    if (count == 0) return -1.0;
    return *std::min_element(seconds, seconds + count);
}

void TeamGuard::block_done(double seconds) {
    (team_ ? team_kept_ : alone_kept_).add(seconds);
    if (team_kept_.count == 0 || alone_kept_.count == 0) {  // the first block of each way
        team_ = team_kept_.count == 0;
        return;
    }
    const bool team_faster = team_kept_.fastest() < alone_kept_.fastest();
    if (trial_) {
        trial_ = false;
        wait_blocks_ = team_ == team_faster ? kMinTrialBlocks : std::min(2 * wait_blocks_, kMaxTrialBlocks);
        blocks_ = 0;
    } else if (team_ != team_faster) {
        wait_blocks_ = kMinTrialBlocks;
        blocks_ = 0;
    } else if (++blocks_ >= wait_blocks_) {
        trial_ = true;
        team_ = !team_faster;
        return;
    }
    team_ = team_faster;
}

}  // namespace ms
