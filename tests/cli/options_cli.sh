#!/usr/bin/env bash
# options_cli.sh: inputs that a lax parser takes in one mode and refuses in another, or that
# crash, hang or wrap a careless one, each refused the same way in every mode: exit 2, one
# sentence on stderr, no file written. Then what must work: --open with --export exports the
# PNG's view, --palette-file takes a file anywhere, --frames alone shows N frames and exits,
# and a window larger than the screen is clamped with a sentence (the last two need DISPLAY).
# Usage: bash options_cli.sh /path/to/mandelscope
set -u
bin=$(realpath "${1:?usage: options_cli.sh /path/to/mandelscope}")
assets=$(dirname "$bin")/assets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

bad() {  # mode-args...: must exit 2 with exactly one line on stderr and leave no file
    local status lines
    timeout 60 "$bin" "$@" > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    [ "$status" -eq 2 ] || fail "$* exited $status, not 2 (stderr: $(head -c 300 err.txt))"
    [ "$lines" -eq 1 ] || fail "$* printed $lines lines on stderr, not 1: $(head -c 300 err.txt)"
    [ -z "$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' -e '^src.png$' -e '^bad-centre.png$' -e '^pal.txt$')" ] \
        || fail "$* left files: $(ls -A)"
    local args="$*"
    echo "ok   ${args:0:70}  ->  $(head -c 200 err.txt)"
}

huge=$(printf '7%.0s' $(seq 26000))
# The same input to the window's options (via --export: no display needed) and to render.
for mode in render window; do
    if [ $mode = render ]; then m=(render); out=(-o e.png); else m=(); out=(--export=e.png); fi
    bad "${m[@]}" --size="${huge}x10" "${out[@]}"            # std::regex would overflow the stack
    bad "${m[@]}" --size=4294967297x36 "${out[@]}"           # sscanf %d would wrap it to 1x36
    bad "${m[@]}" --center=0x1p-1,0 "${out[@]}"              # hex, which strtod accepts
    bad "${m[@]}" --center=0x10,0 "${out[@]}"
    bad "${m[@]}" "--center= 0.5,0" "${out[@]}"              # a leading space, which strtod skips
    bad "${m[@]}" --zoom=1e60001 "${out[@]}"                 # past the deep zoom's limit, 1E60000
    bad "${m[@]}" --zoom=1e99999999999 "${out[@]}"
    bad "${m[@]}" --zoom=0x10 "${out[@]}"
    bad "${m[@]}" --zoom=inf "${out[@]}"
    bad "${m[@]}" --iter=1e3 "${out[@]}"
    bad "${m[@]}" --palette= "${out[@]}"                     # must not swallow the next argument
    bad "${m[@]}" --zoom= "${out[@]}"
    bad "${m[@]}" --palette=../palettes/classic "${out[@]}"  # a path, not a name
    bad "${m[@]}" --palette=/etc/passwd "${out[@]}"
    bad "${m[@]}" --palette-file=/nonexistent.txt "${out[@]}"
    bad "${m[@]}" --palette-file=/etc "${out[@]}"
done
# A zoom of 1e400 is no error: both the window and render draw any depth (the deep paths; the
# window's export of a deep view is checked in tests/window/window_deep_zoom.sh).
bad --supersample=2                                          # meaningless without --export
bad --open=/nonexistent.png --export=e.png                   # refused: no default view exported
bad cnn eval --conv-tiling=99999999999x1 --limit=10          # would wrap in sscanf %d
bad cnn eval --batch=0x10 --limit=10

# --open of a PNG whose view has a hex centre (as a lax writer might leave): the export
# refuses it with a sentence instead of hanging.
python3 - <<'EOF'
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
view = (b'{"center_re":"0x1p-1","center_im":"0","zoom":2.0,"width":8,"height":8,"iterations":100,'
        b'"palette":"classic","offset":0.0,"density":1.0,"precision":"fp64","supersample":1}')
