#!/usr/bin/env python3
# process_times.py: whole-process timing of mandelscope commands, the binaries alternated: the wall
# time, when the last line of output arrived (the summary) and how long the exit took after it
# (the driver's teardown on CUDA).
#   python3 tests/gpu/process_times.py OLD,NEW ROUNDS "render --size=16x16 --backend=cuda -o a.png" ...
import subprocess, sys, time, statistics, os
bins = sys.argv[1].split(",")
reps = int(sys.argv[2])
cmds = [c.split() for c in sys.argv[3:]]
res = {}
for r in range(reps):
    for c in cmds:
        for b in bins:
            t0 = time.monotonic()
            p = subprocess.Popen([b] + c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            last = t0
            first = None
            out = b""
            for line in p.stdout:
                now = time.monotonic()
                if first is None: first = now
                last = now
                out += line
            p.wait()
            t1 = time.monotonic()
            key = (" ".join(c), b)
            res.setdefault(key, []).append((t1 - t0, last - t0, t1 - last, p.returncode))
            if r == 0 and b == bins[-1]:
                txt = out.decode(errors="replace").splitlines()
                for l in txt:
                    if l.startswith(("time", "backend", "reference")): print("   ", os.path.basename(b), l[:150])
for (c, b), v in res.items():
    w = sorted(x[0] * 1000 for x in v); l = sorted(x[1] * 1000 for x in v); e = sorted(x[2] * 1000 for x in v)
    print("%-70s %-22s wall %s ms (median %.0f) | last line at %.0f | exit after it %.0f ms | rc %s" % (
        c[:70], os.path.basename(os.path.dirname(b)) + "/" + os.path.basename(b), "/".join("%.0f" % x for x in w),
        statistics.median(w), statistics.median(l), statistics.median(e), sorted(set(x[3] for x in v))))
