#!/usr/bin/env bash
# setup.sh: everything Mandelscope needs on a fresh Debian 12 machine, in one command.
#   bash .ci/setup.sh run    install what is missing, build, launch the explorer
#   bash .ci/setup.sh test   install what is missing, build, run the whole test suite
#                            (window tests under an Xvfb started here)
# Installing needs root (apt-get); run it as root or it uses sudo. Build output: build/.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}

packages=(build-essential cmake pkg-config git
          libglfw3-dev libimgui-dev libglm-dev libstb-dev python3-glad
          libhwy-dev libcli11-dev nlohmann-json3-dev zlib1g-dev
          libgtest-dev libmpfr-dev xvfb x11-utils xdotool x11-apps imagemagick dataset-fashion-mnist
          clang-14 libclang-rt-14-dev libomp-14-dev ninja-build
          dpkg-dev desktop-file-utils  # tests/tree/deb_package.sh: cpack's Depends, the desktop entry
          libavformat-dev libavcodec-dev libswscale-dev libavutil-dev  # compute/video/: FFmpeg's libraries
          ffmpeg  # ffprobe: tests/window/window_video_panel.sh decodes the panel's video
          libopenexr-dev  # compute/io/exr_write.cpp: EXR sequences
          openmpi-bin libopenmpi-dev)  # compute/cluster/: mpirun -np N mandelscope render (tests/cluster/)
# Not installed here, only for the README's PNG-writing comparison (by hand): xaos.
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CUDA: the kernels are compiled for the GPU this machine has. Without one, for a single
# architecture (sm_90), which checks that every kernel compiles and keeps the build short (each
# further architecture costs minutes of nvcc on two cores); the CPU path runs the explorer. Set
# CUDA_ARCHS to choose (e.g. CUDA_ARCHS="75-real;80-real;86-real;89-real;90-real;90-virtual", the
# CMakeLists default, for binaries that run on any GPU from Turing on).
cuda_args=()
if [ -x /usr/local/cuda/bin/nvcc ]; then
    if [ -n "${CUDA_ARCHS:-}" ]; then archs=$CUDA_ARCHS
    elif nvidia-smi -L 2> /dev/null | grep -q "^GPU"; then archs=native
    else archs=90
    fi
    cuda_args=(-DCMAKE_CUDA_ARCHITECTURES="$archs")
    echo "== CUDA toolkit: /usr/local/cuda, architectures: $archs"
else
    echo "== no CUDA toolkit: building the CPU-only Mandelscope"
fi
# CI (the CI variable set, as CI services set it) builds the tested tree with warnings as errors.
werror=OFF
[ "$mode" = test ] && [ -n "${CI:-}" ] && werror=ON
jobs=$(nproc)
# The release preset (CMakePresets.json): Release into build/, compile_commands.json.
cmake --preset release -DMANDELSCOPE_WARNINGS_AS_ERRORS=$werror "${cuda_args[@]}"
cmake --build build -j"$jobs"

case "$mode" in
run)
    exec build/bin/mandelscope "${@:2}"
    ;;
test)
    # Window tests need a display: a private Xvfb unless one is already there.
    if [ -z "${DISPLAY:-}" ]; then
        display=:$((90 + RANDOM % 9))
        Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp >/tmp/mandelscope-xvfb.log 2>&1 &
        xvfb_pid=$!
        trap 'kill $xvfb_pid 2>/dev/null || true' EXIT
        export DISPLAY=$display
        for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    # The window tests and the benchmark script are RUN_SERIAL (tests/CMakeLists.txt): ctest runs
    # them alone and the rest side by side.
    cd build && ctest --output-on-failure -j"$jobs"
    ;;
*)
    echo "usage: bash .ci/setup.sh run|test" >&2; exit 2
    ;;
esac
