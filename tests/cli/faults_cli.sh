#!/usr/bin/env bash
# faults_cli.sh: injected faults (compute/system/fault_injection.h) reach a command-line user as
# one sentence with exit status 2 and leave no file behind: a full disk while writing the PNG,
# an asset (palette, CNN weights) that cannot be opened, and, where a GPU is present, a failed
# cudaMalloc and a failed kernel launch in `render --backend=cuda`. An unknown fault name is
# reported and ignored. (The window's side is tests/window/window_faults.sh.)
set -u
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
no_files() { [ -z "$(ls -A "$work/out")" ] || fail "$1 left files behind: $(ls -A "$work/out")"; }
mkdir -p "$work/out"

# expect_fault FAULT PATTERN CMD...: status 2, PATTERN in stderr, one line of it, nothing written.
expect_fault() {
    local fault=$1 pattern=$2; shift 2
    MANDELSCOPE_INJECT_FAULTS=$fault "$@" > "$work/stdout" 2> "$work/stderr"
    local rc=$?
    echo "[$fault] exit $rc: $(grep -v '%' "$work/stderr" | tail -n 1)"
    [ $rc -eq 2 ] || fail "$fault: exit status $rc, expected 2"
    grep -q "$pattern" "$work/stderr" || fail "$fault: stderr does not say '$pattern'"
    [ "$(grep -v '%' "$work/stderr" | grep -c .)" -eq 1 ] || fail "$fault: more than one sentence on stderr"
    no_files "$fault"
}

expect_fault png_write "No space left on device" "$bin" render --size=96x54 --iter=100 -o "$work/out/a.png"
expect_fault png_write "No space left on device" "$bin" render --size=96x54 --iter=100 -o "$work/out/b.png" \
    --raw="$work/out/b.npy"
expect_fault asset_open "cannot open palette file" "$bin" render --size=96x54 --palette=fire -o "$work/out/c.png"
if [ -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
    expect_fault asset_open "weights file" "$bin" cnn eval --backend=cpu --limit=10
fi

# The same commands without the fault succeed: the seam changes nothing by itself.
"$bin" render --size=96x54 --iter=100 --palette=fire -o "$work/ok.png" > /dev/null 2>&1 || fail "a plain render failed"
MANDELSCOPE_INJECT_FAULTS=no_such_fault "$bin" render --size=96x54 -o "$work/ok2.png" > /dev/null 2> "$work/stderr" \
    || fail "an unknown fault name must not stop the render"
grep -q "unknown fault 'no_such_fault' ignored" "$work/stderr" || fail "an unknown fault name is not reported"

if "$bin" info 2>/dev/null | grep -q "^  device 0 "; then
    expect_fault cuda_malloc "out of memory\|cudaErrorMemoryAllocation" "$bin" render --backend=cuda --size=96x54 \
        -o "$work/out/d.png"
    expect_fault kernel_launch "cudaErrorLaunchOutOfResources" "$bin" render --backend=cuda --size=96x54 \
        -o "$work/out/e.png"
else
    echo "no CUDA device here: the cuda_malloc and kernel_launch cases run on the GPU machine"
fi
echo "ok: every injected fault gave one sentence, status 2 and no file"
