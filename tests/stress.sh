#!/usr/bin/env bash
# Run system tests N times with both cores kept busy, and print each test's failures.
#
#   tests/stress.sh N [PYTEST ARGS...]     e.g.  tests/stress.sh 5 tests/system/game/test_faults.py
#
# With no test paths it runs the whole system tier.  stress-ng (Debian package stress-ng)
# keeps every core busy the whole time; it is installed with apt-get when missing.  The
# runs use the README's parallelism (-n 3).  It exits 1 if any run had a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: tests/stress.sh N [pytest args...]}
shift
[ "$#" -gt 0 ] || set -- tests/system
if ! command -v stress-ng >/dev/null; then
  apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null || { echo "stress.sh: needs stress-ng (apt-get install stress-ng)" >&2; exit 2; }
fi
log=$(mktemp -d "${TMPDIR:-/tmp}/arena-stress.XXXXXX")
stress-ng --cpu "$(nproc)" --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$runs"); do
  out="$log/run-$i.txt"
  python -m pytest -n 3 -q -p no:cacheprovider "$@" >"$out" 2>&1
  rc=$?
  echo "run $i/$runs: $(tail -n 1 "$out")"
  if [ "$rc" -ne 0 ]; then
    failed=1
    grep -E '^(FAILED|ERROR) ' "$out" | sed 's/^/    /'
  fi
done
echo
echo "failures by test over $runs runs (logs in $log):"
cat "$log"/run-*.txt | grep -E '^(FAILED|ERROR) ' | sed -E 's/ - .*//' | sort | uniq -c | sort -rn || true
[ "$failed" -eq 0 ] && echo "none"
exit "$failed"
