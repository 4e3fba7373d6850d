#!/usr/bin/env bash
# What an unlucky operator meets, against the real gridpeer over TLS on
# loopback; each must end in a refusal that names the cause, never in a peer
# that starts on bad state or hangs:
#  1. an epoch that, at the time scale, puts virtual time past the end of the
#     grid's time: refused at start-up;
#  2. the same epoch kept in a peer's journal: refused at start-up, naming it;
#  3. a second process on a state directory: refused at once with the pid
#     that holds it, before it counts an incarnation (the first one's jobs
#     ran twice); on the same ports too;
#  4. a damaged jobs page, a damaged results page, a 0-byte journal and a
#     row out of bounds: each refused at start-up by name, exit status 2;
#     --init-state starts a new member over an empty file, never over a journal.
# Bounded: every wait loop 10 s at most.
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
fail() { echo "FAIL: $*"; exit 1; }
# refused WHAT LOG PATTERN -- gridpeer ARGS...: must exit 2 within 10 s, saying PATTERN.
refused() {
  local what=$1 log=$2 pattern=$3
  shift 4
  local status=0
  timeout 10 "$@" 2>"$log" || status=$?
  [[ $status == 2 ]] || { cat "$log"; fail "$what: exit status $status, not 2"; }
  grep -q -- "$pattern" "$log" || { cat "$log"; fail "$what: no '$pattern' in the log"; }
  echo "refused as it should: $what"
}
start_a() {
  "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100 --log-level info 2>>a.log &
  A=$!
  for _ in $(seq 100); do answers A <<<"$(ctl status 2>/dev/null || true)" && return; sleep 0.1; done
  cat a.log; fail "A did not start"
}
sql() { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit(); c.close()' "$@"; }

# 1. 2010-01-01 at time scale 1000: 16,900 years of virtual time.
refused "an epoch past the end at its time scale" epoch.log "puts virtual time 169[0-9][0-9] years in" -- \
    "${gridpeer[@]}" --id B --epoch-unix-us 1262304000000000 --time-scale 1000 --state-dir "$WORK/state-b"
[[ -e state-b ]] && fail "a refused start made its state directory"

# 3. A runs with a journal; a second A on the same directory is refused with
#    A's pid, on other ports and on the same ones, and spends no incarnation.
start_a
ctl submit --to A --count 3 --run 100000 >ids.txt
refused "a second process on A's directory (other ports)" second.log "is in use by another gridpeer (pid $A," -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --base-port $((PORT + 10))
refused "a second process on A's directory (same ports)" second-same.log "is in use by another gridpeer (pid $A," -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a"
ctl status >status.txt 2>/dev/null || true
awk '$1 == "A" { exit !($13 == 1) }' status.txt || { cat status.txt; fail "A's incarnation moved"; }
kill -0 "$A" || fail "A died"

# Results to damage: three short jobs end (0.6 s each at scale 100), three long ones stay queued or running.
ctl submit --to A --count 3 --run 60 >/dev/null
for _ in $(seq 100); do
  { ctl results --records records.jsonl >/dev/null 2>&1 || true; } && [[ $(wc -l <records.jsonl) == 3 ]] && break
  sleep 0.1
done
[[ $(wc -l <records.jsonl) == 3 ]] || fail "the short jobs did not end"
kill -9 "$A"; wait "$A" 2>/dev/null || true
# Everything into the main file (a kill -9 leaves it in the write-ahead log).
sql state-a/journal.sqlite 'PRAGMA wal_checkpoint(TRUNCATE);'
cp -r state-a pristine

# 2. The journal keeps 2010 as the grid's epoch, A runs at 1000.
sql state-a/journal.sqlite "UPDATE peer SET value = 1262304000000000 WHERE key = 'epoch_unix_us';"
refused "a journaled epoch past the end" kept-epoch.log "the epoch kept in $WORK/state-a/journal.sqlite" -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 1000
grep -q "start a new grid" kept-epoch.log || fail "the refusal does not say what to do"

# 4. Damaged journals, each by name.
damage_page() {  # damage_page DIR TABLE: the table's root page overwritten
  python3 - "$1/journal.sqlite" "$2" <<'PY'
import sqlite3, sys
path, table = sys.argv[1], sys.argv[2]
c = sqlite3.connect(path)
root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
size = c.execute("PRAGMA page_size").fetchone()[0]
c.close()
with open(path, "r+b") as f:
    f.seek((root - 1) * size)
    f.write(b"\xff" * size)
PY
}
for table in jobs results; do
  rm -rf state-a && cp -r pristine state-a
  damage_page state-a "$table"
  refused "a damaged $table page" "damaged-$table.log" "reading table $table" -- \
      "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100
  grep -q "the journal is damaged" "damaged-$table.log" || fail "the $table refusal does not say the journal is damaged"
done
rm -rf state-a && cp -r pristine state-a
sql state-a/journal.sqlite "UPDATE results SET body = json_set(body, '\$.cpus', -8) WHERE seq = (SELECT min(seq) FROM results);"
refused "a results row with cpus -8" row.log "table results, row [0-9]*: cpus must be between 1 and 1048576, not -8" -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100
rm -rf state-a && mkdir state-a && : >state-a/journal.sqlite
refused "a 0-byte journal" empty.log "is empty (0 bytes), so it is not a journal" -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100
# A new member over the empty file: --init-state moves it aside.
start_a_new() {
  "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100 --init-state 2>init.log &
  A=$!
  for _ in $(seq 100); do answers A <<<"$(ctl status 2>/dev/null || true)" && return; sleep 0.1; done
  cat init.log; fail "A did not start with --init-state"
}
start_a_new
grep -q "incarnation 1 (journal .*journal.sqlite, new: --init-state moved the empty file to" init.log ||
  { cat init.log; fail "--init-state did not say what it did"; }
kill "$A"; wait "$A" 2>/dev/null || true
# ... and never over a journal.
refused "--init-state over a journal" init-again.log "is the journal of peer 'A' (incarnation 1)" -- \
    "${gridpeer[@]}" --id A --state-dir "$WORK/state-a" --time-scale 100 --init-state

# The untouched journal still starts, with its three long jobs.
rm -rf state-a && cp -r pristine state-a
: >a.log
start_a
grep -q "recovered from .*: 3 own jobs decided again" a.log || { cat a.log; fail "the pristine journal did not recover"; }
echo "storage faults test: ok"
