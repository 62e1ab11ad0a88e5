#!/usr/bin/env bash
# deploy/ checked with Prometheus' own promtool: the scrape configuration (as shipped, and
# with the example agents' targets file in place), every alert rule file, every promtool
# unit test of the rules, the contract's families file, and check_exprs.py (every rule and
# dashboard expression reads only families of the contract).
# Exits 77 (ctest: skipped) when promtool is not installed (scripts/install-deps.sh installs
# Debian's prometheus package, which carries it).
# Usage: deploy_test.sh   (PROMTOOL=/path/to/promtool to use another one)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROMTOOL=${PROMTOOL:-promtool}
FAMILIES=$ROOT/tests/deploy/testdata/expected_families.prom

if ! command -v "$PROMTOOL" >/dev/null 2>&1; then
  echo "SKIP: promtool not found (install Debian's prometheus package: scripts/install-deps.sh)"
  exit 77
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

step() { echo "== $*"; }

step "promtool check config (as shipped)"
"$PROMTOOL" check config "$ROOT/deploy/prometheus/prometheus.yml"

# The same configuration reading the example targets file: file_sd's format is checked too.
step "promtool check config (with targets/agents.json.example as agents.json)"
cp -r "$ROOT/deploy/prometheus" "$WORK/prometheus"
cp "$WORK/prometheus/targets/agents.json.example" "$WORK/prometheus/targets/agents.json"
"$PROMTOOL" check config "$WORK/prometheus/prometheus.yml"

for rules in "$ROOT"/deploy/prometheus/rules/*.yaml; do
  step "promtool check rules ${rules#"$ROOT"/}"
  "$PROMTOOL" check rules "$rules"
done

for tests in "$ROOT"/deploy/prometheus/tests/*.yaml; do
  step "promtool test rules ${tests#"$ROOT"/}"
  "$PROMTOOL" test rules "$tests"
done

# `promtool check metrics` exits 1 on a parse error and 3 on lint notes. The notes are about
# names etna keeps on purpose, because they are what Volcano and dcgm-exporter publish and
# what existing rules and dashboards query: counters without _total
# (volcano_total_preemption_attempts, DCGM's counters), milliseconds instead of seconds,
# gauges ending in _count, DCGM's upper-case names and camelCase labels (modelName,
# Hostname). So only a parse error fails the test.
step "promtool check metrics < ${FAMILIES#"$ROOT"/}"
status=0
"$PROMTOOL" check metrics <"$FAMILIES" 2>"$WORK/lint.txt" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  cat "$WORK/lint.txt" >&2
  echo "FAIL: promtool check metrics could not parse $FAMILIES (exit $status)" >&2
  exit 1
fi
echo "parsed; $(wc -l <"$WORK/lint.txt") lint notes on Volcano's and DCGM's names (expected)"

step "check_exprs.py --metrics ${FAMILIES#"$ROOT"/}"
/usr/bin/python3 "$ROOT/tests/deploy/check_exprs.py" --metrics "$FAMILIES"

echo "PASS: deploy/"
