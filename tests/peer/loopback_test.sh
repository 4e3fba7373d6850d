#!/usr/bin/env bash
# Three gridpeer processes on loopback replay a small synthetic slice under
# ALGORITHM (with FLAGS, e.g. --fair, or --busy-poll=US: gridctl then polls
# too); every job must end exactly once
# (gridctl results --expect), and under S-I on this uneven grid some must
# migrate. A peer names its algorithm in its log (si-fair with --fair, si+ai2
# with --site-rule=ai2): every peer must run what was asked. Bounded: 120 s
# in all. Each run works in a directory of its own: runs of one algorithm
# (plain, --fair, --site-rule) run side by side under CTest. Over mutual TLS,
# as every multi-process test (grid_tls.sh).
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 TOPOLOGY=$2 ALGORITHM=$3 PORT=$4 FLAGS=${5:-}
JOBS=12
WORK=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  grep -E "warn|error" "$WORK/peers-$ALGORITHM.log" >&2 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C
for id in A B C; do
  "$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --id $id --base-port "$PORT" --algorithm "$ALGORITHM" \
      --tls-dir "$WORK/tls" --time-scale 20000 --log-level info $FLAGS 2>>peers-$ALGORITHM.log &
done
# Peers that poll before they sleep (--busy-poll=US in FLAGS): gridctl polls as long.
ctl_flags=()
if [[ "$FLAGS" =~ --busy-poll=([0-9]+) ]]; then ctl_flags=(--busy-poll "${BASH_REMATCH[1]}"); fi
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT" "${ctl_flags[@]}"; }
for _ in $(seq 50); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
# The peers run what was asked (a fair peer names its algorithm "si-fair").
if [[ "$FLAGS" == *--fair* ]]; then test "$(grep -c "algorithm $ALGORITHM-fair" peers-$ALGORITHM.log)" = 3; fi
if [[ "$FLAGS" == *--site-rule=* ]]; then
  test "$(grep -c "algorithm $ALGORITHM+${FLAGS#*--site-rule=}" peers-$ALGORITHM.log)" = 3
fi
# --wait returns once every submitted job has its record (bounded: 60 s).
ctl replay --workload synthetic --jobs $JOBS --time-scale 20000 --data-size small --seed 3 \
    --manifest manifest-$ALGORITHM.jsonl --wait 60
ctl results --expect $((3 * JOBS)) --out results-$ALGORITHM.json --manifest manifest-$ALGORITHM.jsonl \
    --jobs-csv jobs-$ALGORITHM.csv --swf jobs-$ALGORITHM.swf >/dev/null
test "$(grep -vc '^;' jobs-$ALGORITHM.swf)" = $((3 * JOBS))
python3 - "$ALGORITHM" <<'PY'
import json, sys
r = json.load(open(f"results-{sys.argv[1]}.json"))
assert r["jobs"] == 36 and r["lost_jobs"] == 0, r
assert sum(s["jobs_executed"] for s in r["per_server"]) == 36
if sys.argv[1] == "local":
    assert r["fraction_transferred"] == 0, r["fraction_transferred"]
print(sys.argv[1], "jobs", r["jobs"], "transferred", r["fraction_transferred"], "avg response", r["avg_response_s"])
# The per-job CSV: every job once, joined with the manifest (its synthetic
# source and position), times on the workload's clock (jobs are handed at or
# after their time, so no job starts before it was submitted in the workload).
import csv
rows = list(csv.DictReader(open(f"jobs-{sys.argv[1]}.csv")))
manifest = [json.loads(line) for line in open(f"manifest-{sys.argv[1]}.jsonl")]
assert len(rows) == 36 and all(row["success"] == "1" for row in rows), len(rows)
by_source = {(m["workload"], m["job_number"]): m for m in manifest}
assert len(by_source) == 36, "manifest sources repeat"
gaps = []
for row in rows:
    m = by_source[(row["workload_name"], int(row["swf_job_number"]))]
    assert m["origin"] == row["origin"], (m, row)
    gaps.append(float(row["submission_time"]) - m["submit_s"])
    assert float(row["starting_time"]) >= float(row["submission_time"])
    assert row["allocated_resources"], row
assert min(gaps) == 0 and all(g >= 0 for g in gaps), gaps
mean_wait = sum(float(row["waiting_time"]) for row in rows) / 36
assert abs(mean_wait - r["avg_wait_s"]) < 1e-3, (mean_wait, r["avg_wait_s"])
print("jobs csv: 36 rows joined with the manifest")
PY
# The manifest is kept: a second replay onto it is refused unless told , and a last line cut short by a killed replay is left out, said so.
if ctl replay --workload synthetic --jobs 1 --manifest manifest-$ALGORITHM.jsonl 2>replay-again.err; then
  echo "FAIL: a second replay overwrote the manifest"; exit 1
fi
grep -q "exists: it accounts for an earlier replay" replay-again.err
{ cat manifest-$ALGORITHM.jsonl; printf '{"index": 99, "origin": "A", "sta'; } >manifest-cut.jsonl
ctl results --manifest manifest-cut.jsonl --out results-cut.json >/dev/null 2>results-cut.err
grep -q "manifest-cut.jsonl:$((3 * JOBS + 1)): the last line is cut short" results-cut.err
python3 -c "
import json; a = json.load(open('results-cut.json'))['accounting']
assert a['handed'] == $((3 * JOBS)) and a['completed'] == $((3 * JOBS)) and a['in_progress_jobs'] == [], a"
ctl shutdown
# Against peers that are gone, results must fail and say so, not print zeros.
# (Peers stop a few ms apart: ask until none answers, at most 5 s; results
# must then fail, saying so.)
gone=0
for _ in $(seq 50); do
  if ! ctl results >results-gone.json 2>results-gone.err && grep -q "no peer of" results-gone.err; then
    gone=1
    break
  fi
  sleep 0.1
done
(( gone )) || { echo "FAIL: results against stopped peers did not fail saying no peer could be reached" >&2; exit 1; }
