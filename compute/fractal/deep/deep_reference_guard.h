// deep_reference_guard.h: whether the reference orbit's next block of iterations runs on its
// squaring team or on the orbit's thread alone, chosen by timing both (TeamGuard).
#pragma once

#include <cstdint>

namespace ms {

// Where the team runs by the automatic choice (ReferenceControl::threads 0), this decides block by
// block whether the next kBlockIterations run on the team or on the orbit's thread alone: what
// the team gains depends on the cores that are free now, which a precision threshold cannot know
// (on a loaded machine a helper waits for the scheduler at every hand-over and the team loses
// many times over). It times the team's blocks and, now and then, one block without it (a
// trial), and runs the faster. Each way stands at the fastest of its last kBlocksKept blocks:
// one block slowed by a moment's noise (a helper preempted once) does not turn the orbit away
// from the faster way, and a change that lasts (busy cores slowing the team, or a host slowed
// as a whole, both ways with it) shows within those blocks. Each trial the running way wins
// doubles the wait before the next (kMinTrialBlocks to kMaxTrialBlocks), so that a losing way
// costs a few percent at most; where the running way falls behind between trials, the orbit
// switches and the next trial comes after the shortest wait. Both ways make the same orbit bit
// for bit.
class TeamGuard {
public:
    static constexpr int64_t kBlockIterations = 64;
    static constexpr int64_t kMinTrialBlocks = 4;
    static constexpr int64_t kMaxTrialBlocks = 1024;
    static constexpr int kBlocksKept = 3;

    bool use_team() const { return team_; }
    // The block that ran as use_team() said took `seconds`.
    void block_done(double seconds);

private:
    // The last kBlocksKept block times of one way.
    struct Kept {
        double seconds[kBlocksKept] = {};
        int count = 0;  // up to kBlocksKept
        int next = 0;   // where the next block's time goes
        void add(double s);
        double fastest() const;  // < 0 before the first block
    };

    bool team_ = true;
    bool trial_ = false;  // the block now running tries the slower way
    Kept team_kept_, alone_kept_;
    int64_t blocks_ = 0;  // blocks run the faster way since the last trial or switch
    int64_t wait_blocks_ = kMinTrialBlocks;
};

}  // namespace ms
