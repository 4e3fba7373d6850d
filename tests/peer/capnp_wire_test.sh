#!/usr/bin/env bash
# A third-party client speaks to a running gridpeer: requests are built from
# text by the capnp tool (`capnp encode`, Cap'n Proto's own framing), sent
# over mutual TLS by Python's ssl module with a submitter's certificate (the
# peers' default; tls_client.py), and the replies are decoded by `capnp decode`. Checks
# the handshake, a status request, a submission, and that a wrong protocol
# version and garbage are each answered with an Error saying why, while the
# peer keeps serving others. Bounded: every read times out after 5 s.
set -euo pipefail
source "$(dirname "$0")/grid_tls.sh"
BIN=$1 SOURCE=$2 PORT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
SCHEMA=$SOURCE/protocol/gridpeer.capnp
TOPOLOGY=$SOURCE/topologies/tiny-3server.toml
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
grid_tls "$BIN/peer/client/gridctl" "$WORK/tls" A B C
"$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --id A --base-port "$PORT" --algorithm local --log-level warn \
    --tls-dir "$WORK/tls" 2>"$WORK/peer.log" &
# B and C are not running: status exits 1 for them, and A's line says A is up.
for _ in $(seq 50); do
  answers A <<<"$("$BIN/peer/client/gridctl" status --topology "$TOPOLOGY" --base-port "$PORT" 2>/dev/null || true)" &&
    break
  sleep 0.1
done
encode() { printf '%s\n' "$@" | capnp encode "$SCHEMA" Envelope; }
# exchange NAME EXPECTED_REPLIES: send $WORK/NAME.bin, keep what comes back
# until EXPECTED_REPLIES frames or the peer closes, decode it to NAME.txt.
exchange() {
  python3 - "$PORT" "$WORK/$1.bin" "$WORK/$1.reply" "$2" "$HERE" <<'PY'
import struct, sys
port, request, reply, expected = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
from tls_client import connect, read_until_closed
s = connect(port, cert="alice")
s.sendall(open(request, "rb").read())
def whole_frames(buf):
    count, at = 0, 0
    while len(buf) - at >= 8:
        segments = struct.unpack_from("<I", buf, at)[0] + 1
        table = (4 + 4 * segments + 7) // 8 * 8
        if len(buf) - at < table: break
        size = table + 8 * sum(struct.unpack_from("<%dI" % segments, buf, at + 4))
        if len(buf) - at < size: break
        at += size; count += 1
    return count
data = read_until_closed(s, lambda data: whole_frames(data) >= expected)
open(reply, "wb").write(data)
PY
  capnp decode --short "$SCHEMA" Envelope <"$WORK/$1.reply" >"$WORK/$1.txt"
  echo "--- $1:"; cat "$WORK/$1.txt"
}
expect() { grep -q -- "$2" "$WORK/$1.txt" || { echo "FAIL: $1 lacks: $2"; exit 1; }; }

# Handshake, status, and a submission on one connection.
encode '(hello = (version = 2, role = client, name = "capnp-cli"))' '(statusRequest = ())' \
       '(submit = (job = (cpus = 2, requestedUs = 60000000, runUs = 30000000)))' >"$WORK/session.bin"
exchange session 3
expect session 'hello = (version = 2, role = peer, peerId = 0, name = "A"'
expect session 'status = (peerId = 0, name = "A"'
expect session 'submitAck = (job = [0-9]*, accepted = true'

# A wrong protocol version: told why, then disconnected.
encode '(hello = (version = 99, role = client, name = "from-the-future"))' >"$WORK/version.bin"
exchange version 1
expect version 'error = (code = versionMismatch'
expect version 'you sent 99'

# Garbage: a frame whose segment table promises 1 GiB.
printf '\x00\x00\x00\x00\x00\x00\x00\x08' >"$WORK/garbage.bin"
exchange garbage 1
expect garbage 'error = (code = frameTooLarge'

# The peer still serves everyone else.
encode '(hello = (version = 2, role = client, name = "capnp-cli"))' '(statusRequest = ())' >"$WORK/again.bin"
exchange again 2
expect again 'submitted = 1'
echo "capnp wire test: ok"
