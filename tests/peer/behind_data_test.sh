#!/usr/bin/env bash
# gridctl bench-att --behind-transfers against a real gridpeer on loopback:
# endless transfers staged as a peer stages them, on the queries' own
# connection and then on a separate one, with every query answered and the
# data moving meanwhile; a wrong --transfers-as is refused with a reason.
# The figures themselves (round trips behind data on a shaped link) are
# scripts/control-behind-data's; no time is asserted here. Bounded: each
# query times out after 30 s, and the test after 60.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 SOURCE=$2 PORT=$3
TOPOLOGY=$SOURCE/topologies/tiny-3server.toml
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
GRIDCTL=("$BIN/peer/client/gridctl")
"$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --id A --base-port "$PORT" --algorithm si --log-level warn \
    --shutdown-grace 1 \
    --plaintext 2>"$WORK/peer.log" &
for _ in $(seq 50); do
  answers A <<<"$("${GRIDCTL[@]}" status --topology "$TOPOLOGY" --base-port "$PORT" --plaintext 2>/dev/null || true)" &&
    break
  sleep 0.1
done
# behind NAME ARGS...: one measurement; the last one's connections may still
# be closing on A's side, so "connected already" is tried again.
behind() {
  local name=$1
  shift
  retry_while_connected 50 0.2 "$WORK/$name.err" "${GRIDCTL[@]}" bench-att --topology "$TOPOLOGY" --base-port "$PORT" \
    --plaintext --to A --as B --queries 5 --gap-ms 10 --warm-up-ms 200 --out "$WORK/$name.json" "$@" \
    >"$WORK/$name.txt" || { cat "$WORK/$name.err"; exit 1; }
}
behind same --behind-transfers 2
# The two phases without data (scripts/bench-peers' measurement), with a backlog submitted first.
behind phases --window 4 --backlog 3
behind separate --behind-transfers 3 --transfers-as C
behind baseline --behind-transfers 0
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def check(name, transfers, same, data_as):
    row = json.load(open(f"{work}/{name}.json"))
    assert row["answered"] == 5 and not row["timed_out"], row
    assert row["transfers"] == transfers and row["same_connection"] == same and row["transfers_as"] == data_as, row
    assert row["query_bytes"] > 0 and row["reply_bytes"] > 0, row
    assert 0 < row["round_trip_p50_us"] <= row["round_trip_p99_us"] <= row["round_trip_max_us"], row
    assert (row["staged_mbps"] > 0) == (transfers > 0), row
phases = json.load(open(f"{work}/phases.json"))
assert phases["queries"] == 5 and phases["window"] == 4 and phases["backlog"] == 3, phases
assert phases["queries_per_second"] > 0 and 0 < phases["round_trip_p50_us"] <= phases["round_trip_p99_us"], phases
assert phases["submits_per_second"] > 0 and 0 < phases["submit_p50_us"], phases
check("same", 2, True, "B")
check("separate", 3, False, "C")
check("baseline", 0, True, "B")
PY
grep -q "behind 3 endless transfer(s) of 65536-byte chunks from C on a separate connection" "$WORK/separate.txt"
if "${GRIDCTL[@]}" bench-att --topology "$TOPOLOGY" --base-port "$PORT" --plaintext --to A --as B --behind-transfers 1 \
    --transfers-as A 2>"$WORK/wrong.err"; then
  echo "--transfers-as naming the measured peer was accepted"; exit 1
fi
grep -q "must name a third server" "$WORK/wrong.err" || { cat "$WORK/wrong.err"; exit 1; }
kill -0 %1 || { echo "the peer died:"; cat "$WORK/peer.log"; exit 1; }
echo "behind-data: every query answered on the same and on a separate connection"
