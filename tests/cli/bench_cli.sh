#!/usr/bin/env bash
# bench_cli.sh: `mandelscope bench --quick --json=FILE` runs (in under a minute on the
# development machine), prints its table, and writes JSON in which every view and path of the
# suite is present (CUDA rows carry a skip reason where no device is usable; FP32 rows where
# FP32 cannot resolve the view), every figure that ran is positive, and the speedups agree with
# the times: speedup_vs_reference = reference ms / ms and speedup_vs_cpu_fast = CPU fast ms / ms
# of the same frame and shortcuts. Also: the seed comparison quotes the tutorial and its ratios
# match our times; the limits carry their napkin math; an unwritable --json is refused up front;
# the formula family has a frame each, with the formula's own limit.
# Then `bench --deep` at 16x16 on the CPU: its table, its JSON and its bad options.
# Usage: bash bench_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: bench_cli.sh /path/to/mandelscope}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

start=$(date +%s)
"$bin" bench --quick --json="$work/bench.json" > "$work/out.txt" 2> "$work/err.txt"
status=$?
echo "bench --quick took $(( $(date +%s) - start )) s"
cat "$work/out.txt"
[ "$status" -eq 0 ] || fail "bench exited $status: $(tail -3 "$work/err.txt")"
for text in "CPU reference" "CPU fast" "CUDA" "Seed comparison" "Back of the envelope" "% limit" "x ref" "x fast"; do
    grep -q "$text" "$work/out.txt" || fail "no '$text' in the table"
done
grep -q "bench 100%" "$work/err.txt" || fail "no progress lines on stderr (not a terminal: one per quarter)"
[ -s "$work/bench.json" ] || fail "no JSON written"

/usr/bin/python3 - "$work/bench.json" <<'PY' || fail "bench JSON is not what it should be (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
assert j["quick"] is True
cuda = j["machine"]["cuda"]
assert j["machine"]["cpu"]["cores"] >= 1 and j["machine"]["cpu"]["model"]
assert cuda["usable"] or cuda["reason"], "no CUDA and no reason"

# Every frame of the suite, every path, precision and shortcut setting.
views = {"tutorial frame", "full set", "seahorse valley", "elephant valley", "minibrot 1e10", "all interior"}
formulas = {"multibrot3", "multibrot4", "multibrot5", "multibrot6", "multibrot7", "multibrot8", "burning-ship", "tricorn"}
assert {r["view"] for r in rows} == views | formulas, {r["view"] for r in rows}
# A frame per formula of the family, each row saying which; its CPU limit divides by the
# formula's own operation count, so a Multibrot's limit lies below Mandelbrot's.
for r in rows:
    assert r["formula"] == (r["view"] if r["view"] in formulas else "mandelbrot"), r
mandel_limit = [r["limit_iterations_per_second"] for r in rows if r["view"] == "full set" and r["path"] == "CPU fast" and r["precision"] == "fp64" and "skipped" not in r]
cubic_limit = [r["limit_iterations_per_second"] for r in rows if r["view"] == "multibrot3" and r["path"] == "CPU fast" and r["precision"] == "fp64" and "skipped" not in r]
assert mandel_limit and cubic_limit and abs(cubic_limit[0] / mandel_limit[0] - 9 / 15) < 1e-9, (mandel_limit, cubic_limit)
frames = {(r["view"], r["size"]) for r in rows}
assert {s for _, s in frames} == {"1536x1024", "1080p"}, frames  # --quick: 1080p only
combos = {("CPU reference", "fp64"), ("CPU fast", "fp32"), ("CPU fast", "fp64"), ("CUDA", "fp32"), ("CUDA", "fp64")}
for f in frames:
    got = {(r["path"], r["precision"], r["shortcuts"]) for r in rows if (r["view"], r["size"]) == f}
    want = {(p, q, s) for p, q in combos for s in (True, False)}
    assert got == want, (f, want - got)
    assert len([r for r in rows if (r["view"], r["size"]) == f]) == 10, f

def find(r, path, precision):
    for o in rows:
        if (o["view"], o["size"], o["shortcuts"], o["path"], o["precision"]) == (r["view"], r["size"], r["shortcuts"], path, precision):
            return o

def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))

