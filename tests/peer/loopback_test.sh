#!/usr/bin/env bash
# Three gridpeer processes on loopback replay a small synthetic slice under
# ALGORITHM; every job must end exactly once (gridctl results --expect), and
# under S-I on this uneven grid some must migrate. Bounded: 120 s in all.
set -euo pipefail
BIN=$1 TOPOLOGY=$2 ALGORITHM=$3 PORT=$4
JOBS=12
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
for id in A B C; do
  "$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --id $id --base-port "$PORT" --algorithm "$ALGORITHM" \
      --time-scale 20000 --log-level warn &
done
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
for _ in $(seq 50); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
ctl replay --workload synthetic --jobs $JOBS --time-scale 20000 --data-size small --seed 3
for _ in $(seq 200); do
  if ctl results --expect $((3 * JOBS)) --out results-$ALGORITHM.json >/dev/null 2>&1; then break; fi
  sleep 0.5
done
ctl results --expect $((3 * JOBS)) --out results-$ALGORITHM.json >/dev/null
python3 - "$ALGORITHM" <<'PY'
import json, sys
r = json.load(open(f"results-{sys.argv[1]}.json"))
assert r["jobs"] == 36 and r["lost_jobs"] == 0, r
assert sum(s["jobs_executed"] for s in r["per_server"]) == 36
if sys.argv[1] == "local":
    assert r["fraction_transferred"] == 0, r["fraction_transferred"]
print(sys.argv[1], "jobs", r["jobs"], "transferred", r["fraction_transferred"], "avg response", r["avg_response_s"])
PY
ctl shutdown
