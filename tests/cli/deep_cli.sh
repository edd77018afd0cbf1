#!/usr/bin/env bash
# deep_cli.sh: `mandelscope render` past the direct kernels, end to end.
#   - the path follows the depth: perturbation with double deltas at 1e50, FloatExp at 4e533;
#     the summary names the path, the reference (bits, digits, iterations, ms), BLA's share and
#     the work per pixel (iterations, perturbation steps, BLA skips, rebases);
#   - --location reads a Kalles Fraktaler .kfr, --save-location writes one that renders the
#     same PNG again, --print-view and the PNG's metadata carry the zoom as exact text, and
#     rendering again from the PNG's stored view gives the same file;
#   - every bad input (malformed .kfr, zoom "1e", "1e99999999999" or
#     negative, a 100,000-digit centre, iterations 0 or past the limit, ...) exits 2 with one
#     line on stderr and no file;
#   - every formula family (Multibrot, Tricorn, Burning Ship, a Julia set) renders at 1e50 on
#     the deep path, and one past 1e308 with FloatExp deltas; the summary names the formula and
#     its PNG's metadata carries it;
#   - Ctrl-C during a deep render leaves no file;
#   - where CUDA is usable, deep_cuda renders the same smooth values as deep_cpu.
# The pictures themselves are checked against the MPFR brute force in
# tests/fractal/view/test_view_deep.cpp (the same View, the same deep_cpu).
# Usage: bash deep_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin deep_cli.sh "$@"
locations=$(dirname "$bin")/assets/locations

# --- 1e50: double deltas, location in and out, metadata round trip ----------------------------
"$bin" render --location="$locations/e50.kfr" --iter=20000 --size=48x27 --backend=cpu -o a.png \
    --save-location=a.kfr --print-view > a.out 2> a.err || fail "1e50 render failed: $(cat a.err)"
cat a.out
grep -q '^precision  deep-double' a.out || fail "1e50 did not run on perturbation with double deltas"
grep -Eq '^reference  [0-9]+ bits \([0-9]+ digits\), [0-9]+ iterations' a.out || fail "no reference line"
# The orbit computes beside the backend's start (cmd_render_deep.cpp); the summary gives its
# time as the frame's own, never as a cached orbit's.
grep -Eq '^reference  .*, [0-9.]+ ms$' a.out || fail "the reference line gives no time of its own: $(grep '^reference' a.out)"
grep -Eq '^BLA .*% of the iterations skipped' a.out || fail "no BLA line"
grep -Eq '^work       per pixel: [0-9]+ iterations, [0-9]+ perturbation steps, [0-9]+ BLA skips, [0-9.]+ rebases' a.out ||
    fail "no work line (per pixel: iterations, steps, skips, rebases)"
re=$(sed -n 's/^Re: //p' "$locations/e50.kfr" | tr -d '\r')
im=$(sed -n 's/^Im: //p' "$locations/e50.kfr" | tr -d '\r')
grep -qxF "view: center=$re,$im zoom=1e+50 iterations=20000 size=48x27" a.out \
    || fail "--print-view does not carry the full view"
for key in Re Im Zoom Iterations; do grep -q "^$key: " a.kfr || fail "a.kfr has no $key"; done
grep -q '^Iterations: 20000' a.kfr || fail "a.kfr does not carry the iterations rendered"
"$bin" render --location=a.kfr --size=48x27 --backend=cpu -o b.png > /dev/null 2> b.err || fail "render of the saved .kfr failed: $(cat b.err)"
cmp -s a.png b.png || fail "the saved location does not render the same PNG"

if command -v python3 > /dev/null; then
    args=$(python3 - "$(png_view a.png)" 2> precision.txt <<'PY'
import json, sys
view = json.loads(sys.argv[1])
v = view
assert isinstance(v["zoom"], str), "the zoom is not text"
print(f"--center={v['center_re']},{v['center_im']} --zoom={v['zoom']} --size={v['width']}x{v['height']} "
      f"--iter={v['iterations']} --palette={v['palette']} --offset={v['offset']!r} --density={v['density']!r}")
print(v["precision"], file=sys.stderr)
PY
) || fail "could not read the view back from a.png"
    [ "$(cat precision.txt)" = "deep-double" ] || fail "the metadata's precision is $(cat precision.txt), not deep-double"
    # shellcheck disable=SC2086
    "$bin" render $args --backend=cpu -o c.png > /dev/null 2> c.err || fail "re-render failed: $(cat c.err)"
    cmp -s a.png c.png || fail "re-rendering the PNG's stored view gave a different PNG"
