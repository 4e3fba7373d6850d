#!/usr/bin/env bash
# A full disk under a journaled peer: a journal write that fails used to hang
# the peer without a word (it answered nothing, logged nothing, never exited).
# Now it logs the file, SQLite's error and what it was writing, and exits
# with status 74 at once, acknowledging nothing it could not sync; started
# again on free space it recovers every job it had acknowledged, and each of
# them completes exactly once. The disk is a 1 MiB tmpfs this test mounts,
# which needs root: without it the test is skipped (status 77), saying so.
# Over TLS on loopback. Bounded: 300 submissions, every wait 30 s at most.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 TOPOLOGY=$2 PORT=$3
WORK=$(mktemp -d)
DISK=$WORK/disk
mkdir -p "$DISK"
if ! mount -t tmpfs -o size=1m gridpeer-disk-full "$DISK" 2>/dev/null; then
  echo "SKIP: mounting a small tmpfs needs root (this test fills a disk under a journaled peer)"
  rm -rf "$WORK"
  exit 77
fi
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  umount "$DISK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
fail() { echo "FAIL: $*"; exit 1; }
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C
ctl() { "$BIN/peer/client/gridctl" "$@" --topology "$TOPOLOGY" --base-port "$PORT"; }
start_a() {
  "$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --base-port "$PORT" --tls-dir "$WORK/tls" --id A \
      --state-dir "$DISK/state-a" --time-scale 10000 --log-level info 2>>a.log &
  A=$!
  for _ in $(seq 200); do answers A <<<"$(ctl status 2>/dev/null || true)" && return; sleep 0.1; done
  cat a.log; fail "A did not start"
}
start_a
# Jobs acknowledged while there is room (20,000 s at time scale 10,000: 2 s each).
ctl submit --to A --count 8 --run 20000 >acked.txt
# Fill the disk to the last byte.
dd if=/dev/zero of="$DISK/filler" bs=4k 2>/dev/null || true
df -k "$DISK" | tail -1
# Submit one job at a time (each acknowledged only after its commit) until
# the peer stops answering; every printed id was acknowledged.
for i in $(seq 300); do
  ctl submit --to A --run 20000 >>acked.txt 2>>submit.err || break
done
status=0
for _ in $(seq 200); do kill -0 "$A" 2>/dev/null || break; sleep 0.1; done
kill -0 "$A" 2>/dev/null && { tail -5 a.log; fail "A still runs on a full disk after $(wc -l <acked.txt) acknowledged jobs"; }
wait "$A" || status=$?
echo "A exited with status $status after $(wc -l <acked.txt) acknowledged jobs"
[[ $status == 74 ]] || { tail -5 a.log; fail "exit status $status, not 74"; }
grep -q "\[critical\] .*journal write failed: $DISK/state-a/journal.sqlite: .*database or disk is full.*, writing [0-9]* job entries" a.log ||
  { tail -5 a.log; fail "no log line naming the file, SQLite's error and what was written"; }
# Free space, start again: every acknowledged job comes back and completes once.
rm -f "$DISK/filler"
start_a
grep -q "recovered from .*: [0-9]* own jobs decided again" a.log || fail "A recovered nothing"
acked=$(wc -l <acked.txt)
for _ in $(seq 300); do
  { ctl results --records records.jsonl >/dev/null 2>&1 || true; } && (( $(wc -l <records.jsonl) >= acked )) && break
  sleep 0.1
done
python3 - <<'PY'
import json
acked = [int(x) for x in open("acked.txt")]
records = [json.loads(line) for line in open("records.jsonl")]
ids = [r["id"] for r in records]
assert len(ids) == len(set(ids)), "a job ended twice"
missing = set(acked) - set(ids)
assert not missing, f"{len(missing)} acknowledged jobs lost: {sorted(missing)[:5]}"
assert set(ids) <= set(acked), "a job nobody acknowledged ran"
assert all(r["outcome"] == "completed" for r in records), [r for r in records if r["outcome"] != "completed"][:3]
print(f"all {len(acked)} acknowledged jobs completed once after the restart")
PY
echo "disk full test: ok"
