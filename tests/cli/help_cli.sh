#!/usr/bin/env bash
# help_cli.sh: the top-level --help lists every mode (render, info, bench, vecadd, cnn, nucleus)
# and the window's options, each mode answers its own --help, and --version prints
# "mandelscope X.Y.Z"; all exit 0 and write nothing on stderr.
set -u
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

"$bin" --help >"$work/help.txt" 2>"$work/err.txt"; rc=$?
cat "$work/help.txt"
[ $rc -eq 0 ] || { echo "FAIL: --help exited with $rc"; exit 1; }
[ ! -s "$work/err.txt" ] || { echo "FAIL: --help wrote on stderr"; cat "$work/err.txt"; exit 1; }
for mode in render info bench vecadd cnn nucleus; do
    grep -Eq "^ +mandelscope $mode( |$)" "$work/help.txt" || { echo "FAIL: --help does not list the mode '$mode'"; exit 1; }
    "$bin" $mode --help >"$work/mode.txt" 2>&1 || { echo "FAIL: '$mode --help' failed"; cat "$work/mode.txt"; exit 1; }
done
grep -q -- '--backend' "$work/help.txt" || { echo "FAIL: --help does not list the window's options"; exit 1; }
grep -q -- '--version' "$work/help.txt" || { echo "FAIL: --help does not list --version"; exit 1; }

version=$("$bin" --version 2>"$work/err.txt"); rc=$?
echo "--version: $version"
[ $rc -eq 0 ] || { echo "FAIL: --version exited with $rc"; exit 1; }
[ ! -s "$work/err.txt" ] || { echo "FAIL: --version wrote on stderr"; exit 1; }
echo "$version" | grep -Eq '^mandelscope [0-9]+\.[0-9]+\.[0-9]+$' || { echo "FAIL: --version printed '$version'"; exit 1; }
echo "OK"
