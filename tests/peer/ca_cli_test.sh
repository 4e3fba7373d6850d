#!/usr/bin/env bash
# gridctl ca: a grid's CA and its certificates, checked by the
# openssl tool as an independent verifier -- the chain, the names, the roles,
# the keys readable by their owner only, nothing overwritten by accident.
set -euo pipefail
BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ctl() { "$BIN/peer/client/gridctl" "$@"; }
# refuses CMD...: CMD must fail (its stderr kept in $WORK/err). A bare `! CMD`
# would not stop a `set -e` script.
refuses() { if "$@" 2>"$WORK/err"; then echo "FAIL: accepted: $*"; exit 1; fi; }
ctl ca init "$WORK/ca" --grid tiny-3server >/dev/null
for peer in A B C; do ctl ca issue $peer --role peer --ca "$WORK/ca" >/dev/null; done
ctl ca issue ops --role operator --ca "$WORK/ca" >/dev/null
ctl ca issue alice --role submitter --ca "$WORK/ca" --out "$WORK/alice" >/dev/null
openssl verify -CAfile "$WORK/ca/ca.pem" "$WORK/ca/A.pem" "$WORK/ca/B.pem" "$WORK/ca/C.pem" "$WORK/ca/ops.pem" \
    "$WORK/alice/alice.pem"
subject() { openssl x509 -in "$1" -noout -subject -nameopt compat; }
subject "$WORK/ca/B.pem" | grep -q "OU=peer/CN=B"
subject "$WORK/ca/ops.pem" | grep -q "OU=operator/CN=ops"
subject "$WORK/alice/alice.pem" | grep -q "OU=submitter/CN=alice"
openssl x509 -in "$WORK/ca/C.pem" -noout -ext subjectAltName | grep -q "DNS:C"
# A user's certificate may only dial; a peer's may accept too.
openssl x509 -in "$WORK/alice/alice.pem" -noout -ext extendedKeyUsage | grep -q "Client Authentication"
if openssl x509 -in "$WORK/alice/alice.pem" -noout -ext extendedKeyUsage | grep -q "Server Authentication"; then
  echo "FAIL: a user's certificate may accept connections"; exit 1
fi
# Each key belongs to its certificate and is its owner's alone.
test "$(openssl x509 -in "$WORK/ca/A.pem" -noout -pubkey)" = "$(openssl pkey -in "$WORK/ca/A-key.pem" -pubout)"
for key in "$WORK"/ca/*-key.pem "$WORK/alice/alice-key.pem"; do test "$(stat -c %a "$key")" = 600; done
# Another grid's CA does not vouch for these.
ctl ca init "$WORK/other" >/dev/null
refuses openssl verify -CAfile "$WORK/other/ca.pem" "$WORK/ca/A.pem"
# Nothing is overwritten unless asked; bad input is refused by name.
refuses ctl ca init "$WORK/ca"
grep -q -- "--force" "$WORK/err"
refuses ctl ca issue bob --role root --ca "$WORK/ca"
grep -q "not peer, operator or submitter" "$WORK/err"
refuses ctl ca issue "a b" --role peer --ca "$WORK/ca"
grep -q "is not 1-64" "$WORK/err"
refuses ctl ca issue D --role peer --ca "$WORK/nowhere"
grep -q "made by gridctl ca init" "$WORK/err"
echo "ca cli test: ok"
