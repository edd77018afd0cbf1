#!/usr/bin/env bash
# info_cli.sh: `mandelscope info` exits 0 and describes the CPU (model, cores, SIMD set, clock)
# and either the CUDA devices or, where none can be used (CI: no driver), the exact reason;
# `info --json` is valid JSON (in a CPU-only build too: "built_with_cuda": false) with the same facts, every CUDA device attribute, the iteration
# limits with their formulas, and "usable": false with the reason in words where no device is.
# Usage: bash info_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: info_cli.sh /path/to/mandelscope}")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out=$("$bin" info 2>&1)
status=$?
echo "$out"
[ "$status" -eq 0 ] || fail "info exited $status"
for field in "model" "cores" "clock" "SIMD in use" "bound"; do
    echo "$out" | grep -q "  $field" || fail "info does not show '$field'"
done
if echo "$out" | grep -q "^  device 0"; then
    echo "$out" | grep -q "compute capability" || fail "a CUDA device without its compute capability"
else
    echo "$out" | grep -q "no CUDA device can be used: ." || fail "no device and no reason given"
fi

json=$("$bin" info --json)
status=$?
[ "$status" -eq 0 ] || fail "info --json exited $status"
echo "$json" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
cpu, cuda = j["cpu"], j["cuda"]
assert cpu["cores"] >= 1 and cpu["threads"] >= 1, cpu
assert cpu["simd_target"] and cpu["simd_bits"] >= 64 and cpu["fp32_lanes"] >= cpu["fp64_lanes"] >= 1, cpu
assert cpu["clock_hz"] > 0 and cpu["clock_source"], cpu
assert cpu["iteration_limit_fp64"] > 0 and cpu["iteration_limit_fp32"] >= cpu["iteration_limit_fp64"], cpu
for key in ("cpu_reference", "cpu_fast_fp32", "cpu_fast_fp64"):
    assert cpu["limits"][key]["iterations_per_second"] > 0 and "per iteration" in cpu["limits"][key]["formula"], key
# A build without CUDA (MANDELSCOPE_ENABLE_CUDA=OFF, or no nvcc) has no runtime: it says so.
if cuda["built_with_cuda"]:
    assert cuda["runtime_version"] > 0 and cuda["runtime_version_text"], cuda
else:
    assert cuda["runtime_version"] == 0 and not cuda["usable"] and "built without CUDA" in cuda["reason"], cuda
assert cuda["instructions_per_iteration"]["fp32"] > 0 and cuda["instructions_per_iteration"]["source"], cuda
if cuda["usable"]:
    assert cuda["devices"], "usable CUDA without a device"
    for d in cuda["devices"]:
        assert d["name"] and d["sm_count"] > 0 and d["clock_khz"] > 0, d
        a = d["attributes"]
        assert len(a) > 100 and a["MULTIPROCESSOR_COUNT"] == d["sm_count"], "device attributes missing"
        assert d["limits"]["cuda_fp32"]["iterations_per_second"] > 0, d["limits"]
    assert len(j["speedup_estimates"]["fp32"]) == 3, j["speedup_estimates"]
    print("info --json: valid,", cpu["simd_target"], "/", len(cuda["devices"]), "CUDA device(s),", len(a), "attributes")
else:
    assert cuda["reason"] and len(cuda["reason"].split()) >= 3, "no CUDA and no reason in words: %r" % cuda["reason"]
    assert j["speedup_estimates"] is None, "estimates without a device"
    print("info --json: valid,", cpu["simd_target"], "/ no CUDA:", cuda["reason"])
' || fail "info --json is not the JSON expected"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all info checks passed"
