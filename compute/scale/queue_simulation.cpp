// queue_simulation.cpp: the event loop of queue_simulation.h. Events are kept in a heap ordered
// by (time, sequence number), so equal times resolve the same way on every run.
#include "compute/scale/queue_simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <queue>

namespace ms {

namespace {

// splitmix64: the same numbers on every standard library (std:: distributions are not).
struct Rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1p-53; }  // [0, 1)
};

enum class EventKind { Arrive, ServerFree, PieceEnd, HostFails, FailureDetected, HostReturns };

struct Event {
    double time;
    int64_t sequence;
    EventKind kind;
    int host;
    WorkPiece piece;  // FailureDetected: the piece handed back
    bool operator>(const Event& other) const {
        return time != other.time ? time > other.time : sequence > other.sequence;
    }
};

struct Host {
    double speed = 1.0;
    double sent = 0.0;     // when its request left
    double started = 0.0;  // when its piece started
    double down_since = -1.0;
    WorkPiece piece;
    double delay = 0.0;  // the injected stalls of its piece, in all
    int64_t stalls = 0;
};

struct Simulation {
    const QueueSimulationDesc& desc;
    WorkQueue queue;
    Rng rng;
    std::vector<Host> hosts;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
    int64_t sequence = 0;
    std::deque<int> at_server;  // requests waiting for rank 0, in arrival order
    std::vector<int> waiting;   // requests that found the queue empty, waiting for a hand-back
    bool server_busy = false;
    double serve_total = 0.0;
    QueueSimulationResult result;

    Simulation(const QueueSimulationDesc& d, const WorkQueueDesc& queue_desc)
        : desc(d), queue(queue_desc), rng{d.seed} {}

    void push(double time, EventKind kind, int host, WorkPiece piece = {}) {
        events.push(Event{time, sequence++, kind, host, piece});
    }

    double exponential(double mean) { return -std::log1p(-rng.uniform()) * mean; }

    void request(double now, int h) {
        hosts[size_t(h)].sent = now;
        push(now + desc.request_seconds / 2, EventKind::Arrive, h);
    }

    // Rank 0 answers the first request in line.
    void serve(double now) {
        if (server_busy || at_server.empty()) return;
        const int h = at_server.front();
        at_server.pop_front();
        server_busy = true;
        serve_total += desc.serve_seconds;
        push(now + desc.serve_seconds, EventKind::ServerFree, -1);
        const WorkPiece piece = queue.take();
        if (piece.empty()) {
            if (!queue.finished()) waiting.push_back(h);
            return;
        }
        ++result.pieces;
        Host& host = hosts[size_t(h)];
        host.piece = piece;
        host.started = now + desc.serve_seconds + desc.request_seconds / 2;
        result.lost_seconds += (host.started - host.sent) * host.speed;
        // Stalls arrive at exponential intervals of working time: count those within the piece.
        const double work_seconds = double(piece.count) * desc.item_seconds / host.speed;
        host.delay = 0.0;
        host.stalls = 0;
        if (desc.mean_seconds_between_delays > 0.0) {
            for (double t = exponential(desc.mean_seconds_between_delays); t < work_seconds;
                 t += exponential(desc.mean_seconds_between_delays)) {
                host.delay += desc.delay_seconds;
                ++host.stalls;
            }
        }
        const double duration = work_seconds + host.delay;
        double fails_after = INFINITY;
        if (desc.mean_seconds_between_failures > 0.0)
            fails_after = exponential(desc.mean_seconds_between_failures);
        if (fails_after < duration) {
            push(host.started + fails_after, EventKind::HostFails, h);
        } else {
            push(host.started + duration, EventKind::PieceEnd, h);
        }
    }

