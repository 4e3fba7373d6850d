#!/usr/bin/env bash
# Ang et al.'s grouping between real peers (Ang et al. 2007): three
# gridpeer processes of tiny-3server run S-I with --bag-grouping ba; a bag of
# 40 one-second jobs goes to A in one submitBag frame. A asks B and C once,
# groups the bag by RMI = MIPS x 10 s over itself (500 MHz: 10 jobs), B (500:
# 10) and C (1000: 20) -- widest path first: A, B (A's site), C -- and every
# job ends exactly once where its group ran. Bounded: 60 s in all.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 TOPOLOGY=$2 PORT=$3
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C
for id in A B C; do
  "$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --id $id --base-port "$PORT" --algorithm si --tls-dir tls \
      --bag-grouping ba --granularity 10 --log-level info 2>>peers.log &
done
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
for _ in $(seq 100); do
  test "$(grep -c "peer . connected" peers.log)" -ge 6 && break
  sleep 0.1
done
test "$(grep -c "algorithm si+bag-ba" peers.log)" = 3
ctl submit --to A --bag 1 --count 40 --run 1 >ids.txt
test "$(wc -l <ids.txt)" = 40
for _ in $(seq 300); do
  ctl results --out results.json >/dev/null 2>&1 && python3 -c "
import json, sys; sys.exit(0 if json.load(open('results.json'))['jobs'] == 40 else 1)" && break
  sleep 0.1
done
ctl results --expect 40 --out results.json --records records.jsonl >/dev/null
python3 - <<'PY'
import collections, json
records = [json.loads(line) for line in open("records.jsonl")]
assert len(records) == 40 and len({r["id"] for r in records}) == 40, len(records)
where = collections.Counter(r["executed_on"] for r in records)
print("bag of 40 ran on", dict(where))
assert where == {"A": 10, "B": 10, "C": 20} or where == {0: 10, 1: 10, 2: 20}, where
PY
echo "bag loopback test: ok"
