#!/usr/bin/env bash
# make bench-openb: replays the openb trace (default + cpu* + gpushare* pod lists) with every
# policy, seeds 42-51, tune 1.3, prints the OPENB lines and then a table of our allocation at
# 100 % and 130 % arrived beside the published means (fgd_expected_results).
#
# Usage: scripts/bench-openb.sh [BUILD_DIR]   (env: ETNA_OPENB_DATA, SEEDS, POLICIES, OUT)
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${ETNA_OPENB_DATA:-$ROOT/testdata/openb}
SEEDS=${SEEDS:-42-51}
POLICIES=${POLICIES:-random,dotprod,gpuclustering,gpupacking,bestfit,fgd,etna}
OUT=${OUT:-$BUILD/bench-openb}
ETNA=$BUILD/src/cli/etna
if [[ ! -d $DATA ]]; then
  echo "bench-openb: openb data not found at $DATA (set ETNA_OPENB_DATA)" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT"
LINES=$OUT/openb-lines.txt
: >"$LINES"
for f in "$DATA"/openb_pod_list_default.csv "$DATA"/openb_pod_list_cpu*.csv \
         "$DATA"/openb_pod_list_gpushare*.csv; do
  [[ -f $f ]] || continue
  "$ETNA" sim openb --data "$DATA" --pods "$f" --policy "$POLICIES" --seeds "$SEEDS" \
    --tune 1.3 --out "$OUT" | tee -a "$LINES"
done
echo
python3 - "$LINES" "$DATA/fgd_expected_results/analysis_allo_discrete.csv" <<'PY'
import csv, sys
lines, published = sys.argv[1], sys.argv[2]
names = {"random": "01-Random", "dotprod": "02-DotProd", "gpuclustering": "03-GpuClustering",
         "gpupacking": "04-GpuPacking", "bestfit": "05-BestFit", "fgd": "06-FGD"}
pub = {}
with open(published) as f:
    for row in csv.DictReader(f):
        k = (row["workload"], row["sc_policy"])
        pub.setdefault(k, []).append((float(row["100"]), float(row["130"])))
def mean(xs): return sum(xs) / len(xs)
print(f"{'workload':<28} {'policy':<14} {'ours@100':>9} {'pub@100':>8} {'diff':>6} "
      f"{'ours@130':>9} {'pub@130':>8} {'diff':>6} {'unalloc@130':>11} {'sec':>6}")
for line in open(lines):
    kv = dict(p.split("=", 1) for p in line.split()[1:])
    w, pol = kv["workload"], kv["policy"]
    a100, a130 = float(kv["alloc_at_100"]), float(kv["alloc_at_130"])
    ref = pub.get((w, names.get(pol, "07-FGD-vs")))
    if pol == "etna":
        ref = pub.get((w, "06-FGD"))  # etna is compared with the published FGD
    if ref:
        p100, p130 = mean([r[0] for r in ref]), mean([r[1] for r in ref])
        cols = f"{p100:8.2f} {a100 - p100:+6.2f} {a130:9.2f} {p130:8.2f} {a130 - p130:+6.2f}"
    else:
        cols = f"{'-':>8} {'-':>6} {a130:9.2f} {'-':>8} {'-':>6}"
    label = pol if pol != "etna" else "etna (vs FGD)"
    print(f"{w:<28} {label:<14} {a100:9.2f} {cols} {float(kv['unalloc_gpus_at_130']):11.1f} "
          f"{float(kv['seconds']):6.1f}")
PY
