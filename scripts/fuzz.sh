#!/usr/bin/env bash
# Builds the libFuzzer targets src/fuzz/<name>_fuzz.cc with clang, ASan and UBSan into
# build-fuzz/, and runs each for N seconds (default 60). Exits non-zero on any crash, leak,
# timeout or sanitizer report; the crashing input is left in build-fuzz/artifacts/.
#   scripts/fuzz.sh [seconds-per-target] [target...]   (0 s: until a failure; no target: all)
#
# A target names the sources it links in comment lines of its own file, as paths or globs
# relative to the repository (** spans folders); *_test.cc and files under testing/ folders
# are left out of what a glob matches:
#   // fuzz-sources: src/api/codec/*.cc src/common/status.cc
# Every source is compiled once into build-fuzz/obj/<its path>.o (so two files may share a
# name) and again only when it, or a header it includes (clang's -MMD list), is newer.
# Seeds: src/fuzz/corpus/<name>/ (read only); the growing corpus: build-fuzz/corpus/<name>/.
# Environment: FUZZ_JOBS (parallel compiles, default 2), FUZZ_CXX, FUZZ_OUT.
set -euo pipefail
shopt -s globstar nullglob

SECONDS_PER_TARGET=${1:-60}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_DIR="$ROOT/src/fuzz"
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
CXX=${FUZZ_CXX:-clang++-14}
JOBS=${FUZZ_JOBS:-2}
COMMON=(-std=c++20 -O1 -gline-tables-only -fno-omit-frame-pointer -I"$ROOT/src")
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all)
LIBS=(-lyaml-cpp -lfmt)

TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  for f in "$FUZZ_DIR"/*_fuzz.cc; do
    f=${f##*/}
    TARGETS+=("${f%_fuzz.cc}")
  done
fi
command -v "$CXX" >/dev/null || { echo "fuzz: $CXX not found (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$OUT/obj" "$OUT/corpus" "$OUT/artifacts"

# sources_of TARGET: the target's own file, then what its fuzz-sources lines name, one a line.
sources_of() {
  local file="$FUZZ_DIR/$1_fuzz.cc" patterns pattern path glob matched
  echo "$file"
  read -ra patterns <<<"$(sed -n 's|^// *fuzz-sources:||p' "$file" | tr '\n' ' ')"
  for pattern in "${patterns[@]}"; do
    glob=0
    case "$pattern" in *[*?[]*) glob=1 ;; esac
    matched=0
    for path in "$ROOT"/$pattern; do
      [ -f "$path" ] || continue
      if [ $glob -eq 1 ]; then
        case "$path" in *_test.cc | */testing/*) continue ;; esac
      fi
      matched=1
      echo "$path"
    done
    [ $matched -eq 1 ] || { echo "fuzz: $1: \"$pattern\" matches no source" >&2; return 1; }
  done
}
object_of() {  # src/a/b.cc -> build-fuzz/obj/src/a/b.o
  local rel=${1#"$ROOT"/}
  echo "$OUT/obj/${rel%.cc}.o"
}
# stale OBJ: whether OBJ is missing, or older than a file its dependency list names, or that
# list names a file that is gone.
stale() {
  local obj=$1 dep=${1%.o}.d f
  [ -f "$obj" ] && [ -f "$dep" ] || return 0
  for f in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$dep"); do
    [ -e "$f" ] && [ ! "$f" -nt "$obj" ] || return 0
  done
  return 1
}
compile() {  # compile SRC OBJ
  local src=$1 obj=$2
  mkdir -p "$(dirname "$obj")"
  echo "fuzz: compiling ${src#"$ROOT"/}"
  "$CXX" "${COMMON[@]}" "${SAN[@]}" -fsanitize=fuzzer-no-link -MMD -MF "${obj%.o}.d" \
    -c "$src" -o "$obj"
}

# Every source of every chosen target, once, with at most JOBS compiles at a time.
declare -A TARGET_SRCS
declare -A SEEN
all_srcs=()
for t in "${TARGETS[@]}"; do
  [ -f "$FUZZ_DIR/${t}_fuzz.cc" ] || { echo "fuzz: no target $t ($FUZZ_DIR/${t}_fuzz.cc)" >&2; exit 1; }
  srcs=$(sources_of "$t")
  TARGET_SRCS[$t]=$srcs
  for src in $srcs; do
    [ -n "${SEEN[$src]:-}" ] && continue
    SEEN[$src]=1
    all_srcs+=("$src")
  done
done
pids=()
for src in "${all_srcs[@]}"; do
  obj=$(object_of "$src")
  stale "$obj" || continue
  compile "$src" "$obj" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p"; done

status=0
for t in "${TARGETS[@]}"; do
  bin="$OUT/${t}_fuzz"
  objs=()
  for src in ${TARGET_SRCS[$t]}; do objs+=("$(object_of "$src")"); done
  if [ ! -f "$bin" ] || [ -n "$(find "${objs[@]}" -newer "$bin" 2>/dev/null)" ]; then
    echo "fuzz: linking ${bin#"$ROOT"/}"
    "$CXX" "${COMMON[@]}" "${SAN[@]}" -fsanitize=fuzzer "${objs[@]}" "${LIBS[@]}" -o "$bin"
  fi
  corpus="$OUT/corpus/$t"
  seeds="$FUZZ_DIR/corpus/$t"
  mkdir -p "$corpus"
  log="$OUT/$t.log"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s"
  if "$bin" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$OUT/artifacts/$t-" -print_final_stats=1 "$corpus" "$seeds" \
      >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$log" | tr '\n' ' ' || true
    echo "corpus: $(find "$corpus" -type f | wc -l) files"
  else
    echo "fuzz: $t FAILED (log: ${log#"$ROOT"/}, artifacts: ${OUT#"$ROOT"/}/artifacts/)" >&2
    tail -40 "$log" >&2
    status=1
  fi
done
exit $status
