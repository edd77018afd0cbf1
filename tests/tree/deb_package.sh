#!/usr/bin/env bash
# deb_package.sh: `cpack -G DEB` in the build folder makes a Debian package that installs a
# working Mandelscope. The package is named mandelscope, carries the project's version, section
# graphics and a Depends worked out by dpkg-shlibdeps (GLFW, FFmpeg and the C library among them); it
# holds the binary, the desktop entry (valid, by desktop-file-validate), the icons and the data.
# Unpacked into a scratch root, its usr/bin/mandelscope finds the data of that root
# (../share/mandelscope, as it finds /usr/share/mandelscope once installed), says so in `info`,
# and renders a PNG.
# Skipped (77) where cpack or dpkg-shlibdeps (package dpkg-dev) is missing: it installs nothing.
# Usage: bash tests/tree/deb_package.sh /path/to/build/bin/mandelscope
set -euo pipefail
bin=$1
build=$(cd "$(dirname "$bin")/.." && pwd)
command -v cpack >/dev/null || { echo "SKIP: cpack is missing (package cmake)"; exit 77; }
command -v dpkg-shlibdeps >/dev/null \
    || { echo "SKIP: dpkg-shlibdeps is missing (package dpkg-dev): cpack cannot work out the package's Depends"; exit 77; }
command -v dpkg-deb >/dev/null || { echo "SKIP: dpkg-deb is missing (not a Debian system)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out") > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$work"/out/mandelscope_*.deb)
[ -f "${debs[0]}" ] || { cat "$work/cpack.log"; fail "cpack made no mandelscope_*.deb"; }
deb=${debs[0]}
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"

# The control fields.
dpkg-deb -I "$deb" > "$work/control.txt"
field() { sed -n "s/^ $1: //p" "$work/control.txt"; }
version=$("$bin" --version | sed -n 's/^mandelscope //p')
[ "$(field Package)" = mandelscope ] || { cat "$work/control.txt"; fail "the package is not named mandelscope"; }
[ "$(field Version)" = "$version" ] || fail "the package's version '$(field Version)' is not the program's '$version'"
[ "$(field Section)" = graphics ] || fail "the section is '$(field Section)', not graphics"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
depends=$(field Depends)
echo "Depends: $depends"
[ -n "$depends" ] || fail "Depends is empty (dpkg-shlibdeps did not run?)"
for package in libc6 libglfw3 "libavcodec[0-9]+" "libavformat[0-9]+"; do  # FFmpeg: the video mode
    echo "$depends" | grep -Eq "(^|, )$package( |,|$)" || fail "Depends does not name $package"
done

# The files.
dpkg-deb -c "$deb" | awk '{ print $NF }' > "$work/files.txt"
for f in usr/bin/mandelscope usr/share/applications/mandelscope.desktop \
         usr/share/icons/hicolor/256x256/apps/mandelscope.png usr/share/icons/hicolor/48x48/apps/mandelscope.png \
         usr/share/mandelscope/assets/palettes/classic.txt usr/share/mandelscope/assets/cnn/fashion_mnist.msw \
         usr/share/mandelscope/shaders/fullscreen.frag; do
    grep -qx "\./$f" "$work/files.txt" || fail "$f is not in the package"
done

dpkg-deb -x "$deb" "$work/root"
usr="$work/root/usr"
if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$usr/share/applications/mandelscope.desktop" > "$work/validate.txt" 2>&1 \
        || { cat "$work/validate.txt"; fail "the desktop entry is not valid"; }
    grep -v ': hint: ' "$work/validate.txt" && fail "desktop-file-validate warns about the desktop entry"
    echo "ok: desktop-file-validate accepts the desktop entry"
else
    echo "note: desktop-file-validate is missing (package desktop-file-utils): the desktop entry is not validated"
fi
grep -qx 'Exec=mandelscope %f' "$usr/share/applications/mandelscope.desktop" || fail "the entry does not run mandelscope %f"
grep -qx 'Icon=mandelscope' "$usr/share/applications/mandelscope.desktop" || fail "the entry's icon is not mandelscope"
# PNG width and height: the IHDR chunk's first 8 bytes, big-endian, at offset 16.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $3 * 256 + $4, $7 * 256 + $8 }'; }
for size in 48 256; do
    got=$(png_size "$usr/share/icons/hicolor/${size}x${size}/apps/mandelscope.png")
    [ "$got" = "${size}x${size}" ] || fail "the ${size}x${size} icon is $got"
done

# The unpacked binary, run from elsewhere, uses the data of its own root.
mkdir -p "$work/elsewhere" && cd "$work/elsewhere"
"$usr/bin/mandelscope" info > info.txt || { cat info.txt; fail "the packaged mandelscope info failed"; }
for sub in assets shaders; do
    dir=$(sed -n "s/^  $sub *//p" info.txt)
    [ "$dir" = "$usr/share/mandelscope/$sub" ] || { cat info.txt; fail "the packaged binary reads its $sub from '$dir'"; }
done
"$usr/bin/mandelscope" render --size=64x36 -o x.png > render.txt 2>&1 || { cat render.txt; fail "the packaged binary cannot render"; }
head -c 8 x.png | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" || fail "x.png is not a PNG"
echo "ok: $(basename "$deb") unpacks to a mandelscope that finds its data and renders"
