#!/usr/bin/env bash
# Mutual TLS between three gridpeer processes and gridctl: a grid CA
# from gridctl ca, a certificate per peer and per user; the peers connect and
# run jobs; a submitter may submit but not drain, undrain or shut down, an
# operator may; a plaintext client, another grid's certificate, an expired
# one, a user's certificate posing as a peer and a peer's posing as another
# are all refused, and logged. TLS is the default: without --tls-dir a peer
# starts only with --plaintext, and only on loopback. Bounded: 60 s in all.
set -euo pipefail
BIN=$1 TOPOLOGY=$2 PORT=$3
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/protocol/gridpeer.capnp
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
ctl() { "$BIN/peer/client/gridctl" "$@"; }
refuses() { if "$@" >out 2>err; then echo "FAIL: accepted: $*"; exit 1; fi; }
ctl ca init ca --grid tiny-3server >/dev/null
for name in A B C; do ctl ca issue $name --role peer --ca ca >/dev/null; done
ctl ca issue ops --role operator --ca ca >/dev/null
ctl ca issue alice --role submitter --ca ca >/dev/null
ctl ca init other >/dev/null
ctl ca issue B --role peer --ca other >/dev/null
# TLS or, by name, plaintext on loopback only; never plaintext by default.
gridpeer=("$BIN/peer/daemon/gridpeer" --topology "$TOPOLOGY" --base-port "$PORT")
refuses "${gridpeer[@]}" --id A
grep -q "speaks mutual TLS: give --tls-dir DIR" err
refuses "${gridpeer[@]}" --id A --plaintext --listen 0.0.0.0:$PORT
grep -q "not loopback: --listen at 0.0.0.0:$PORT" err
refuses "${gridpeer[@]}" --id A --plaintext --peer C=10.1.2.3:$PORT
grep -q "peer C at 10.1.2.3:$PORT" err
refuses ctl status --topology "$TOPOLOGY" --plaintext --host 192.0.2.7
grep -q "not loopback: peer A at 192.0.2.7" err
# A peer's own files must name it: B started with C's certificate stops at once.
mkdir wrong && cp ca/ca.pem wrong/ && cp ca/C.pem wrong/B.pem && cp ca/C-key.pem wrong/B-key.pem
refuses "${gridpeer[@]}" --id B --tls-dir wrong
grep -q "names C, not B" err
for id in A B C; do
  "${gridpeer[@]}" --id $id --algorithm si --tls-dir ca --log-level info 2>>peer-$id.log &
done
for _ in $(seq 100); do
  test "$(cat peer-*.log | grep -c "peer . connected")" -ge 6 && break
  sleep 0.1
done
test "$(cat peer-*.log | grep -c "peer . connected")" -ge 6 || { echo "FAIL: the peers did not connect over TLS"; cat peer-*.log; exit 1; }
as() { local who=$1; shift; ctl "$@" --topology "$TOPOLOGY" --base-port "$PORT" --tls-dir ca --cert "$who"; }

# A submitter sees the grid and runs jobs.
as alice status >status.txt
grep -q "^C " status.txt
as alice submit --to A --count 5 --run 1 >ids.txt
test "$(wc -l <ids.txt)" = 5
for _ in $(seq 100); do as alice results --expect 5 >/dev/null 2>&1 && break; sleep 0.1; done
as alice results --expect 5 >/dev/null
grep -q "client alice (submitter) connected" peer-A.log

# Draining needs an operator.
refuses as alice drain
grep -q "needs an operator's certificate" err
grep -q "drain refused to submitter alice" peer-A.log
refuses as alice shutdown
grep -q "shutdown needs an operator's certificate" err
as ops drain >/dev/null
grep -q "drain asked by operator ops" peer-A.log
# Drained, A refuses submissions; undrained (an operator's, for A only), it takes them again.
refuses as alice submit --to A --run 1
grep -q "is draining" err
refuses as alice undrain --to A
as ops undrain --to A >/dev/null
grep -q "undrained: taking submissions" peer-A.log
as alice submit --to A --run 1 >/dev/null

# Refused: plaintext, another grid's CA, a user's certificate posing as a peer.
refuses ctl status --topology "$TOPOLOGY" --base-port "$PORT" --plaintext
printf '%s\n' '(hello = (version = 2, role = peer, peerId = 2, name = "C", timeScale = 1000, epochUnixUs = 1764000000000000, algorithm = "si"))' |
    capnp encode "$SCHEMA" Envelope >hello-c.bin
# An expired certificate of the grid's CA (made with the openssl tool: gridctl
# ca issues none): refused at the handshake.
openssl ecparam -name prime256v1 -genkey -noout -out ca/old-key.pem
openssl req -new -key ca/old-key.pem -subj "/OU=submitter/CN=old" -out old.csr
openssl x509 -req -in old.csr -CA ca/ca.pem -CAkey ca/ca-key.pem -CAcreateserial -days -1 -out ca/old.pem 2>/dev/null
refuses as old status
python3 - "$PORT" <<'PY'
import socket, ssl, sys
port = int(sys.argv[1])
def attempt(cert, key, payload=None):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.load_cert_chain(cert, key)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        try:
            with context.wrap_socket(raw) as tls:
                if payload: tls.sendall(payload)
                data = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk: return data
                    data += chunk
        except (ssl.SSLError, ConnectionResetError, socket.timeout) as error:
            return repr(error).encode()
# Another grid's B: the handshake fails at A's check of the chain.
answer = attempt("other/B.pem", "other/B-key.pem", b"x")
assert b"not a peer" not in answer, answer
# alice (submitter) speaking as peer C: refused by name.
answer = attempt("ca/alice.pem", "ca/alice-key.pem", open("hello-c.bin", "rb").read())
assert b"not peer 'C'" in answer, answer
# peer B's own certificate speaking as C: refused by name too.
answer = attempt("ca/B.pem", "ca/B-key.pem", open("hello-c.bin", "rb").read())
assert b"your certificate names peer 'B', not peer 'C'" in answer, answer
print("refused: another CA's certificate; a submitter, and peer B, posing as peer C")
PY
grep -q "refused 127.0.0.1:[0-9]*: TLS handshake" peer-A.log
grep -q "(claims peer 2 'C', certificate submitter 'alice'): its certificate does not name what it claims" peer-A.log
echo "tls loopback test: ok"