ran = 0
for r in rows:
    what = "%s %s %s %s shortcuts %s" % (r["view"], r["size"], r["path"], r["precision"], r["shortcuts"])
    if "skipped" in r:
        assert r["skipped"], what + ": an empty skip reason"
        if r["path"] == "CUDA" and not cuda["usable"]:
            assert cuda["reason"] in r["skipped"], what
        elif r["precision"] == "fp32":
            assert "FP32 cannot resolve" in r["skipped"], what
            assert r["view"] == "minibrot 1e10", what + ": FP32 should resolve this view"
        else:
            raise AssertionError(what + " skipped: " + r["skipped"])
        continue
    ran += 1
    assert r["path"] != "CUDA" or cuda["usable"], what
    assert r["precision"] == "fp64" or r["view"] != "minibrot 1e10", what + ": FP32 on a view it cannot resolve"
    assert r["ms"] > 0 and r["runs"] >= 1, what
    assert r["iterations"] >= 0, what
    if r["iterations"] > 0:
        assert r["iterations_per_second"] > 0 and r["percent_of_limit"] > 0, what
        assert close(r["iterations_per_second"], r["iterations"] / (r["ms"] * 1e-3), 1e-3), what
        assert close(r["percent_of_limit"], 100 * r["iterations_per_second"] / r["limit_iterations_per_second"], 1e-6), what
    ref = find(r, "CPU reference", "fp64")
    fast = find(r, "CPU fast", "fp64" if r["path"] == "CPU reference" else r["precision"])
    assert "skipped" not in ref, what
    assert r["speedup_vs_reference"] > 0 and close(r["speedup_vs_reference"], ref["ms"] / r["ms"]), (what, r["speedup_vs_reference"], ref["ms"], r["ms"])
    assert r["speedup_vs_cpu_fast"] > 0 and close(r["speedup_vs_cpu_fast"], fast["ms"] / r["ms"]), what
    if r["path"] == "CPU reference":
        assert r["speedup_vs_reference"] == 1.0, what
        # Where it rendered every row (no "scaled" note) it did exactly the fast path's work.
        if "scaled" not in r["note"]:
            assert r["iterations"] == fast["iterations"], (what, r["iterations"], fast["iterations"])
    if r["path"] == "CPU fast":
        assert r["speedup_vs_cpu_fast"] == 1.0, what
    if r["path"] == "CUDA":
        a = r["agreement_with_cpu_fast"]
        assert a["agree"], what + ": " + a["sentence"]
assert ran > 0

# The limits and their napkin math.
limits = j["limits"]
for key in ("cpu_reference", "cpu_fast_fp32", "cpu_fast_fp64"):
    assert limits[key]["iterations_per_second"] > 0 and "FP ops per iteration" in limits[key]["formula"], key
for key in ("cuda_fp32", "cuda_fp64"):
    if cuda["usable"]:
        assert limits[key]["iterations_per_second"] > 0 and limits[key]["instructions_per_iteration"] > 0, key
    else:
        assert limits[key]["skipped"], key

# The seed comparison: the tutorial's figures and our ratios.
seed = j["seed_comparison"]
assert abs(seed["tutorial_cpu_python_ms"] - 4070) < 1e-6 and abs(seed["tutorial_gpu_ms"] - 4.6) < 1e-9
assert seed["view"]["width"] == 1536 and seed["view"]["height"] == 1024 and seed["view"]["max_iterations"] == 20
assert seed["rows"], "no seed rows"
for s in seed["rows"]:
    assert close(s["speedup_vs_tutorial_cpu"], 4070 / s["ms"]) and close(s["speedup_vs_tutorial_gpu"], 4.6 / s["ms"]), s

for p in ("fp32", "fp64"):
    e = j["estimates"][p]
    assert cuda["usable"] or e["skipped"], e
print("bench JSON: %d rows (%d ran), %d frames, every path present; speedups match the times" % (len(rows), ran, len(frames)))
PY

