// deep_reference_guard.cpp: TeamGuard (see deep_reference_guard.h).
#include "compute/fractal/deep/deep_reference_guard.h"

#include <algorithm>

namespace ms {

double TeamGuard::team_seconds() const {
    if (team_blocks_ == 0) return -1.0;
    return *std::min_element(team_kept_, team_kept_ + team_blocks_);
}

void TeamGuard::block_done(double seconds) {
    if (team_) {
        team_kept_[team_next_] = seconds;
        team_next_ = (team_next_ + 1) % kTeamBlocksKept;
        team_blocks_ = std::min(team_blocks_ + 1, kTeamBlocksKept);
    } else {
        alone_seconds_ = alone_seconds_ < 0.0 ? seconds : std::min(alone_seconds_, seconds);
    }
    if (team_blocks_ == 0 || alone_seconds_ < 0.0) {  // the first block of each way
        team_ = team_blocks_ == 0;
        return;
    }
    const bool team_faster = team_seconds() < alone_seconds_;
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
