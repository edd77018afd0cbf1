#!/usr/bin/env bash
# pack.sh: gathers what the GPU machine needs into .carry/all (git-ignored), on this machine.
# The GPU machine has a driver but no Debian packages: it gets stripped binaries (build with
# -DCMAKE_CUDA_ARCHITECTURES=90), assets, shaders, the shared libraries they load that a bare
# machine lacks, the Fashion-MNIST test files, and the test scripts. The X server and GL
# libraries travel separately in .gpu/ (../shared/gpu/prepare.sh); both together exceed the
# 64 MiB a call carries, so gpu_compute.sh copies this folder to /tmp/ms for later calls.
#   bash tests/gpu/pack.sh [BUILD_DIR]      (default: build)
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
build=${1:-$root/build}
dest=$root/.carry/all
rm -rf "$dest" && mkdir -p "$dest/lib" "$dest/data"
for f in "$build"/bin/mandelscope "$build"/bin/cuda_floor "$build"/bin/test_*; do [ -e "$f" ] && strip -o "$dest/$(basename "$f")" "$f"; done
cp -r "$build/bin/assets" "$build/bin/shaders" "$dest/"
for lib in libgomp.so.1 libhwy.so.1 libglfw.so.3 libstb.so.0 libX11.so.6 libxcb.so.1 libXau.so.6 \
           libXdmcp.so.6 libbsd.so.0 libmd.so.0 libmpfr.so.6 libgmp.so.10 \
           libOpenEXR-3_1.so.30 libOpenEXRCore-3_1.so.30 libIex-3_1.so.30 libIlmThread-3_1.so.30 libImath-3_1.so.29; do
    cp -L "/lib/x86_64-linux-gnu/$lib" "$dest/lib/"
done
cp /usr/share/datasets/fashion-mnist/t10k-* "$dest/data/"
cp "$root"/tests/gpu/*.sh "$root"/tests/cli/*.sh "$root"/tests/window/*.sh "$root"/tests/demos/cnn_pytorch_compare.py "$dest/"
du -sh "$dest"
