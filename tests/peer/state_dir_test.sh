#!/usr/bin/env bash
# A peer's journal (issue 19, first part): with --state-dir, a peer counts its
# incarnation up at every start, synced before it numbers a job, so that a
# peer killed with kill -9 and started again never gives a job an id an
# earlier run gave (an executor remembering the old job answered the new one
# "hosting" and never ran it). A directory holding another peer's state is
# refused at start-up. Over TLS. Bounded: 30 s.
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
  "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --log-level info 2>>a.log &
  A=$!
  for _ in $(seq 100); do grep -q "^A " <<<"$(ctl status 2>/dev/null || true)" && return; sleep 0.1; done
  echo "FAIL: A did not start"; cat a.log; exit 1
}
start_a
ctl submit --to A --count 3 --run 600 >ids-1.txt
kill -9 "$A"; wait "$A" 2>/dev/null || true
start_a
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
# B may not take A's journal.
if "${gridpeer[@]}" --id B --state-dir "$WORK/state-a" 2>b.err; then echo "FAIL: B started on A's journal"; exit 1; fi
grep -q "holds the state of peer 'A'" b.err
echo "state dir test: ok"