raw = b"".join(b"\0" + b"\0\0\0\xff" * 8 for _ in range(8))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 6, 0, 0, 0)) +
       chunk(b"tEXt", b"mandelscope-view\0" + view) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open("bad-centre.png", "wb").write(png)
EOF
bad --open=bad-centre.png --export=e.png
grep -q "not a decimal number" err.txt || fail "the refusal of a hex centre does not say why: $(cat err.txt)"

# A CUDA backend asked for by name where none can run: the reason on stderr, exit 2.
if ! "$bin" info | grep -q "^  device 0"; then
    bad cnn eval --backend=cuda --limit=10
    render_reason=$("$bin" render --backend=cuda --size=8x8 -o e.png 2>&1 | sed 's/.*: //')
    grep -qF "$render_reason" err.txt || fail "cnn eval and render word the CUDA reason differently: '$render_reason' vs '$(cat err.txt)'"
fi

# --- what must work -----------------------------------------------------------------------------
# --open with --export: the export is the PNG's view, not the default one.
"$bin" render --center=-0.7436447860,0.1318252536 --zoom=3000 --size=64x36 --iter=300 --palette=fire \
    -o src.png > /dev/null 2>&1 || fail "render of the source PNG failed"
"$bin" --backend=cpu --open=src.png --export=opened.png --export-size=64x36 > out.txt 2> err.txt \
    || fail "--open with --export failed: $(cat err.txt)"
python3 - <<'EOF' || fail "the export does not carry the opened view"
import re, sys
data = open("opened.png", "rb").read()
m = re.search(rb'mandelscope-view\0(\{[^}]*\})', data)
sys.exit(0 if m and b'"center_re":"-0.7436447860"' in m.group(1) and b'"palette":"fire"' in m.group(1) else 1)
EOF
rm -f opened.png

# --palette-file: a palette anywhere, explicitly.
cp "$assets/palettes/fire.txt" pal.txt
"$bin" render --palette-file=pal.txt --size=32x18 --iter=100 -o pf.png > /dev/null 2> err.txt \
    || fail "render --palette-file failed: $(cat err.txt)"
[ -s pf.png ] || fail "render --palette-file wrote no PNG"
rm -f pf.png pal.txt

# render --size=100000x100000 onto a file system smaller than the estimate: refused up front.
if [ -d /dev/shm ] && [ "$(df -B1 --output=avail /dev/shm | tail -1)" -lt 40000000000 ]; then
    timeout 60 "$bin" render --size=100000x100000 -o /dev/shm/mandelscope-options-cli.png > out.txt 2> err.txt
    status=$?
    [ "$status" -eq 2 ] && grep -q "free" err.txt || fail "a 40 GB PNG on a small file system must be refused (exit $status): $(cat err.txt)"
    [ ! -e /dev/shm/mandelscope-options-cli.png ] || fail "the refused render left a file"
    echo "ok   render --size=100000x100000 on /dev/shm  ->  $(cat err.txt)"
fi

if [ -n "${DISPLAY:-}" ]; then
    # --frames without --screenshot shows N frames and exits 0 (not forever).
    timeout 120 "$bin" --no-ui --backend=cpu --size=64x36 --frames=3 > out.txt 2> err.txt
    status=$?
    [ "$status" -eq 0 ] || fail "--frames=3 alone exited $status (124: it did not stop): $(cat err.txt)"
    # A window larger than the screen is clamped with a sentence, not a raw X error.
    timeout 300 "$bin" --no-ui --backend=cpu --size=100000x100000 --iter=50 --frames=2 > out.txt 2> err.txt
    status=$?
    [ "$status" -eq 0 ] || fail "a 100000x100000 window exited $status: $(cat err.txt)"
    grep -q "is larger than the screen .* so the window opens at" err.txt || fail "no sentence for the clamped window: $(cat err.txt)"
    echo "ok   --size=100000x100000 window  ->  $(grep 'larger than' err.txt)"
else
    echo "SKIP (window part): no DISPLAY"
fi

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all option checks passed"
