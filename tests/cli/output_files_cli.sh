#!/usr/bin/env bash
# output_files_cli.sh: every mode's output files, end to end. Verifies that:
#   - a device, a FIFO or a directory at any output path (render -o and --raw, --export,
#     --screenshot, vecadd --csv, bench --json, cnn train --out, cnn eval --json) is refused with
#     one sentence and exit 2, and is still what it was afterwards;
#   - an output that cannot be created or has the wrong extension (/proc/a.png,
#     /nonexistent/e.png, picture.jpg) exits 2 before any work: the window is not opened, the
#     network not trained;
#   - a symbolic link at the output path is written through: the link stays, its target is the PNG;
#   - SIGINT and SIGTERM during a long render remove the temporary files and exit 130 and 143;
#   - a disk that fills up while `cnn train` saves leaves neither w.msw nor w.msw.tmp.
# Usage: bash output_files_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: output_files_cli.sh /path/to/mandelscope}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_refused WORDS COMMAND...: exit 2 within 60 s, one line on stderr containing WORDS, and
# no file left in the working directory other than what was there.
expect_refused() {
    local words=$1 status lines before after
    shift
    before=$(ls -A | sort | tr '\n' ' ')
    DISPLAY= timeout 60 "$@" > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort | tr '\n' ' ')
    before=$(echo "$before" | tr ' ' '\n' | grep -v -e '^out.txt$' -e '^err.txt$' -e '^$' | sort | tr '\n' ' ')
    [ "$status" -eq 2 ] || fail "$* exited $status, not 2 (stderr: $(cat err.txt))"
    [ "$lines" -eq 1 ] || fail "$* printed $lines lines on stderr, not 1: $(cat err.txt)"
    grep -q -- "$words" err.txt || fail "$* did not say '$words': $(cat err.txt)"
    [ "$before" = "$after" ] || fail "$* changed the directory: before '$before', after '$after'"
    echo "ok   ${*#$bin }  ->  $(cat err.txt)"
}

# --- devices, FIFOs, directories: refused, and left as they were -------------------------------
mkfifo fifo.png fifo.npy fifo.csv fifo.json fifo.msw
mkdir folder.png
for device in /dev/full /dev/null; do
    [ -c "$device" ] || continue
    expect_refused "a device" "$bin" render --size=32x18 -o "$device"
    ln -s "$device" device-link.png
    expect_refused "a link to '$device'" "$bin" render --size=32x18 -o device-link.png
    rm device-link.png
    expect_refused "a device" "$bin" render --size=32x18 -o new.png --raw="$device"
    expect_refused "a device" "$bin" --size=32x18 --export="$device"
    expect_refused "a device" "$bin" --size=32x18 --screenshot="$device"
    expect_refused "a device" "$bin" vecadd --sizes=400 --csv="$device"
    expect_refused "a device" "$bin" bench --quick --json="$device"
    expect_refused "a device" "$bin" cnn train --out="$device"
    expect_refused "a device" "$bin" cnn eval --json="$device"
    [ -c "$device" ] || fail "$device is no longer a character device"
done
expect_refused "FIFO" "$bin" render --size=32x18 -o fifo.png
expect_refused "FIFO" "$bin" render --size=32x18 -o new.png --raw=fifo.npy
expect_refused "FIFO" "$bin" --size=32x18 --export=fifo.png
expect_refused "FIFO" "$bin" vecadd --sizes=400 --csv=fifo.csv
expect_refused "FIFO" "$bin" cnn eval --json=fifo.json
expect_refused "FIFO" "$bin" cnn train --out=fifo.msw
expect_refused "is a directory" "$bin" render --size=32x18 -o folder.png
expect_refused "is a directory" "$bin" --size=32x18 --export=folder.png
for f in fifo.png fifo.npy fifo.csv fifo.json fifo.msw; do [ -p "$f" ] || fail "$f is no longer a FIFO"; done
[ -d folder.png ] || fail "folder.png is no longer a directory"

# --- unwritable or misnamed: refused before the work ----------------------------------------------
expect_refused "/proc" "$bin" render --size=32x18 -o /proc/a.png
expect_refused "does not exist" "$bin" --size=32x18 --export=/nonexistent/e.png
# Without a display the window could not even open: the path must be checked first.
expect_refused "does not exist" "$bin" --screenshot=/nonexistent/s.png
expect_refused "must end in .png" "$bin" render --size=32x18 -o picture.jpg
expect_refused "must end in .png" "$bin" --size=32x18 --export=picture.jpg
expect_refused "must end in .npy" "$bin" render --size=32x18 -o new.png --raw=raw.txt
expect_refused "does not exist" "$bin" cnn train --out=/nonexistent/w.msw
expect_refused "does not exist" "$bin" cnn eval --json=/nonexistent/e.json
expect_refused "does not exist" "$bin" cnn eval --dump-logits=/nonexistent/l.txt

