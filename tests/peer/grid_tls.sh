# Sourced by the multi-process tests (TLS is the peers' default):
#   grid_tls GRIDCTL DIR NAME...
# makes a grid CA in DIR with a peer certificate for each NAME (the
# topology's server names), an operator "ops" and a submitter "alice", and
# points gridctl at it (GRIDCTL_TLS_DIR, GRIDCTL_CERT=ops). Peers then run
# with --tls-dir DIR.
grid_tls() {
  local gridctl=$1 dir=$2
  shift 2
  "$gridctl" ca init "$dir" --grid test-grid >/dev/null
  local name
  for name in "$@"; do "$gridctl" ca issue "$name" --role peer --ca "$dir" >/dev/null; done
  "$gridctl" ca issue ops --role operator --ca "$dir" >/dev/null
  "$gridctl" ca issue alice --role submitter --ca "$dir" >/dev/null
  export GRIDCTL_TLS_DIR=$dir GRIDCTL_CERT=ops
}
# answers NAME: succeeds when the `gridctl status` text on stdin has a live
# row for NAME (an unreachable peer has a row too, saying so).
answers() { awk -v name="$1" '$1 == name && $2 != "unreachable:" { up = 1 } END { exit !up }'; }
# retry_while_connected TRIES PAUSE ERRFILE COMMAND...: runs COMMAND (its
# stderr to ERRFILE) until it succeeds. A failure because the peer still
# counts the speaker as connected (the last run's connections close behind
# what they queued) is tried again after PAUSE seconds, up to TRIES runs;
# any other failure returns at once.
retry_while_connected() {
  local tries=$1 pause=$2 err=$3 try
  shift 3
  for ((try = 0; try < tries; ++try)); do
    "$@" 2>"$err" && return 0
    grep -q "is running and connected\|is connected already" "$err" || return 1
    sleep "$pause"
  done
  return 1
}
