#!/usr/bin/env bash
# same_output.sh: two builds of Mandelscope give the same output. For a code move or a rename
# that must change no behaviour: a fixed set of views (direct FP32 and FP64, every formula and
# a Julia set, every colouring, supersampling, and deep views on both number types) is rendered
# by both binaries on each backend asked for, and every PNG must be byte-identical, or hold the
# same pixels where only its metadata (the view record) differs; with
# --sass, the sm_90 SASS of every kernel must be identical too (cuobjdump, compared per kernel,
# with the old binary's kernel names mapped through RENAMES when the names themselves moved).
#   bash tests/gpu/same_output.sh OLD_BINARY NEW_BINARY OUT_DIR [cpu] [cuda] [--sass]
# Runs here for the CPU backend, and on the GPU machine (tests/gpu/pack.sh) for CUDA and SASS.
set -uo pipefail
old=$1 new=$2 out=$3; shift 3
backends=() sass=0
for a in "$@"; do case "$a" in --sass) sass=1 ;; *) backends+=("$a") ;; esac; done
here=$(cd "$(dirname "$0")" && pwd)
kfr=$(dirname "$new")/assets/locations
mkdir -p "$out"
views=(
  "default|--size=320x180"
  "seahorse_fp64|--size=320x180 --center=-0.7453,0.1127 --zoom=2000 --iter=3000"
  "fp32_forced|--size=320x180 --center=-0.7453,0.1127 --zoom=150 --precision=fp32"
  "multibrot3|--size=200x120 --formula=multibrot3"
  "multibrot8|--size=200x120 --formula=multibrot8"
  "burning_ship|--size=200x120 --formula=burning-ship"
  "tricorn|--size=200x120 --formula=tricorn"
  "julia|--size=200x120 --julia=-0.8,0.156"
  "histogram|--size=200x120 --colouring=histogram"
  "stripe_de|--size=200x120 --center=-0.7453,0.1127 --zoom=150 --colouring=stripe,de"
  "slope_period|--size=200x120 --colouring=smooth,slope --interior=period"
  "stripe_density8|--size=200x120 --colouring=stripe --stripe-density=8 --formula=tricorn"
  "supersample|--size=160x90 --supersample=3 --colouring=smooth,de"
  "deep_e50|--size=160x90 --location=$kfr/e50.kfr"
  "deep_e227_de|--size=160x90 --location=$kfr/e227.kfr --colouring=smooth,de"
  "deep_floatexp|--size=96x54 --location=$kfr/e533.kfr --iter=20000"
  "deep_julia|--size=96x54 --julia=-0.75,0.1 --zoom=1e20 --center=0.1,0.2 --iter=2000"
)
# The decoded RGBA's checksum (ImageMagick where it is installed, else Python's PIL).
pixels() {
  if command -v convert > /dev/null; then convert "$1" rgba:- | sha256sum
  else python3 -c 'import hashlib, sys; from PIL import Image; print(hashlib.sha256(Image.open(sys.argv[1]).convert("RGBA").tobytes()).hexdigest())' "$1"
  fi
}
fail=0 compared=0
for b in "${backends[@]}"; do
  for v in "${views[@]}"; do
    name=${v%%|*} args=${v#*|}
    # shellcheck disable=SC2086
    "$old" render $args --backend="$b" -o "$out/old_${b}_$name.png" > "$out/old_${b}_$name.log" 2>&1
    rc_old=$?
    # shellcheck disable=SC2086
    "$new" render $args --backend="$b" -o "$out/new_${b}_$name.png" > "$out/new_${b}_$name.log" 2>&1
    rc_new=$?
    compared=$((compared + 1))
    if [ $rc_old -ne 0 ] || [ $rc_new -ne 0 ]; then
      echo "FAIL $b $name: exit $rc_old (old) and $rc_new (new)"; tail -2 "$out/new_${b}_$name.log"; fail=1
    elif cmp -s "$out/old_${b}_$name.png" "$out/new_${b}_$name.png"; then
      echo "same $b $name ($(stat -c %s "$out/new_${b}_$name.png") bytes)"
    elif [ "$(pixels "$out/old_${b}_$name.png")" = "$(pixels "$out/new_${b}_$name.png")" ]; then
      # A change that adds a field to the view record changes the tEXt chunk, not the picture.
      echo "same $b $name (the same pixels; the PNGs' metadata differs)"
    else
      echo "FAIL $b $name: the PNGs differ"; fail=1
    fi
  done
done
if ((sass)); then
  dump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  "$dump" -sass "$old" > "$out/old.sass" && "$dump" -sass "$new" > "$out/new.sass" || { echo "FAIL: cuobjdump"; fail=1; }
  python3 "$here/sass_compare.py" "$out/old.sass" "$out/new.sass" || fail=1
fi
echo "$compared renders compared"
exit $fail
