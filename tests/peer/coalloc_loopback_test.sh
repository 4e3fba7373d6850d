#!/usr/bin/env bash
# Co-allocation between real peers (Jones et al. 2004 among peers): three
# gridpeer processes of tiny-3server (A and B 8 x 1 CPUs, C 4 x 2) run S-I
# with --coallocation a1. A 12-CPU job fits no server: A asks B and C, splits
# it (A1 over 1000 Mb/s links allows any split: the largest first, A 8 and
# B 4), holds both parts, starts them at one instant and ends them together;
# gridctl results lists its parts and their links' shares. A second job, as
# wide as the whole grid plus one, could never be split over it: it is
# rejected with the reason. Bounded: 60 s in all.
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
      --coallocation a1 --log-level info 2>>peers.log &
done
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
for _ in $(seq 100); do
  test "$(grep -c "peer . connected" peers.log)" -ge 6 && break
  sleep 0.1
done
test "$(grep -c "algorithm si+split-a1" peers.log)" = 3
ctl submit --to A --cpus 12 --run 60 >split.txt
ctl submit --to A --cpus 25 --run 60 >never.txt
for _ in $(seq 300); do
  ctl results --out results.json >/dev/null 2>&1 && python3 -c "
import json, sys; sys.exit(0 if json.load(open('results.json'))['jobs'] == 1 else 1)" && break
  sleep 0.1
done
ctl results --expect 2 --out results.json --records records.jsonl >/dev/null
python3 - "$(cat split.txt)" "$(cat never.txt)" <<'PY'
import json, sys
records = {r["id"]: r for r in (json.loads(line) for line in open("records.jsonl"))}
assert len(records) == 2, records
never = records[int(sys.argv[2])]
assert never["outcome"] == "rejected" and "25 CPUs" in never["reason"], never
job = records[int(sys.argv[1])]
assert job["id"] == int(sys.argv[1]) and job["outcome"] == "completed", job
parts = {p["server"]: p["cpus"] for p in job["parts"]}
assert parts == {"A": 8, "B": 4}, parts
assert all(p["lowest_share"] == 1 for p in job["parts"]), job["parts"]
assert job["executed_on"] == "A" and job["cpus"] == 12, job
print("split job ran as", parts, "from", job["start_s"], "to", job["finish_s"])
PY
grep -q "split over 2 servers (server:CPUs@share): A:8@1 B:4@1" peers.log
echo "co-allocation loopback test: ok"