    void piece_end(double now, int h) {
        Host& host = hosts[size_t(h)];
        queue.finish(host.piece);
        for (int64_t i = host.piece.first; i < host.piece.end(); ++i) ++result.completions[size_t(i)];
        result.max_piece_seconds = std::max(result.max_piece_seconds, now - host.started);
        result.lost_seconds += host.delay * host.speed;
        result.delays += host.stalls;
        result.makespan_seconds = now;
        host.piece = {};
        if (!queue.finished()) request(now, h);
    }

    void host_fails(double now, int h) {
        Host& host = hosts[size_t(h)];
        ++result.failures;
        result.max_piece_seconds = std::max(result.max_piece_seconds, now - host.started);
        result.lost_seconds += (now - host.started) * host.speed;
        host.down_since = now;
        push(now + desc.detect_seconds, EventKind::FailureDetected, h, host.piece);
        host.piece = {};
        if (desc.restart_seconds >= 0.0) push(now + desc.restart_seconds, EventKind::HostReturns, h);
    }

    void failure_detected(double now, WorkPiece piece) {
        queue.give_back(piece);
        result.items_redone += piece.count;
        if (!waiting.empty()) ++result.late_failures;
        for (int h : waiting) {
            hosts[size_t(h)].sent = now;  // its wait so far is inside a late failure's window
            at_server.push_back(h);
        }
        waiting.clear();
        serve(now);
    }

    void host_returns(double now, int h) {
        Host& host = hosts[size_t(h)];
        result.lost_seconds += (now - host.down_since) * host.speed;
        host.down_since = -1.0;
        if (!queue.finished()) request(now, h);
    }

    void run() {
        result.completions.assign(size_t(desc.items), 0);
        hosts.resize(size_t(desc.hosts));
        double total_speed = 0.0;
        for (Host& host : hosts) {
            host.speed = desc.min_speed + (desc.max_speed - desc.min_speed) * rng.uniform();
            total_speed += host.speed;
        }
        for (int h = 0; h < desc.hosts; ++h) request(0.0, h);
        while (!events.empty() && !queue.finished()) {
            const Event event = events.top();
            events.pop();
            switch (event.kind) {
            case EventKind::Arrive:
                at_server.push_back(event.host);
                serve(event.time);
                break;
            case EventKind::ServerFree:
                server_busy = false;
                serve(event.time);
                break;
            case EventKind::PieceEnd: piece_end(event.time, event.host); break;
            case EventKind::HostFails: host_fails(event.time, event.host); break;
            case EventKind::FailureDetected: failure_detected(event.time, event.piece); break;
            case EventKind::HostReturns: host_returns(event.time, event.host); break;
            }
        }
        result.completed = queue.finished();
        // Hosts still down at the end were lost capacity until then.
        for (const Host& host : hosts) {
            if (host.down_since >= 0.0) result.lost_seconds += (result.makespan_seconds - host.down_since) * host.speed;
        }
        const double work = double(desc.items) * desc.item_seconds;
        result.ideal_seconds = work / total_speed;
        const double window = result.max_piece_seconds + desc.detect_seconds + desc.request_seconds +
                              double(desc.hosts) * desc.serve_seconds;
        result.bound_seconds = (work + result.lost_seconds) / total_speed + result.max_piece_seconds +
                               desc.request_seconds + double(result.late_failures) * window;
        result.busiest_serve_fraction = result.makespan_seconds > 0.0 ? serve_total / result.makespan_seconds : 0.0;
    }
};

}  // namespace

bool QueueSimulationResult::every_item_once() const {
    return std::all_of(completions.begin(), completions.end(), [](int n) { return n == 1; });
}

QueueSimulationResult simulate_queue(const QueueSimulationDesc& desc) {
    WorkQueueDesc queue_desc = desc.queue;
    queue_desc.items = desc.items;
    queue_desc.workers = desc.hosts;
    Simulation simulation(desc, queue_desc);
    simulation.run();
    return std::move(simulation.result);
}

