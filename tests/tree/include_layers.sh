#!/usr/bin/env bash
# include_layers.sh: the tree's layers hold. Includes point down a layer, never up:
#   app/ -> render/ -> compute/        (compute/ never includes render/ or app/, nor GL, GLFW
#                                       or ImGui; render/ never includes app/)
# and inside compute/, each capability folder includes only the folders below it:
#   system/                             the bottom: nothing else from compute/
#   io/                                 system/
#   fractal/, vecadd/, cnn/             io/ and system/
#   perf/                               system/ and fractal/ (the Mandelbrot issue bounds)
#   video/                              system/, io/ and fractal/ (zoom videos)
#   scale/                              system/, io/ and fractal/ (work queue, packed references,
#                                       a frame spread over devices)
#   cluster/                            scale/, system/ and io/ (MPI across processes)
# and inside compute/fractal/, one folder per concept, in this order (each reaches only those
# before it, never a sibling of the last step, never a file outside a concept folder):
#   numbers/ -> view/ -> maths/ -> colour/ -> { direct/, deep/ }
# and nucleus/ (Newton zoom: the period, nucleus and minibrot) after deep/: numbers, view, maths, deep.
# app/bench/ (the benchmarks) is app's; compute/ never includes it.
# Prints every offending line and fails if there is one.
# Usage: bash tests/tree/include_layers.sh [ignored: CTest passes the binary]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

# allowed[folder]: the project include prefixes its files may use (besides their own folder).
declare -A allowed=(
    [compute/io]="compute/io/ compute/system/"
    [compute/system]="compute/system/"
    [compute/fractal/numbers]="compute/fractal/numbers/ compute/io/ compute/system/"
    [compute/fractal/view]="compute/fractal/numbers/ compute/fractal/view/ compute/io/ compute/system/"
    [compute/fractal/maths]="compute/fractal/numbers/ compute/fractal/view/ compute/fractal/maths/ compute/io/ compute/system/"
    [compute/fractal/colour]="compute/fractal/numbers/ compute/fractal/view/ compute/fractal/maths/ compute/fractal/colour/ compute/io/ compute/system/"
    [compute/fractal/direct]="compute/fractal/numbers/ compute/fractal/view/ compute/fractal/maths/ compute/fractal/colour/ compute/fractal/direct/ compute/io/ compute/system/"
    [compute/fractal/deep]="compute/fractal/numbers/ compute/fractal/view/ compute/fractal/maths/ compute/fractal/colour/ compute/fractal/deep/ compute/io/ compute/system/"
    [compute/fractal/nucleus]="compute/fractal/numbers/ compute/fractal/view/ compute/fractal/maths/ compute/fractal/deep/ compute/fractal/nucleus/ compute/io/ compute/system/"
    [compute/vecadd]="compute/vecadd/ compute/io/ compute/system/"
    [compute/cnn]="compute/cnn/ compute/io/ compute/system/"
    [compute/perf]="compute/perf/ compute/system/ compute/fractal/"
    [compute/video]="compute/video/ compute/io/ compute/system/ compute/fractal/"
    [compute/scale]="compute/scale/ compute/io/ compute/system/ compute/fractal/"
    [compute/cluster]="compute/cluster/ compute/scale/ compute/io/ compute/system/"
    [render]="render/ compute/"
    [app]="app/ render/ compute/"
    [tests]="tests/ app/ render/ compute/"
)
forbidden_system_in_compute='^#include <(GLFW/|glad/|imgui|backends/|GL/)'

# check_tree DIR: prints the offending includes of the tree at DIR; returns 1 if there is one.
check_tree() (
cd "$1" || exit 1
bad=0
checked=0
while IFS= read -r file; do
    checked=$((checked + 1))
    case "$file" in
        compute/io/*) layer=compute/io ;;
        compute/system/*) layer=compute/system ;;
        compute/fractal/numbers/*) layer=compute/fractal/numbers ;;
        compute/fractal/view/*) layer=compute/fractal/view ;;
        compute/fractal/maths/*) layer=compute/fractal/maths ;;
        compute/fractal/colour/*) layer=compute/fractal/colour ;;
        compute/fractal/direct/*) layer=compute/fractal/direct ;;
        compute/fractal/deep/*) layer=compute/fractal/deep ;;
        compute/fractal/nucleus/*) layer=compute/fractal/nucleus ;;
        compute/fractal/*) echo "$file: a compute/fractal/ file outside a concept folder"; bad=1; continue ;;
        compute/vecadd/*) layer=compute/vecadd ;;
        compute/cnn/*) layer=compute/cnn ;;
        compute/perf/*) layer=compute/perf ;;
        compute/video/*) layer=compute/video ;;
        compute/scale/*) layer=compute/scale ;;
        compute/cluster/*) layer=compute/cluster ;;
        compute/*) echo "$file: a compute/ file outside a capability folder"; bad=1; continue ;;
        render/*) layer=render ;;
        app/*) layer=app ;;
        tests/*) layer=tests ;;
        *) continue ;;
    esac
    while IFS= read -r line; do
        target=${line#*\"}; target=${target%%\"*}
        case "$target" in compute/*|render/*|app/*|tests/*) ;; *) continue ;; esac
        ok=0
        for prefix in ${allowed[$layer]}; do [[ "$target" == "$prefix"* ]] && ok=1; done
        if ((ok == 0)); then echo "$file includes \"$target\": $layer may not reach it"; bad=1; fi
    done < <(grep -E '^\s*#\s*include "' "$file")
    if [[ "$layer" == compute/* ]] && grep -qE "$forbidden_system_in_compute" "$file"; then
        echo "$file includes GL, GLFW or ImGui: compute/ is a pure library"; bad=1
    fi
done < <(find app render compute tests -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \) \
           2>/dev/null | sort)
if ((checked == 0)); then echo "no source files found under $1"; exit 1; fi
if ((bad)); then exit 1; fi
echo "ok: $checked files, every include points down a layer"
)

# First prove the check can fail: a scratch tree with planted violations, one of each kind.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/compute/io" "$scratch/compute/fractal/view" "$scratch/compute/fractal/deep" "$scratch/render/ui"
printf '#include "compute/fractal/view/view.h"\n' > "$scratch/compute/io/reader.cpp"
printf '#include "render/frame/frame_renderer.h"\n#include <imgui.h>\n' > "$scratch/compute/fractal/view/bad.cpp"
printf '#include "compute/fractal/maths/escape.h"\n' > "$scratch/compute/fractal/view/up.h"
printf '#include "compute/fractal/direct/direct.h"\n' > "$scratch/compute/fractal/deep/sibling.cpp"
printf '#include "compute/fractal/view/view.h"\n' > "$scratch/compute/fractal/loose.h"
printf '#include "app/commands.h"\n#include "compute/fractal/view/view.h"\n' > "$scratch/render/ui/bad.cpp"
planted=$(check_tree "$scratch")
if [ "$(grep -c 'may not reach\|pure library\|outside a concept folder' <<<"$planted")" -ne 7 ]; then
    echo "FAIL: the check missed planted violations; it printed:"; echo "$planted"; exit 1
fi
echo "self-check: the 7 planted violations were all reported"

if ! check_tree "$root"; then echo "FAIL: includes reach up a layer (see above)"; exit 1; fi