# Every target is marked met or MISSED, as its figure says, and the misses are counted (a line
# such as "5.9x (target >= 6x)" must not pass without a mark).
targets=$(sed -n '/^Targets$/,$p' "$work/out.txt" | grep '(target >= ')
[ -n "$targets" ] || fail "no target lines"
echo "$targets" | grep -Ev ': (met|MISSED)\)$' && fail "a target line is not marked met or MISSED"
/usr/bin/python3 - "$work/bench.json" "$work/out.txt" <<'PY' || fail "the targets' marks do not match their figures (see above)"
import json, re, sys
t = json.load(open(sys.argv[1]))["targets"]
out = open(sys.argv[2]).read()
goals = {"cpu_fp64_seahorse_speedup_vs_reference": 12, "cpu_fp32_full_shortcut_speedup": 6,
         "cpu_fp64_full_shortcut_speedup": 6, "cuda_fp32_full_shortcut_speedup": 4, "cuda_fp64_full_shortcut_speedup": 4,
         "cuda_fp32_interior_iterations_per_second": 3.5e12, "cuda_fp64_interior_iterations_per_second": 2.0e12}
missed = 0
for name, goal in goals.items():
    if name not in t:
        continue
    value = round(t[name], 1) if name.endswith("_shortcut_speedup") else t[name]
    assert t[name + "_met"] == (value >= goal), (name, t[name], t[name + "_met"])
    missed += not t[name + "_met"]
assert t["missed"] == missed, (t["missed"], missed)
summary = ("MISSED: %d of the" % missed) if missed else "targets measured here met"
assert summary in out, summary
print("targets: %d marked, %d missed, marks match the figures" % (sum(n in t for n in goals), missed))
PY

# A JSON path that cannot be written is refused before the work.
"$bin" bench --quick --json="$work/no-such-dir/x.json" > /dev/null 2> "$work/err2.txt"
status=$?
[ "$status" -eq 2 ] || fail "bench with an unwritable --json exited $status, not 2"
[ "$(wc -l < "$work/err2.txt")" -eq 1 ] || fail "bench with an unwritable --json: not one line on stderr"

# bench --deep: every kf2 location has a row (1e14 says why it is missing), its
# end-to-end and cached times and its ratio against KF; at a size other than 1024x1024 no goal
# is marked and a line says why; the JSON carries the rows. Small: 16x16, on the CPU.
"$bin" bench --deep --size=16x16 --backend=cpu --json="$work/deep.json" > "$work/deep.txt" 2> "$work/deep.err"
status=$?
cat "$work/deep.txt"
[ "$status" -eq 0 ] || fail "bench --deep exited $status: $(tail -3 "$work/deep.err")"
for label in 1e50 5e113 5e227 4e533 1e1086; do
    grep -Eq "^  $label +(double|floatexp) .*x .*\(marks need 1024x1024\)$" "$work/deep.txt" || fail "no row for $label"
done
grep -q "^  1e14    skipped: no public location file" "$work/deep.txt" || fail "the missing 1e14 location is not explained"
grep -q "ratio sets unlike sizes side by side" "$work/deep.txt" || fail "no line saying why no goal is marked"
grep -q "MISSED\|met" "$work/deep.txt" && fail "goal marks at 16x16"
/usr/bin/python3 - "$work/deep.json" <<'PY' || fail "bench --deep JSON is not what it should be"
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["width"], j["height"], j["backend"]) == (16, 16, "cpu"), j
ran = [r for r in j["rows"] if "skipped" not in r]
assert [r["location"] for r in ran] == ["1e50", "5e113", "5e227", "4e533", "1e1086"], ran
for r in ran:
    assert r["end_to_end_ms"] > 0 and r["cached_frame_ms"] > 0, r
    assert abs(r["ratio_vs_kf"] - r["kf_seconds"] * 1000 / r["end_to_end_ms"]) < 1e-6 * r["ratio_vs_kf"], r
    assert 0 < r["bla_iterations"] <= r["iterations"], r
print("bench --deep JSON: 5 rows, ratios match the times")
PY
for bad in "--deep --size=0x16" "--deep --quick" "--size=16x16" "--deep --backend=opencl"; do
    # shellcheck disable=SC2086
    "$bin" bench $bad > /dev/null 2> "$work/err3.txt"
    status=$?
    [ "$status" -eq 2 ] || fail "bench $bad exited $status, not 2"
    [ "$(wc -l < "$work/err3.txt")" -eq 1 ] || fail "bench $bad: not one line on stderr: $(cat "$work/err3.txt")"
done

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all bench checks passed"