std::vector<std::string> queue_simulation_table(int64_t items, int runs) {
    struct Scenario {
        const char* name;
        double min_speed, max_speed;
        bool injected;
    };
    const Scenario scenarios[] = {
        {"equal", 1.0, 1.0, false},
        {"0.5-2x", 0.5, 2.0, false},
        {"0.5-2x, failures, stalls", 0.5, 2.0, true},
    };
    // Piece sizes: a negative size is a share, items / (hosts x -size) (-1: one share per host;
    // -8: an eighth of a share, the render's cap across ranks).
    struct Scheme {
        const char* name;
        double shrink_factor;
        int64_t fixed_piece;  // 0: guided
        int64_t max_piece;    // 0: no limit
    };
    const Scheme schemes[] = {
        {"guided k=2", 2.0, 0, 0},           {"guided k=4", 4.0, 0, 0},
        {"guided k=4, at most 1/8 share", 4.0, 0, -8}, {"fixed 1/8 share", 0.0, -8, 0},
        {"fixed 1", 0.0, 1, 0},              {"fixed 16", 0.0, 16, 0},
        {"fixed items/hosts", 0.0, -1, 0},
    };
    auto share = [&](int64_t size, int hosts) {
        return size >= 0 ? size : std::max<int64_t>(1, items / (int64_t(hosts) * -size));
    };
    std::vector<std::string> lines;
    lines.push_back("| hosts | speeds, injected | piece sizes | requests | failures | ideal s | makespan/ideal, mean "
                    "| worst | makespan <= bound |");
    lines.push_back("|---:|---|---|---:|---:|---:|---:|---:|---|");
    for (int hosts : {10, 100}) {
        for (const Scenario& scenario : scenarios) {
            for (const Scheme& scheme : schemes) {
                double requests = 0.0, failures = 0.0, ideal = 0.0, ratio = 0.0, worst = 0.0;
                bool within = true;
                for (int run = 0; run < runs; ++run) {
                    QueueSimulationDesc desc;
                    desc.hosts = hosts;
                    desc.items = items;
                    desc.item_seconds = 1.0;
                    desc.min_speed = scenario.min_speed;
                    desc.max_speed = scenario.max_speed;
                    desc.request_seconds = 0.001;
                    desc.serve_seconds = 0.00002;
                    if (scenario.injected) {
                        desc.mean_seconds_between_delays = 100.0;  // a 5 s stall per 100 s of work
                        desc.delay_seconds = 5.0;
                        // About three failures a run, whatever the hosts: between them they run
                        // about 0.8 x items seconds (mean speed 1.25).
                        desc.mean_seconds_between_failures = double(items) / 4.0;
                        desc.detect_seconds = 10.0;
                        desc.restart_seconds = 60.0;
                    }
                    desc.seed = uint64_t(run + 1);
                    desc.queue.shrink_factor = scheme.shrink_factor > 0.0 ? scheme.shrink_factor : 4.0;
                    desc.queue.fixed_piece = scheme.fixed_piece == -1 ? (items + hosts - 1) / hosts
                                                                       : share(scheme.fixed_piece, hosts);
                    desc.queue.max_piece = share(scheme.max_piece, hosts);
                    const QueueSimulationResult r = simulate_queue(desc);
                    requests += double(r.pieces);
                    failures += double(r.failures);
                    ideal += r.ideal_seconds;
                    ratio += r.ratio();
                    worst = std::max(worst, r.ratio());
                    within = within && r.completed && r.every_item_once() && r.makespan_seconds <= r.bound_seconds;
                }
                char line[256];
                std::snprintf(line, sizeof line, "| %d | %s | %s | %.0f | %.1f | %.1f | %.3f | %.3f | %s |", hosts,
                              scenario.name, scheme.name, requests / runs, failures / runs, ideal / runs,
                              ratio / runs, worst, within ? "yes" : "NO");
                lines.push_back(line);
            }
        }
    }
    return lines;
}

}  // namespace ms
