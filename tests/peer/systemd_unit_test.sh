#!/usr/bin/env bash
# The systemd unit shipped for gridpeer (scripts/systemd/gridpeer@.service):
# it restarts the peer on the failures a restart mends and on no other --
# RestartPreventExitStatus holds exactly the statuses of exit_codes.hpp that
# need an operator -- runs it unprivileged and hardened, with a state
# directory; and systemd-analyze verify (where systemd is installed) has
# nothing to say about it, its ExecStart pointed at the built binary.
set -euo pipefail
BIN=$1 SOURCE=$2
UNIT=$SOURCE/scripts/systemd/gridpeer@.service
python3 - "$UNIT" "$SOURCE/peer/daemon/exit_codes.hpp" <<'PY'
import re, sys
unit, header = open(sys.argv[1]).read(), open(sys.argv[2]).read()
text = re.sub(r"\\\n\s*", " ", unit)  # continuation lines
keys = {}
for line in text.splitlines():
    line = line.strip()
    if not line or line.startswith(("#", "[")):
        continue
    key, _, value = line.partition("=")
    keys.setdefault(key, []).append(value)
codes = {name: int(value) for name, value in re.findall(r"constexpr int (kExit\w+) = (\d+);", header)}
assert set(codes) == {"kExitStopped", "kExitRefused", "kExitInternal", "kExitStorage", "kExitTimeEnded"}, codes
def one(key):
    assert key in keys, f"the unit has no {key}="
    return keys[key][-1]
assert one("Restart") == "on-failure"
prevent = {int(x) for x in one("RestartPreventExitStatus").split()}
assert prevent == {codes["kExitRefused"], codes["kExitTimeEnded"]}, prevent
assert one("User") not in ("", "root") and one("Group") not in ("", "root")
assert one("StateDirectory").startswith("gridpeer/")
start = one("ExecStart")
for option in ("--state-dir /var/lib/gridpeer/%i", "--tls-dir", "--id %i", "--topology"):
    assert option in start, f"ExecStart lacks {option}"
for key, value in {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
                   "PrivateTmp": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes"}.items():
    assert one(key) == value, f"{key}={one(key)}, not {value}"
assert int(one("TimeoutStopSec").rstrip("s")) > 30, "TimeoutStopSec must leave room for --shutdown-grace (30 s)"
print("the unit restarts on", sorted(set(codes.values()) - prevent - {0}), "and not on", sorted(prevent))
PY
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze not installed: the unit's keys were checked, not verified by systemd"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sed "s|/usr/local/bin/gridpeer|$BIN/peer/daemon/gridpeer|" "$UNIT" >"$WORK/gridpeer@.service"
(cd "$WORK" && systemd-analyze verify ./gridpeer@A.service) >"$WORK/verify.txt" 2>&1 ||
  { cat "$WORK/verify.txt"; echo "FAIL: systemd-analyze verify"; exit 1; }
# Unknown keys and bad values are only warnings to verify: none may appear.
grep -v "^$" "$WORK/verify.txt" | grep . && { echo "FAIL: systemd-analyze verify has something to say"; exit 1; }
echo "systemd unit test: ok"
