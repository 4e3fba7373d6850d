#!/usr/bin/env bash
# Open membership between real peers: three peers of tiny-3server run; a
# fourth, D, started from a file that describes only its own server and with
# --join, learns the grid from A, is given server index 3 and becomes every
# member's partner without anyone restarting. Every peer lists it alive in
# gridctl status, and jobs submitted at A, B and C run on it. Killed, it is
# declared dead by the others, and no job is lost. A fifth, E, joins through
# B and leaves with gridctl leave: it exits by itself and every member lists
# it as left. Each member's partners follow: A, B and C ask every member
# (--partners all), and E asks one drawn (random:1). Who is alive is SWIM's
# gossip (a probe a second here): C, stopped (SIGSTOP) with its links
# still open, is suspected and declared dead; continued, it hears it and
# refutes, and every member holds it alive again at a higher incarnation.
# Over mutual TLS; bounded: 150 s in all.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 TOPOLOGY=$2 PORT=$3
JOBS=30
WORK=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  grep -E "warn|error|critical" "$WORK"/*.log >&2 || true
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C D E F
# Always in the background (exec: the job is the peer itself, so cleanup kills it).
peer() { exec "$BIN/peer/daemon/gridpeer" --tls-dir "$WORK/tls" --time-scale 20000 --probe-interval 1 --log-level info "$@"; }
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
# A member whose own file names one server and the grid's network.
one_server() {
  cat >"$1.toml" <<TOML
name = "site-$1"
[networks.default]
site_mbps = 100
wan_mbps = 10
[[servers]]
name = "$1"
nodes = $2
cpus_per_node = 1
mhz = 1000
site = $3
TOML
}
# Polls gridctl status until the members table (as A sees them) lists
# MEMBER in STATE, for at most 30 s.
member_is() {
  local member=$1 state=$2
  for _ in $(seq 150); do
    # A stopped peer holds its connection open: give up on it soon.
    ctl status --reply-timeout 2 >status.txt 2>/dev/null || true
    if awk -v m="$member" -v s="$state" 'seen && $1 == m && $3 == s { ok = 1 } /^members as/ { seen = 1 }
        END { exit !ok }' status.txt; then return 0; fi
    sleep 0.2
  done
  echo "FAIL: $member never $state; last status:" >&2
  cat status.txt >&2
  return 1
}

declare -A PIDS
for id in A B C; do
  peer --topology "$TOPOLOGY" --id $id --base-port "$PORT" 2>>peers.log &
  PIDS[$id]=$!
done
for _ in $(seq 50); do ctl status --wait 1 >/dev/null 2>&1 && break; sleep 0.1; done

# D joins through A with a file of its own server alone.
one_server D 16 2
peer --topology D.toml --id D --peer D=127.0.0.1:$((PORT + 10)) --join 127.0.0.1:$PORT 2>>D.log &
D_PID=$!
member_is D alive
grep -q "joined the grid through A at 127.0.0.1:$PORT: server 3 of 4" D.log
grep -q "member D joined the grid as server 3 .*joined through this peer" peers.log
# Each of A, B and C asks the member that joined from then on.
for _ in $(seq 50); do
  [[ $(grep -c "asks 3 of 3 members (--partners all): .*D" peers.log) -ge 3 ]] && break
  sleep 0.2
done
[[ $(grep -c "asks 3 of 3 members (--partners all): .*D" peers.log) -eq 3 ]]
# Every member links to it: its row answers and lists the three others.
for _ in $(seq 100); do
  ctl status >status.txt 2>/dev/null || true
  awk '$1 == "D" && /A B C/ { ok = 1 } END { exit !ok }' status.txt && break
  sleep 0.2
done
answers D <status.txt
awk '$1 == "D" && /A B C/ { ok = 1 } END { exit !ok }' status.txt
for id in A B C; do awk -v p=$id '$1 == p && / D / { ok = 1 } END { exit !ok }' status.txt; done

# Jobs at A, B and C: the big, fast member takes some.
ctl replay --workload synthetic --jobs $JOBS --time-scale 20000 --data-size small --seed 5 \
    --manifest manifest.jsonl --wait 60
# And a burst at C (each job takes all of C's CPUs for ten virtual hours)
# spills over: the fastest idle server is the one that joined.
ctl submit --to C --cpus 8 --run 36000 --count 6 >/dev/null
for _ in $(seq 150); do
  ctl results --expect $((3 * JOBS + 6)) --out results.json >/dev/null 2>&1 && break
  sleep 0.2
done
python3 - $((3 * JOBS + 6)) <<'PY'
import json, sys
r = json.load(open("results.json"))
jobs = int(sys.argv[1])
assert r["jobs"] == jobs and r["lost_jobs"] == 0, r
runs = {s["name"]: s["jobs_executed"] for s in r["per_server"]}
assert sum(runs.values()) == jobs, runs
assert runs.get("D", 0) > 0, f"no job ran on the member that joined: {runs}"
print("jobs run per server, D joined:", runs)
PY

# Killed, D is suspect, then dead; nothing accepted is lost.
kill -9 $D_PID
member_is D dead
grep -q "member D is declared dead" peers.log
# ... and none asks it any more: each is back to the two others.
for _ in $(seq 50); do
  [[ $(grep -c "asks 2 of 2 members (--partners all)" peers.log) -ge 6 ]] && break
  sleep 0.2
done
[[ $(grep -c "asks 2 of 2 members (--partners all)" peers.log) -eq 6 ]]  # at the start, and now
ctl results --out after-kill.json --manifest manifest.jsonl >/dev/null
python3 - $((3 * JOBS)) <<'PY'
import json, sys
a = json.load(open("after-kill.json"))["accounting"]
assert a["completed"] == int(sys.argv[1]) and a["in_progress_jobs"] == [], a
PY

# E joins through B, then leaves: it exits by itself, and is listed as left.
one_server E 4 1
peer --topology E.toml --id E --peer E=127.0.0.1:$((PORT + 11)) --join 127.0.0.1:$((PORT + 1)) \
  --partners random:1 --partner-seed 7 2>>E.log &
E_PID=$!
member_is E alive
grep -q "joined the grid through B" E.log
grep -Eq "asks 1 of [34] members \(--partners random:1 --partner-seed 7\): [A-D]$" E.log
ctl leave --to E
for _ in $(seq 100); do kill -0 $E_PID 2>/dev/null || break; sleep 0.1; done
if kill -0 $E_PID 2>/dev/null; then echo "FAIL: E did not exit after gridctl leave" >&2; exit 1; fi
wait $E_PID
member_is E left
grep -q "member E left the grid" peers.log
# C stopped, its sockets open: nothing but the probes can tell. Declared
# dead; continued before its links time out, it refutes.
incarnation_of() { awk -v m="$1" 'seen && $1 == m { print $4 } /^members as/ { seen = 1 }' status.txt | head -1; }
ctl status --reply-timeout 2 >status.txt 2>/dev/null || true
before=$(incarnation_of C)
kill -STOP "${PIDS[C]}"
member_is C dead
kill -CONT "${PIDS[C]}"
member_is C alive
after=$(incarnation_of C)
[[ -n "$before" && -n "$after" ]] && ((after > before)) || {
  echo "FAIL: C is alive again at incarnation ${after:-?}, not above ${before:-?}" >&2; exit 1; }
grep -q "member C is declared dead" peers.log
grep -q "member C is alive again" peers.log
# C itself, run again after the gap, blames no one for it.
grep -q "\[C\] .*was not run for more than a probe interval" peers.log
if grep -Eq "\[C\] .*member [AB] is (suspect|declared dead)" peers.log; then
  echo "FAIL: C, continued, suspected a member for answers it could not read:" >&2
  grep -E "\[C\] .*member [AB] is" peers.log >&2; exit 1
fi
# A join that cannot be answered says so and exits non-zero.
one_server F 4 1
if "$BIN/peer/daemon/gridpeer" --topology F.toml --id F --tls-dir "$WORK/tls" --peer F=127.0.0.1:$((PORT + 12)) \
    --join 127.0.0.1:$((PORT + 9)) 2>F.log; then
  echo "FAIL: a join through nobody succeeded" >&2; exit 1
fi
grep -q "could not join the grid through any of the --join members" F.log
echo "join, jobs on the joiner, death, leave, a suspicion refuted: ok"
