#!/usr/bin/env bash
# A peer's journal: with --state-dir, a peer counts its
# incarnation up at every start, synced before it numbers a job, so that a
# peer killed with kill -9 and started again never gives a job an id an
# earlier run gave (an executor remembering the old job answered the new one
# "hosting" and never ran it); the jobs it acknowledged come back with it
# (gridctl status shows them recovered) and run to their end, each record
# saying it ran again. A directory holding another peer's state is refused at
# start-up. Over TLS. Bounded: 30 s.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 TOPOLOGY=$2 PORT=$3
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C
gridpeer=("$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --base-port "$PORT" --tls-dir "$WORK/tls")
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
start_a() {
  "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100 --log-level info 2>>a.log &
  A=$!
  for _ in $(seq 100); do answers A <<<"$(ctl status 2>/dev/null || true)" && return; sleep 0.1; done
  echo "FAIL: A did not start"; cat a.log; exit 1
}
start_a
ctl submit --to A --count 3 --run 600 >ids-1.txt
kill -9 "$A"; wait "$A" 2>/dev/null || true
start_a
ctl status >status-2.txt || true  # B and C are not running
# The three jobs of the first start came back: A's status says so (start 2, recovered 3).
awk '$1 == "A" { exit !($13 == 2 && $14 == 3) }' status-2.txt ||
  { echo "FAIL: A did not recover its 3 jobs"; cat status-2.txt a.log; exit 1; }
grep -q "recovered from .*: 3 own jobs decided again" a.log
ctl submit --to A --count 3 --run 600 >ids-2.txt
{ grep -q "incarnation 1 (journal" a.log && grep -q "incarnation 2 (journal" a.log; } ||
  { echo "FAIL: the incarnation was not counted up"; cat a.log; exit 1; }
python3 - <<'PY'
first = [int(x) for x in open("ids-1.txt")]
second = [int(x) for x in open("ids-2.txt")]
assert len(first) == len(second) == 3, (first, second)
assert not set(first) & set(second), f"ids repeat across the restart: {first} {second}"
# origin A (0) in the top bits, the incarnation in the 16 above the 24-bit counter.
assert all(i >> 40 == 0 for i in first + second)
assert {(i >> 24) & 0xFFFF for i in first} == {1} and {(i >> 24) & 0xFFFF for i in second} == {2}, (first, second)
print("ids before the kill:", first, "after:", second)
PY
# All six end (600 s each on 8 CPUs at time scale 100: 6 s), the first three run again.
for _ in $(seq 150); do
  { ctl results --records records.jsonl >/dev/null 2>&1 || true; } && [[ $(wc -l <records.jsonl) == 6 ]] && break
  sleep 0.1
done
python3 - <<'PY'
import json
records = {r["id"]: r for r in map(json.loads, open("records.jsonl"))}
first = [int(x) for x in open("ids-1.txt")]
second = [int(x) for x in open("ids-2.txt")]
assert sorted(records) == sorted(first + second), sorted(records)
assert all(records[i]["outcome"] == "completed" for i in records), records
assert [records[i]["recoveries"] for i in first] == [1, 1, 1], [records[i]["recoveries"] for i in first]
assert [records[i]["recoveries"] for i in second] == [0, 0, 0]
print("all six completed; the first three ran again after the kill")
PY
# B may not take A's journal (A stopped: while it runs, the directory's lock refuses B first).
kill "$A"; wait "$A" 2>/dev/null || true
if "${gridpeer[@]}" --id B --state-dir "$WORK/state-a" 2>b.err; then echo "FAIL: B started on A's journal"; exit 1; fi
grep -q "holds the state of peer 'A'" b.err
echo "state dir test: ok"
