#!/usr/bin/env bash
# Builds the API codec's libFuzzer targets (src/api/fuzz/*_fuzz.cc) with clang, ASan and UBSan
# into build-fuzz/, and runs each for N seconds (default 60). Exits non-zero on any crash, leak,
# timeout or sanitizer report; the crashing input is left in build-fuzz/artifacts/.
#   scripts/fuzz.sh [seconds-per-target] [target...]
set -euo pipefail

SECONDS_PER_TARGET=${1:-60}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
CXX=${FUZZ_CXX:-clang++-14}
JOBS=${FUZZ_JOBS:-2}
COMMON=(-std=c++20 -O1 -g -fno-omit-frame-pointer -I"$ROOT/src")
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all)

TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(json_decode yaml_decode label_selector field_selector patch protobuf_decode)
fi
command -v "$CXX" >/dev/null || { echo "fuzz: $CXX not found (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$OUT/obj" "$OUT/corpus" "$OUT/artifacts"

# The codec library (without its tests) and Status, compiled once; rebuilt when any source or
# header under src/api/codec or src/common is newer than the object.
LIB_SRCS=()
for f in "$ROOT"/src/api/codec/*.cc "$ROOT/src/common/status.cc" "$ROOT/src/common/base64.cc"; do
  case "$f" in *_test.cc) continue ;; esac
  LIB_SRCS+=("$f")
done
newest_header=$(ls -t "$ROOT"/src/api/codec/*.h "$ROOT"/src/common/*.h | head -1)
compile() {  # compile SRC OBJ
  local src=$1 obj=$2
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
    echo "fuzz: compiling ${src#"$ROOT"/}"
    "$CXX" "${COMMON[@]}" "${SAN[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
}
pids=()
OBJS=()
for src in "${LIB_SRCS[@]}" ; do
  obj="$OUT/obj/$(basename "${src%.cc}").o"
  OBJS+=("$obj")
done
for t in "${TARGETS[@]}"; do
  src="$ROOT/src/api/fuzz/${t}_fuzz.cc"
  [ -f "$src" ] || { echo "fuzz: no target $t ($src)" >&2; exit 1; }
done
# Compile with at most JOBS at once.
all_srcs=("${LIB_SRCS[@]}")
for t in "${TARGETS[@]}"; do all_srcs+=("$ROOT/src/api/fuzz/${t}_fuzz.cc"); done
for src in "${all_srcs[@]}"; do
  compile "$src" "$OUT/obj/$(basename "${src%.cc}").o" &
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
  obj="$OUT/obj/${t}_fuzz.o"
  if [ ! -f "$bin" ] || [ "$obj" -nt "$bin" ] || [ -n "$(find "${OBJS[@]}" -newer "$bin" 2>/dev/null)" ]; then
    "$CXX" "${COMMON[@]}" "${SAN[@]}" -fsanitize=fuzzer "$obj" "${OBJS[@]}" -lyaml-cpp -lfmt \
      -o "$bin"
  fi
  corpus="$OUT/corpus/$t"
  seeds="$ROOT/src/api/fuzz/corpus/$t"
  mkdir -p "$corpus"
  log="$OUT/$t.log"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s"
  if "$bin" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$OUT/artifacts/$t-" -print_final_stats=1 "$corpus" "$seeds" \
      >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$log" | tr '\n' ' ' || true
    echo
  else
    echo "fuzz: $t FAILED (log: ${log#"$ROOT"/}, artifacts: ${OUT#"$ROOT"/}/artifacts/)" >&2
    tail -40 "$log" >&2
    status=1
  fi
done
exit $status
