#!/usr/bin/env bash
# cli_lib.sh: what the end-to-end scripts of tests/cli/ share, sourced, never run by itself
# (tests/CMakeLists.txt leaves *_lib.sh out of the tests).
#   cli_begin NAME "$@"  sets bin (the mandelscope under test), makes and enters a scratch folder
#                        $work that is removed on exit, and zeroes the failure count;
#   fail WORDS           counts a failure and says it; the script goes on;
#   expect_bad ARGS...   `mandelscope render ARGS` must exit 2 with exactly one line on stderr and
#                        leave no new.png, new.kfr or temporary file behind;
#   png_view FILE        prints the JSON of the view a PNG stores (its mandelscope-view tEXt
#                        chunk), or fails where there is none (needs python3);
#   cli_end WORDS        exits 1 with the count where anything failed, else says WORDS.

cli_begin() {  # NAME "$@"
    local name=$1
    shift
    set -u
    bin=$(realpath "${1:?usage: $name /path/to/mandelscope}")
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cd "$work" || exit 1
    failures=0
}

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_bad() {  # args...
    local status lines args="$*"
    "$bin" render "$@" > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    [ "$status" -eq 2 ] || fail "render $* exited $status, not 2 (stderr: $(head -c 300 err.txt))"
    [ "$lines" -eq 1 ] || fail "render $* printed $lines lines on stderr, not 1: $(head -c 300 err.txt)"
    { [ ! -e new.png ] && [ ! -e new.kfr ]; } || { fail "render $* left a file"; rm -f new.png new.kfr; }
    [ -z "$(ls -A | grep -e '\.tmp' -e '^\.')" ] || fail "render $* left a temporary file: $(ls -A)"
    echo "ok   render ${args:0:70}  ->  $(head -c 200 err.txt)"
}

png_view() {  # file.png
    python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos = 8
while pos + 8 <= len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"tEXt" and body.split(b"\0", 1)[0] == b"mandelscope-view":
        print(body.split(b"\0", 1)[1].decode())
        sys.exit(0)
    pos += 12 + length
sys.exit("no mandelscope-view chunk in " + sys.argv[1])
PY
}

cli_end() {  # words said when everything passed
    if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
    echo "$*"
}
