#!/usr/bin/env bash
# render_cli.sh: `mandelscope render` end to end.
#   - every bad input (unknown option, malformed number, size 0 or beyond memory, iterations 0,
#     unknown palette, unwritable output path, ...) exits 2 with exactly one line on stderr,
#     creates no file and leaves an existing output untouched;
#   - a good render writes a PNG whose metadata reopens: rendering again from the view stored
#     in the PNG gives the same file; banded rendering gives the same pixels and values.
# Usage: bash render_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: render_cli.sh /path/to/mandelscope}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- bad input -------------------------------------------------------------------------------
printf 'precious' > keep.png
expect_bad() {  # args...: must exit 2, print one line on stderr, leave the directory as it was
    local before after status lines
    before=$(ls -A | sort | tr '\n' ' ')
    "$bin" render "$@" > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort | tr '\n' ' ')
    before=$(echo "$before" | tr ' ' '\n' | grep -v -e '^out.txt$' -e '^err.txt$' -e '^$' | sort | tr '\n' ' ')
    [ "$status" -eq 2 ] || fail "render $* exited $status, not 2 (stderr: $(cat err.txt))"
    [ "$lines" -eq 1 ] || fail "render $* printed $lines lines on stderr, not 1: $(cat err.txt)"
    [ "$before" = "$after" ] || fail "render $* changed the directory: before '$before', after '$after'"
    [ "$(cat keep.png)" = "precious" ] || fail "render $* clobbered keep.png"
    echo "ok   render $*  ->  $(cat err.txt)"
}
expect_bad --bogus-option -o new.png
expect_bad --zoom=abc -o new.png
expect_bad --iter=12x -o new.png
expect_bad --size=0x100 -o new.png
expect_bad --size=640x0 -o new.png
expect_bad --size=axb -o new.png
expect_bad --size=99999999999x10 -o new.png
# One row of samples alone needs 64 GiB (assumes the test machine has less available).
expect_bad --size=536870911x1000 --supersample=4 -o new.png
expect_bad --iter=0 -o new.png
expect_bad --iter=-5 -o new.png
expect_bad --palette=no-such-palette -o new.png
expect_bad --center=1 -o new.png
expect_bad --center=1,2,3 -o new.png
expect_bad --center=0.5,abc -o new.png
expect_bad --zoom=0 -o new.png
expect_bad --zoom=-2 -o new.png
expect_bad --supersample=5 -o new.png
expect_bad --backend=gpu -o new.png
expect_bad --precision=fp16 -o new.png
expect_bad -o "$work/no-such-dir/new.png"
expect_bad -o "$work"
expect_bad --size=64x48 -o keep.png --raw=keep.png
expect_bad --size=64x48 -o new.png --raw="$work/no-such-dir/raw.npy"
expect_bad --size=64x48 --iter=0 -o keep.png
expect_bad
if [ "$(id -u)" -ne 0 ]; then  # root may write anywhere
    mkdir ro && chmod a-w ro
    expect_bad --size=64x48 -o ro/new.png
    chmod u+w ro && rmdir ro
fi
# The GPU's PNG encoder only where the frame is coloured on the GPU, and no other encoder name.
expect_bad --size=64x48 --backend=cpu --png-encoder=cuda -o new.png
expect_bad --size=64x48 --png-encoder=cuda --supersample=2 -o new.png
expect_bad --size=64x48 --png-encoder=fast -o new.png
# CUDA asked for where none can be used: the same kind of sentence, exit 2.
if ! "$bin" info | grep -q "^  device 0"; then
    expect_bad --size=64x48 --backend=cuda -o new.png
fi

# --- good renders ----------------------------------------------------------------------------
"$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
    --offset=0.25 --density=2 --supersample=2 --backend=cpu -o a.png --raw=a.npy > a.txt 2> a.err
status=$?
[ "$status" -eq 0 ] || fail "good render exited $status: $(cat a.err)"
[ -s a.png ] || fail "good render wrote no PNG"
[ -s a.npy ] || fail "good render wrote no .npy"
grep -q "^backend" a.txt && grep -q "iterations/s" a.txt && grep -q "a.png" a.txt || fail "no summary: $(cat a.txt)"
leftovers=$(ls -A | grep -c '\.tmp-' || true)
[ "$leftovers" -eq 0 ] || fail "temporary files left behind"
# .npy: header says (180, 320) float32: the supersampled grid.
head -c 128 a.npy | grep -a -q "'descr': '<f4', 'fortran_order': False, 'shape': (180, 320)" || fail "bad .npy header"
expected_size=$((128 + 180 * 320 * 4))
[ "$(stat -c %s a.npy)" -eq "$expected_size" ] || fail ".npy is $(stat -c %s a.npy) bytes, expected $expected_size"

