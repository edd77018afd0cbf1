#!/usr/bin/env bash
# install_relocated.sh: `cmake --install` gives a copy that runs anywhere. The installed
# binary, run from another directory, finds share/mandelscope/{assets,shaders} of its own tree
# (not the source tree), renders a PNG with a named palette, and still does after the whole
# installed tree is moved. The desktop entry and its icons are installed where desktops look. With nothing installed beside it, the error names every place tried.
# Usage: bash tests/tree/install_relocated.sh /path/to/build/bin/mandelscope
set -euo pipefail
bin=$1
build=$(cd "$(dirname "$bin")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/mandelscope" || { echo "FAIL: no bin/mandelscope installed"; exit 1; }
for f in share/mandelscope/assets/palettes/fire.txt share/mandelscope/shaders/fullscreen.frag \
         share/mandelscope/assets/cnn/fashion_mnist.msw share/applications/mandelscope.desktop \
         share/icons/hicolor/256x256/apps/mandelscope.png share/icons/hicolor/48x48/apps/mandelscope.png; do
    test -f "$work/prefix/$f" || { echo "FAIL: $f not installed"; exit 1; }
done

check_copy() {  # PREFIX: run the copy at PREFIX from an unrelated directory
    local prefix=$1
    mkdir -p "$work/elsewhere" && cd "$work/elsewhere"
    "$prefix/bin/mandelscope" info > info.txt
    local assets
    assets=$(sed -n 's/^  assets *//p' info.txt)
    if [ "$assets" != "$prefix/share/mandelscope/assets" ]; then
        echo "FAIL: the copy in $prefix reads its assets from '$assets'"; exit 1
    fi
    "$prefix/bin/mandelscope" render --size=64x36 --iter=100 --palette=fire -o out.png > render.txt
    head -c 8 out.png | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" || { echo "FAIL: out.png is not a PNG"; exit 1; }
    rm -f out.png
    echo "ok: $prefix runs from $work/elsewhere with its own assets"
}
check_copy "$work/prefix"
mv "$work/prefix" "$work/moved"
check_copy "$work/moved"

# The binary alone, with no data beside or above it: it falls back to the install prefix or the
# source tree, and says where it looked when a file is missing in all of them.
mkdir -p "$work/lonely/bin" && cp "$work/moved/bin/mandelscope" "$work/lonely/bin/"
"$work/lonely/bin/mandelscope" info | grep -q "^  assets" || { echo "FAIL: info has no assets line"; exit 1; }
if "$work/lonely/bin/mandelscope" render --size=8x8 --palette=no-such-palette -o "$work/x.png" 2> "$work/err.txt"; then
    echo "FAIL: an unknown palette rendered"; exit 1
fi
test ! -e "$work/x.png" || { echo "FAIL: a failed render left a file"; exit 1; }
echo "ok: installed, moved and lone copies behave"
