// queue_simulation.h: hosts of unequal speed pulling pieces from a WorkQueue (work_queue.h) in
// simulated time: how long a run takes against the ideal, with failures and stragglers injected,
// guided pieces against fixed ones. An event loop, no sleeping: a hundred hosts and thousands of
// pieces take milliseconds, and a seed makes every run the same.
//
// The model (units are seconds of simulated time):
//   - host h has speed s_h, drawn uniformly from [min_speed, max_speed]: an item takes
//     item_seconds / s_h on it;
//   - a request travels to rank 0 in request_seconds / 2, waits for rank 0 (one request at a time,
//     serve_seconds each), and the reply travels back in request_seconds / 2; a request that finds
//     the queue empty while pieces are still out waits at rank 0 for a hand-back;
//   - injected delays: a running host stalls for delay_seconds after exponentially distributed
//     times of mean mean_seconds_between_delays (0: never): a straggler (a page-out, a slow disk,
//     a busy link); the rate is per second of work, so small pieces pay no more than large ones;
//   - injected failures: a running host fails after an exponentially distributed time of mean
//     mean_seconds_between_failures (0: never), partway through a piece; rank 0 notices
//     detect_seconds later and hands the whole piece back; the host rejoins restart_seconds after
//     failing (< 0: never).
//
// ideal_seconds = items x item_seconds / (sum of speeds). The run's bound (the test asserts it):
// until the last piece goes out no host idles except while waiting for a failed piece's hand-back,
// so
//     makespan <= (work + lost) / (sum of speeds) + max_piece_seconds + request_seconds
//                 + late_failures x (max_piece_seconds + detect_seconds + request_seconds
//                                    + hosts x serve_seconds)
// where lost is the capacity spent on other things than finished items (requests, delays, work
// of failed pieces, hosts down; in seconds of a speed-1 host), max_piece_seconds the longest a
// piece ran, and late_failures the hand-backs that found hosts waiting (each ends a wait that
// began after the failed piece started: at most a piece, the detection and a request's trip,
// queueing at rank 0 included, before it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/scale/work_queue.h"

namespace ms {

struct QueueSimulationDesc {
    int hosts = 10;
    int64_t items = 4096;
    double item_seconds = 1.0;  // one item on a host of speed 1
    double min_speed = 1.0;     // speeds are drawn uniformly from [min_speed, max_speed]
    double max_speed = 1.0;
    double request_seconds = 0.0;  // a request's round trip to rank 0
    double serve_seconds = 0.0;    // rank 0's time to answer one request
    double mean_seconds_between_delays = 0.0;  // per host, while running; 0: no delays
    double delay_seconds = 0.0;
    double mean_seconds_between_failures = 0.0;  // per host, while running; 0: no failures
    double detect_seconds = 0.0;       // from a failure to its piece's hand-back
    double restart_seconds = -1.0;     // from a failure to the host's return; < 0: never
    uint64_t seed = 1;
    // The queue's piece sizes (min_piece, max_piece, shrink_factor, fixed_piece); its items and
    // workers come from the fields above.
    WorkQueueDesc queue;
};

struct QueueSimulationResult {
    bool completed = false;      // every item finished (false: every host was lost first)
    double makespan_seconds = 0.0;  // when the last item finished
    double ideal_seconds = 0.0;
    double bound_seconds = 0.0;     // see the header comment
    double max_piece_seconds = 0.0;
    double lost_seconds = 0.0;  // lost capacity, in seconds of a speed-1 host
    int64_t pieces = 0;
    int64_t failures = 0;
    int64_t late_failures = 0;
    int64_t delays = 0;
    int64_t items_redone = 0;  // items handed out again after failures
    double busiest_serve_fraction = 0.0;  // rank 0's time answering requests / makespan
    std::vector<int> completions;         // per item, how often it was finished (1 each)

    bool every_item_once() const;
    double ratio() const { return makespan_seconds / ideal_seconds; }
};

QueueSimulationResult simulate_queue(const QueueSimulationDesc& desc);

// A table of makespan against ideal for 10 and 100 hosts, equal and unequal speeds, with and
// without failures and stalls, guided against fixed pieces, each row the mean (and the worst) of
// `runs` seeds: lines of Markdown, for the test program and docs/scale.md. Requests take 1 ms
// there and back and 20 us of rank 0's time; stalls are 5 s per 100 s of work; a failed host's
// piece comes back after 10 s and the host after 60 s.
std::vector<std::string> queue_simulation_table(int64_t items, int runs);

}  // namespace ms