# --- symbolic links are written through -------------------------------------------------------
mkdir pictures
printf 'old' > pictures/real.png
ln -s pictures/real.png link.png
"$bin" render --size=32x18 -o link.png > out.txt 2> err.txt || fail "render through a link failed: $(cat err.txt)"
[ -L link.png ] || fail "the link link.png was replaced by a file"
[ "$(head -c 4 pictures/real.png | tail -c 3)" = "PNG" ] || fail "the link's target did not get the PNG"
[ "$(ls -A pictures)" = "real.png" ] || fail "files left beside the target: $(ls -A pictures)"
echo "ok   render -o link.png wrote pictures/real.png and kept the link"
ln -s pictures/exported.png export-link.png
"$bin" --size=32x18 --export=export-link.png > out.txt 2> err.txt || fail "export through a link failed: $(cat err.txt)"
[ -L export-link.png ] && [ -f pictures/exported.png ] || fail "--export did not write through the link"
rm -rf pictures link.png export-link.png

# --- signals remove the temporary files ----------------------------------------------------------
# Job control: a background job gets its own process group and keeps SIGINT (a script's plain
# `&` would start it with SIGINT ignored).
set -m
# A shell that was started with SIGINT or SIGTERM ignored (some job runners do) passes that on,
# and mandelscope rightly keeps an ignored signal ignored: then there is nothing to test here.
ignored=$(awk '/^SigIgn:/ {print $2}' /proc/self/status)
signals=()
for signal in INT TERM; do
    bit=$([ "$signal" = INT ] && echo 2 || echo 15)
    if (( (16#$ignored >> (bit - 1)) & 1 )); then
        echo "skip SIG$signal during render: this shell was started with SIG$signal ignored"
    else
        signals+=("$signal")
    fi
done
# --no-shortcuts: every interior pixel iterates, so the render runs for seconds even on an idle
# machine and the signal arrives while it writes.
for signal in "${signals[@]}"; do
    "$bin" render --size=3000x3000 --iter=50000 --no-shortcuts --backend=cpu --band-rows=8 -o big.png --raw=big.npy > out.txt 2> err.txt &
    pid=$!
    for _ in $(seq 100); do ls -A | grep -q '^\.big\.png\.tmp-' && break; sleep 0.1; done
    ls -A | grep -q '^\.big\.png\.tmp-' || fail "no temporary file appeared while rendering"
    sleep 0.3
    kill -s "$signal" "$pid"
    wait "$pid"
    status=$?
    expected=$([ "$signal" = INT ] && echo 130 || echo 143)
    [ "$status" -eq "$expected" ] || fail "SIG$signal: render exited $status, not $expected"
    left=$(ls -A | grep -e '\.tmp-' -e '^big\.' | tr '\n' ' ')
    [ -z "$left" ] || fail "SIG$signal left files behind: $left"
    grep -q "removed" err.txt || fail "SIG$signal: no word on stderr: $(cat err.txt)"
    echo "ok   SIG$signal during render: exit $status, temporary files removed"
done
set +m

# --- a full disk while saving the weights --------------------------------------------------------
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || [ -n "${MANDELSCOPE_FASHION_MNIST:-}" ]; then
    # ulimit -f makes the write fail as a full disk would (EFBIG); SIGXFSZ ignored, as ENOSPC sends none.
    ( ulimit -f 64; trap '' XFSZ; exec "$bin" cnn train --limit=64 --epochs=1 --out=w.msw ) > out.txt 2> err.txt
    status=$?
    [ "$status" -ne 0 ] || fail "cnn train reported success on a full disk"
    left=$(ls -A | grep -e 'w\.msw' | tr '\n' ' ')
    [ -z "$left" ] || fail "a full disk left $left behind"
    grep -q "w.msw" err.txt || fail "cnn train on a full disk did not name the file: $(cat err.txt)"
    echo "ok   cnn train on a full disk: exit $status, $(tail -n 1 err.txt)"
else
    echo "skip the full-disk cnn train check: no Fashion-MNIST (dataset-fashion-mnist)"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all output-file checks passed"
