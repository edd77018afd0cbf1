#!/usr/bin/env bash
# cnn_cli.sh: `mandelscope cnn` from the outside. Bad input (unknown subcommand, out-of-range
# options, missing or corrupt weights, a data folder without the files) must give exit status 2
# and exactly one line on stderr; a short train and eval on the CPU must work end to end and
# the cuda rows must say why when no GPU is usable.
# Usage: bash tests/cli/cnn_cli.sh /path/to/mandelscope   (exit 77 = skipped)
set -u
bin=${1:?usage: cnn_cli.sh /path/to/mandelscope}
data=${MANDELSCOPE_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_bad_input "what" "text the message must contain" args...
expect_bad_input() {
    local what=$1 needle=$2
    shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ]; then
        fail "$what: exit status $rc, expected 2 ($(head -c 300 "$tmp/err"))"
    elif [ "$lines" -ne 1 ]; then
        fail "$what: $lines lines on stderr, expected one sentence"
    elif ! grep -qi -- "$needle" "$tmp/err"; then
        fail "$what: message lacks '$needle': $(cat "$tmp/err")"
    else
        echo "ok: $what -> $(cat "$tmp/err")"
    fi
}

expect_bad_input "no subcommand" "subcommand" cnn
expect_bad_input "unknown subcommand" "bogus" cnn bogus
expect_bad_input "zero epochs" "epochs" cnn train --epochs=0
expect_bad_input "unknown training backend" "backend" cnn train --backend=tpu
expect_bad_input "batch 0" "batch" cnn eval --batch=0
expect_bad_input "unknown eval backend" "backend" cnn eval --backend=quantum
expect_bad_input "bad conv tiling" "conv-tiling" cnn eval --conv-tiling=four
expect_bad_input "missing weights file" "not found" cnn eval --weights="$tmp/none.msw"
printf 'MSCNNWT\0garbage' >"$tmp/garbage.msw"
expect_bad_input "corrupt weights file" "garbage.msw" cnn eval --weights="$tmp/garbage.msw"
printf 'not a weights file at all' >"$tmp/text.msw"
expect_bad_input "not a weights file" "bad magic" cnn eval --weights="$tmp/text.msw"
mkdir -p "$tmp/empty"
expect_bad_input "data folder without the files" "dataset-fashion-mnist" cnn eval --data="$tmp/empty"
expect_bad_input "training data missing" "dataset-fashion-mnist" cnn train --data="$tmp/empty"

if [ ! -f "$data/t10k-images-idx3-ubyte.gz" ]; then
    echo "skipping the end-to-end part: no Fashion-MNIST in $data (package dataset-fashion-mnist)"
    [ "$failures" -eq 0 ] && exit 77
    exit 1
fi

# A checksum failure: the real weights with one byte changed.
if "$bin" cnn train --epochs=1 --limit=256 --data="$data" --out="$tmp/small.msw" >"$tmp/train.out" 2>"$tmp/train.err"; then
    grep -q "Wrote" "$tmp/train.out" || fail "train: no 'Wrote' line: $(cat "$tmp/train.out")"
    cp "$tmp/small.msw" "$tmp/flipped.msw"
    printf '\x42' | dd of="$tmp/flipped.msw" bs=1 seek=2000 conv=notrunc 2>/dev/null
    expect_bad_input "checksum failure" "checksum" cnn eval --weights="$tmp/flipped.msw" --data="$data"
    if "$bin" cnn eval --backend=cpu --limit=300 --batch=100 --weights="$tmp/small.msw" \
        --data="$data" --dump-logits="$tmp/logits.txt" --dump-count=5 --json="$tmp/eval.json" \
        >"$tmp/eval.out" 2>"$tmp/eval.err"; then
        grep -q "accuracy" "$tmp/eval.out" || fail "eval: no accuracy line"
        grep -q "Confusion matrix" "$tmp/eval.out" || fail "eval: no confusion matrix"
        grep -q "Ankle boot" "$tmp/eval.out" || fail "eval: the class names are missing"
        [ "$(grep -vc '^#' "$tmp/logits.txt")" -eq 5 ] || fail "eval: logits dump has the wrong length"
        grep -q '"images_per_second"' "$tmp/eval.json" || fail "eval: JSON lacks images_per_second"
        echo "ok: train 1 epoch on 256 images, eval 300 on the CPU"
    else
        fail "eval on the CPU: exit status $? ($(cat "$tmp/eval.err"))"
    fi
else
    fail "train --epochs=1 --limit=256: $(cat "$tmp/train.err")"
fi

# The cuda rows: either they run or they say why.
"$bin" cnn eval --backend=all --limit=200 --batch=100 --data="$data" >"$tmp/all.out" 2>"$tmp/all.err"
rc=$?
if grep -q "^cuda: not run: " "$tmp/all.out"; then
    [ "$rc" -eq 0 ] || fail "eval --backend=all without a GPU: exit status $rc"
    echo "ok: $(grep '^cuda: not run' "$tmp/all.out")"
elif grep -q "^cuda (" "$tmp/all.out"; then
    [ "$rc" -eq 0 ] || fail "eval --backend=all: exit status $rc"
    echo "ok: cuda ran: $(grep '^cuda (' "$tmp/all.out")"
else
    fail "eval --backend=all: no cuda row: $(cat "$tmp/all.out" "$tmp/all.err")"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all cnn command-line checks passed"
