#!/usr/bin/env bash
# Runs every benchmark binary in the build folder given as $1 and prints its BENCH lines.
set -euo pipefail
build=${1:-build}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  "$b"
done