# Reopen: the view stored in the PNG renders the same PNG again.
if command -v python3 > /dev/null; then
    args=$(python3 - a.png <<'PY'
import json, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, view = 8, None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
    assert zlib.crc32(kind + body) & 0xffffffff == crc, "bad CRC in " + kind.decode()
    if kind == b"tEXt" and body.split(b"\0", 1)[0] == b"mandelscope-view":
        view = json.loads(body.split(b"\0", 1)[1])
    pos += 12 + length
v = view
print(f"--center={v['center_re']},{v['center_im']} --zoom={v['zoom']} --size={v['width']}x{v['height']} "
      f"--iter={v['iterations']} --palette={v['palette']} --offset={v['offset']!r} --density={v['density']!r} "
      f"--precision={v['precision']} --supersample={v['supersample']}")
PY
) || fail "could not read the view back from a.png"
    echo "view read back: $args"
    case "$args" in *"--center=-0.7436447860,0.1318252536 "*) ;; *) fail "centre text not kept verbatim: $args" ;; esac
    # shellcheck disable=SC2086
    "$bin" render $args --backend=cpu -o b.png > /dev/null 2> b.err || fail "re-render failed: $(cat b.err)"
    cmp -s a.png b.png || fail "re-rendering the stored view gave a different PNG"
else
    echo "python3 not found: skipping the metadata round trip here (tests/test_image_io covers it)"
fi

# Banded rendering and the streaming PNG writer: same values, same pixels.
"$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
    --offset=0.25 --density=2 --supersample=2 --backend=cpu -o c.png --raw=c.npy --band-rows=7 > /dev/null 2> c.err \
    || fail "banded render failed: $(cat c.err)"
cmp -s a.npy c.npy || fail "banded rendering changed the smooth values"
if command -v compare > /dev/null; then
    diff_pixels=$(compare -metric AE a.png c.png null: 2>&1)
    [ "$diff_pixels" = "0" ] || fail "banded PNG differs from the whole-image PNG in $diff_pixels pixels"
fi

# Without supersampling the colours go straight into the written rows (no copy): banded and
# whole-image renders still agree pixel for pixel.
"$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
    --backend=cpu -o d.png > /dev/null 2> d.err || fail "render without supersampling failed: $(cat d.err)"
"$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
    --backend=cpu -o e.png --band-rows=7 > /dev/null 2> e.err || fail "banded render without supersampling failed: $(cat e.err)"
if command -v compare > /dev/null; then
    diff_pixels=$(compare -metric AE d.png e.png null: 2>&1)
    [ "$diff_pixels" = "0" ] || fail "banded PNG (no supersampling) differs from the whole-image PNG in $diff_pixels pixels"
fi

# On CUDA the banded writer computes band k+1 on a helper thread while band k is encoded
# (cmd_render.cpp, two band buffers alternating): still the whole-image render's pixels.
if "$bin" render --size=32x18 --iter=50 --backend=cuda -o probe.png > /dev/null 2>&1; then
    "$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
        --backend=cuda -o f.png > f.txt 2> f.err || fail "CUDA render failed: $(cat f.err)"
    grep -q "^png  *GPU encoder" f.txt || fail "the CUDA render did not deflate on the GPU: $(grep '^png' f.txt)"
    # The GPU's encoder (compute/io/png_encode_cuda.h) and the CPU's give the same pixels.
    "$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
        --backend=cuda --png-encoder=cpu -o h.png > h.txt 2> h.err || fail "CUDA render, CPU encoder failed: $(cat h.err)"
    grep -q "^png  *CPU encoder" h.txt || fail "--png-encoder=cpu did not deflate on the CPU: $(grep '^png' h.txt)"
    if command -v compare > /dev/null; then
        diff_pixels=$(compare -metric AE f.png h.png null: 2>&1)
        [ "$diff_pixels" = "0" ] || fail "the GPU-encoded PNG differs from the CPU-encoded one in $diff_pixels pixels"
    fi
    "$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=160x90 --iter=700 --palette=fire \
        --backend=cuda -o g.png --band-rows=7 > /dev/null 2> g.err || fail "banded CUDA render failed: $(cat g.err)"
    if command -v compare > /dev/null; then
        diff_pixels=$(compare -metric AE f.png g.png null: 2>&1)
        [ "$diff_pixels" = "0" ] || fail "banded CUDA PNG differs from the whole-image one in $diff_pixels pixels"
    fi
else
    echo "no usable CUDA here: the banded CUDA render is compared on the GPU machine"
fi

# Overwriting an existing output on success is allowed (atomically).
"$bin" render --size=32x18 --iter=50 -o keep.png > /dev/null 2>&1 || fail "render over an existing file failed"
[ "$(head -c 4 keep.png | tail -c 3)" = "PNG" ] || fail "keep.png was not replaced by a PNG"

# FP64 forced deeper than it resolves: a warning on stderr, and still a picture. (Auto takes the
# deep path there: tests/cli/deep_cli.sh.)
"$bin" render --center=-0.75,0.1 --zoom=1e16 --size=32x18 --iter=100 --precision=fp64 -o deep.png > /dev/null 2> deep.err
status=$?
[ "$status" -eq 0 ] || fail "deep render exited $status"
grep -q "FP64" deep.err || fail "no FP64 warning for a zoom of 1e16: $(cat deep.err)"
[ -s deep.png ] || fail "deep render wrote no PNG"

# The file-size bound: the default view at 4K (1000 iterations) is no larger than the 2,087,866
# bytes that stb_image_write writes for it.
"$bin" render --size=3840x2160 --iter=1000 --backend=cpu -o big.png > big.out 2> big.err \
    || fail "4K render failed: $(cat big.err)"
size=$(stat -c %s big.png 2> /dev/null || echo 0)
[ "$size" -gt 0 ] && [ "$size" -le 2087866 ] || fail "the default 4K view is $size bytes, above 2,087,866"
echo "ok   default view at 4K: $size bytes; $(grep '^time' big.out)"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all render checks passed"
