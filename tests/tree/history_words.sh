#!/usr/bin/env bash
# history_words.sh: history lives in commit messages, not in the tree. Fails on
#   - the word "session" (any case, singular or plural, as a whole word) in README.md,
#     CONTRIBUTING.md or any file under docs/: the papers describe what is, in the present tense;
#   - an ordinal session anywhere in the tracked files (git ls-files; binary files are skipped):
#     an ordinal word or number ("third", "twenty-first", "14th") followed by the word.
# Prints every offending file:line and its text.
# Usage: bash tests/tree/history_words.sh [ignored: CTest passes the binary]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

# The patterns are assembled from pieces, so that this file holds no example of what it rejects.
word="sess""ions?"
units=(first second third fourth fifth sixth seventh eighth ninth)
teens=(tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth)
tens=(twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth hundredth)
tens_prefix="(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ]?"
join() { local IFS='|'; echo "$*"; }
ordinal="(${tens_prefix}($(join "${units[@]}"))|$(join "${units[@]}")|$(join "${teens[@]}")|$(join "${tens[@]}")|[0-9]+(st|nd|rd|th))"
ordinal_pattern="(^|[^[:alnum:]_])${ordinal}[[:space:]-]+${word}([^[:alnum:]_]|$)"
word_pattern="(^|[^[:alnum:]_])${word}([^[:alnum:]_]|$)"

# check_tree DIR: prints the offending lines of the tree at DIR (a git work tree); returns 1 if any.
check_tree() (
cd "$1" || exit 1
bad=0
mapfile -d '' files < <(git ls-files -z)
if ((${#files[@]} == 0)); then echo "no tracked files under $1"; exit 1; fi
papers=()
for f in "${files[@]}"; do
    case "$f" in README.md|CONTRIBUTING.md|docs/*) [ -f "$f" ] && papers+=("$f") ;; esac
done
# -I skips binary files, -s the tracked files that are gone from the work tree.
if ((${#papers[@]})) && grep -IsnHiE "$word_pattern" -- "${papers[@]}"; then
    bad=1
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
if printf '%s\0' "${existing[@]}" | xargs -0 grep -IsnHiE "$ordinal_pattern" --; then
    bad=1
fi
exit $bad
)

# First prove the check can fail: a scratch tree with planted words, and some that must pass.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
o1=Ninth o2=twenty-first o3=14th w1=Session w2=sessions
mkdir -p "$scratch/docs" "$scratch/compute" "$scratch/assets"
printf 'The window.\nMeasured in the last %s.\n' "$w1" > "$scratch/README.md"               # planted: 1
printf 'Two %s of profiling.\nAn obsession with speed, sessional notes.\n' "$w2" > "$scratch/docs/notes.md"  # planted: 1
printf 'Build, test, commit.\n' > "$scratch/CONTRIBUTING.md"
printf '// the %s %s found it\n' "$o1" "$w1" > "$scratch/compute/a.cpp"                      # planted: 1
printf '// the %s %s\nint x; // a session here is fine outside the papers\n' "$o2" "session" > "$scratch/compute/b.h"  # planted: 1
printf '# %s %s\n' "$o3" "$w1" > "$scratch/compute/c.sh"                                      # planted: 1
printf 'the %s %s\0\001\002' "$o1" "$w1" > "$scratch/assets/picture.png"                   # binary: skipped
printf 'the %s %s\n' "$o1" "$w1" > "$scratch/untracked.txt"                                 # not tracked: skipped
(cd "$scratch" && git init -q && git add README.md CONTRIBUTING.md docs compute assets) || {
    echo "FAIL: could not make the scratch git tree"; exit 1; }
planted=$(check_tree "$scratch")
status=$?
expected="README.md:2: compute/a.cpp:1: compute/b.h:1: compute/c.sh:1: docs/notes.md:1:"
got=$(grep -oE '^[^:]+:[0-9]+:' <<<"$planted" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
if ((status == 0)) || [ "$got" != "$expected" ]; then
    echo "FAIL: the check did not report exactly the 5 planted lines; it printed:"; echo "$planted"; exit 1
fi
echo "self-check: the 5 planted lines were all reported, and nothing else"

if ! git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    echo "skipped: $root is not a git work tree (git ls-files lists the files to check)"; exit 77
fi
if ! check_tree "$root"; then
    echo "FAIL: history words in the tree (above): history belongs in commit messages"; exit 1
fi
echo "ok: no history words in the papers, no ordinal sessions in the tracked files"
