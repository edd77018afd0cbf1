#!/usr/bin/env bash
# window_cnn_panel.sh: the CNN demo panel in the window, end to end.
# --panel=cnn --cnn-classify-all=cpu --screenshot opens the panel, loads Fashion-MNIST and the
# committed weights on the panel's worker, classifies the 10,000 test images on the CPU, and
# saves the window only once that has finished: the log must give the accuracy (>= 91.5%, the
# accuracy bar) and the screenshot must be a real picture of the panel (not one colour). A
# missing data set (--cnn-data elsewhere) and corrupt weights (a copy of the program with one
# byte of the weights changed) must each be reported, without a crash. Then the option checks:
# an unknown panel name and a bad backend are refused with a sentence (exit 2). Needs a display
# and the data set; skipped (77) without either.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
data=/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz
[ -f "$data" ] || { echo "SKIP: $data is missing (install the package dataset-fashion-mnist)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

timeout 600 "$bin" --backend=cpu --size=1600x1000 --panel=cnn --cnn-classify-all=cpu \
    --screenshot="$work/cnn.png" >"$work/cnn.log" 2>&1
rc=$?
cat "$work/cnn.log"
[ $rc -eq 0 ] || fail "the window exited with $rc"
line=$(grep -E '^cnn: accuracy [0-9.]+% on 10000 images \(cpu, ' "$work/cnn.log") \
    || fail "no 'cnn: accuracy ... on 10000 images (cpu, ...)' line: the screenshot did not wait for the classification"
accuracy=$(echo "$line" | sed -E 's/^cnn: accuracy ([0-9.]+)%.*/\1/')
awk -v a="$accuracy" 'BEGIN { exit !(a >= 91.5) }' || fail "accuracy $accuracy% < 91.5%"
# The log says which came first: the result, then the screenshot.
[ "$(grep -nE '^cnn: accuracy|^screenshot after' "$work/cnn.log" | head -1 | grep -c 'cnn: accuracy')" = 1 ] \
    || fail "the screenshot was taken before the classification finished"
[ -s "$work/cnn.png" ] || fail "no screenshot written"
if command -v identify >/dev/null; then
    identify "$work/cnn.png" | grep -q ' 1600x1000 ' || fail "wrong screenshot size: $(identify "$work/cnn.png")"
    colours=$(identify -format '%k' "$work/cnn.png")
    [ "$colours" -gt 100 ] || fail "the screenshot has only $colours colours: nothing drawn?"
fi

# No data set, and corrupt weights: the panel says why (the log too), no crash, the screenshot
# is still taken, and the start-up classification is dropped with the same reason.
out=$(timeout 300 "$bin" --backend=cpu --size=800x600 --cnn-data="$work/nowhere" --cnn-classify-all=cpu \
      --screenshot="$work/nodata.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] && [ -s "$work/nodata.png" ] || fail "without the data set the window must still work (rc $rc)"
echo "$out" | grep -q "cnn: the demo cannot run: .*nowhere/t10k-images-idx3-ubyte.gz.*dataset-fashion-mnist" \
    || fail "the missing data set must be named with its package"
echo "$out" | grep -q "cnn: cannot classify: " || fail "the start-up classification must say why it did not run"
mkdir "$work/copy"
cp -r "$(dirname "$bin")/$(basename "$bin")" "$(dirname "$bin")/assets" "$(dirname "$bin")/shaders" "$work/copy/"
weights="$work/copy/assets/cnn/fashion_mnist.msw"
printf '\x7f' | dd of="$weights" bs=1 seek=5000 conv=notrunc status=none
out=$(timeout 300 "$work/copy/$(basename "$bin")" --backend=cpu --size=800x600 --panel=cnn \
      --screenshot="$work/badweights.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] && [ -s "$work/badweights.png" ] || fail "with corrupt weights the window must still work (rc $rc)"
echo "$out" | grep -q "cnn: the demo cannot run: .*fashion_mnist.msw: checksum mismatch" \
    || fail "corrupt weights must be reported"

out=$("$bin" --panel=cnn,nonsense --screenshot="$work/x.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -q "not 'nonsense'" || fail "an unknown panel must be refused (rc $rc)"
out=$("$bin" --cnn-classify-all=tpu --screenshot="$work/x.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -q "cpu, cuda or cpu,cuda" || fail "an unknown backend must be refused (rc $rc)"
echo "PASS: accuracy $accuracy%"