else
    echo "python3 not found: skipping the metadata round trip here (test_view_record covers it)"
fi

# --- 4e533: FloatExp deltas; the zoom prints as KF writes it ----------------------------------
"$bin" render --location="$locations/e533.kfr" --iter=3000 --size=32x18 --backend=cpu -o d.png --print-view \
    > d.out 2> d.err || fail "4e533 render failed: $(cat d.err)"
grep -q '^precision  deep-floatexp' d.out || fail "4e533 did not run with FloatExp deltas: $(cat d.out)"
grep -q ' zoom=4.00000000000E533 iterations=3000 size=32x18$' d.out || fail "4e533's zoom text did not round-trip"
grep -aq '"zoom":"4.00000000000E533"' d.png || fail "the PNG's metadata does not carry the zoom as text"
# --precision forces a path.
"$bin" render --location="$locations/e50.kfr" --iter=2000 --size=16x9 --backend=cpu --precision=deep-floatexp \
    -o e.png > e.out 2> e.err || fail "forced deep-floatexp failed: $(cat e.err)"
grep -q '^precision  deep-floatexp' e.out || fail "--precision=deep-floatexp did not run FloatExp"

# --- CUDA, where a device is usable: the same picture as the CPU's --------------------------
# deep_cuda's escape counts equal deep_cpu's bit for bit; the smooth values may differ in their
# last bits (the device's log), so the .npy values must agree to 1e-6 and the PNGs nearly.
"$bin" render --location="$locations/e50.kfr" --iter=20000 --size=48x27 --backend=cpu -o cpu.png --raw=cpu.npy \
    > /dev/null 2>&1 || fail "CPU render with --raw failed"
"$bin" render --location="$locations/e50.kfr" --iter=20000 --size=48x27 --backend=cuda -o gpu.png --raw=gpu.npy \
    > gpu.out 2> gpu.err
status=$?
if [ "$status" -eq 2 ] && grep -q "CUDA backend cannot be used" gpu.err; then
    echo "skipped the CUDA comparison: $(cat gpu.err)"
elif [ "$status" -ne 0 ]; then
    fail "CUDA deep render exited $status: $(cat gpu.err)"
elif command -v python3 > /dev/null; then
    grep -q '^precision  deep-double' gpu.out || fail "the CUDA render did not take the deep path"
    python3 - cpu.npy gpu.npy <<'PY' || fail "CUDA and CPU deep renders differ"
