#!/usr/bin/env bash
# info_cli.sh: `mandelscope info` exits 0 and describes the CPU (model, cores, SIMD set, clock)
# and either the CUDA devices or, where none can be used (CI: no driver), the exact reason;
# `info --json` is valid JSON with the same facts.
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
if command -v python3 > /dev/null; then
    echo "$json" | python3 -c '
import json, sys
j = json.load(sys.stdin)
cpu, cuda = j["cpu"], j["cuda"]
assert cpu["cores"] >= 1 and cpu["threads"] >= 1, cpu
assert cpu["simd_target"], cpu
assert cpu["iteration_limit_fp64"] > 0 and cpu["iteration_limit_fp32"] >= cpu["iteration_limit_fp64"], cpu
assert cuda["usable"] == bool(cuda["devices"]) or not cuda["usable"], cuda
assert cuda["usable"] or cuda["reason"], "no CUDA and no reason"
print("info --json: valid,", cpu["simd_target"], "/", "CUDA usable" if cuda["usable"] else "no CUDA: " + cuda["reason"])
' || fail "info --json is not the JSON expected"
fi

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all info checks passed"