import struct, sys
def load(path):
    data = open(path, "rb").read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return struct.unpack("<%df" % (len(body) // 4), body)
a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b) == 48 * 27
bad = [i for i in range(len(a)) if abs(a[i] - b[i]) > 1e-6 * max(1.0, abs(a[i]))]
print("CUDA vs CPU: %d of %d smooth values differ by more than 1e-6" % (len(bad), len(a)))
sys.exit(1 if bad else 0)
PY
fi

# --- the formula family at depth (the pictures: tests/fractal/deep/test_deep_family.cpp) -----------
family_case() {  # name expected-precision args...
    local name=$1 precision=$2
    shift 2
    "$bin" render "$@" --size=32x18 --iter=1500 --backend=cpu -o "f_$name.png" > "f_$name.out" 2> "f_$name.err" \
        || { fail "$name at depth failed: $(cat "f_$name.err")"; return; }
    grep -q "^precision  $precision" "f_$name.out" || fail "$name did not run on $precision: $(grep precision "f_$name.out")"
    grep -q "^formula    " "f_$name.out" || fail "$name: the summary names no formula"
    [ -s "f_$name.png" ] || fail "$name wrote no PNG"
}
family_case multibrot3 deep-double --formula=multibrot3 \
    --center=-0.2047337439866216551717902908876828860004859745417688,1.1284684527329761952588302908876828860004859745417688 \
    --zoom=1e50
family_case multibrot8 deep-double --formula=multibrot8 --center=-0.8,0.3 --zoom=1e30
family_case tricorn deep-double --formula=tricorn --center=-2.0000000000000000000000000000000000000000000000001,0 --zoom=1e50
family_case burning-ship deep-floatexp --formula=burning-ship --center=-2,0 --zoom=1e320
family_case julia deep-double --julia=-0.123,0.745 --center=0.37,0.21 --zoom=1e50
grep -q '^formula    tricorn' f_tricorn.out || fail "the tricorn summary does not say tricorn"
grep -q '^formula    mandelbrot, Julia set of c = -0.123, 0.745' f_julia.out || fail "the Julia summary does not name c"
grep -q '^BLA  .*(2x2 matrices)' f_tricorn.out || fail "the Tricorn summary does not say its BLA is 2x2 matrices"
grep -q 'tricorn' f_tricorn.png || fail "the tricorn PNG's metadata does not name the formula"

# --- bad input (expect_bad, cli_lib.sh): exit 2, one line, no file ----------------------------
printf 'Re: -0.75\r\nIm: abc\r\nZoom: 1E50\r\nIterations: 100\r\n' > malformed.kfr
printf 'Re: -0.75\nIm: 0\nZoom: 1e\nIterations: 100\n' > bad-zoom.kfr
printf 'Re: -0.75\nIm: 0\nZoom: 1E50\nIterations: 100\nFractalType: 2\n' > buffalo.kfr
printf 'not a location file\n' > garbage.kfr
expect_bad --location=malformed.kfr -o new.png
expect_bad --location=bad-zoom.kfr -o new.png
expect_bad --location=buffalo.kfr -o new.png  # KF's Buffalo: a formula Mandelscope lacks
expect_bad --location=garbage.kfr -o new.png
expect_bad --location=no-such-file.kfr -o new.png
expect_bad --location="$locations/e50.kfr" --zoom=1e40 -o new.png
expect_bad --zoom=1e -o new.png
expect_bad --zoom=1e99999999999 -o new.png
expect_bad --zoom=-4E533 -o new.png
expect_bad --zoom=1E60001 -o new.png
huge=$(printf '1%.0s' $(seq 100000))
expect_bad --center="0.$huge,0" --zoom=1e50 -o new.png
expect_bad --iter=0 --zoom=1e50 -o new.png
expect_bad --iter=100000000001 --zoom=1e50 -o new.png
expect_bad --precision=fp64 --zoom=1e400 -o new.png
expect_bad --precision=fp32 --iter=2000000000 -o new.png
expect_bad --zoom=1e50 -o new.png --save-location="$work/no-such-dir/new.kfr"
expect_bad --zoom=1e50 -o new.png --save-location="$work"

# --- Ctrl-C during a deep render: no file -----------------------------------------------------
# (SIGINT from timeout: a background job of a script would have SIGINT ignored.)
# A shell started with SIGINT ignored (some job runners do) passes that on, and mandelscope keeps
# an ignored signal ignored: then there is nothing to test.
if (( (16#$(awk '/^SigIgn:/ {print $2}' /proc/self/status) >> 1) & 1 )); then
    echo "skip Ctrl-C during a deep render: this shell was started with SIGINT ignored"
else
    # A Julia set of a c inside the Mandelbrot set at 1e10000: its critical orbit never escapes and
    # a Julia set's orbits run in full (no stop at a period), 2,000,000 iterations at 33,280 bits:
    # minutes, so 3 s never finish it. (A parameter-plane view would not do: e1086 at 256x256
    # finishes in seconds, and e10000's orbit stops at its period, 44,899.)
    timeout -s INT 3 "$bin" render --julia=-0.1,0.1 --center=0.1,0.1 --zoom=1e10000 --iter=1000000 --size=64x64 \
        --backend=cpu -o int.png --raw=int.npy > /dev/null 2>&1
    status=$?
    [ "$status" -ne 0 ] || fail "the interrupted render exited 0 (it finished within 3 s?)"
    [ -z "$(ls -A | grep -e '^int' -e '\.tmp')" ] || fail "Ctrl-C left files: $(ls -A | grep -e '^int' -e '\.tmp')"
fi

cli_end "all deep render checks passed"
