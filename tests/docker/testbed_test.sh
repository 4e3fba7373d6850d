#!/usr/bin/env bash
# The docker testbed end to end (docker/testbed), on topologies/testbed-4server:
# four containers in two sites, a synthetic workload (no traces needed).
#  1. WAN rate: one job's 10 MB input crosses the shaped 40 Mb/s WAN within 15%
#     of the configured rate.
#  2. Shaping matters: the same slice with the fast (800/40) and the slow (80/4)
#     network; every job completes in both, and the slow one moves less data
#     across the WAN (gridsim predicts 2.23 against 0.088 MB per job).
#  3. Fault: "spare" is killed (SIGKILL) mid-replay; the others carry on and the
#     results account for every job.
#  4. Open membership: "extra" (not in the topology) joins the running grid a
#     second into a replay of twice the jobs with a file of its own server
#     alone, takes jobs, and leaves again 20 s later (gridctl leave); "late"
#     joins two seconds after it, in a site of its own too, and stays; "spare"
#     is killed meanwhile. Every job is accounted for, and the ones the joiners
#     ran are in the results.
#  5. Durability: "spare" is killed the same way and its container
#     started again 2 s later on its journal (a volume of its own): every job a
#     peer acknowledged completes, exactly once, none lost.
#  6. Co-allocation: the peers split jobs (A1; each peer's link to the grid is
#     the shaped 40 Mb/s WAN, every job's bisection bandwidth 20 Mb/s). A job of
#     200 CPUs at crowded -- wider than any server (roomy has 128), and than
#     either site (192 and 96) -- runs as parts on servers of both sites at one
#     instant, its prepare, commit and renewals crossing the WAN; each link
#     carries at most 20.0 Mb/s of its communication (eq. 1), so no part is
#     slowed. Its communication is modelled (Jones et al.'s clock), not sent.
# Needs root (it starts dockerd --storage-driver=vfs when no engine answers);
# exits 77 (skipped) otherwise. Bounded: each run has its own settle time-out.
set -euo pipefail
SOURCE=$1
[[ $(id -u) -eq 0 ]] || docker info >/dev/null 2>&1 || { echo "no Docker engine and not root: skipped"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
testbed() { "$SOURCE/docker/testbed" --topology "$SOURCE/topologies/testbed-4server.toml" --settle-timeout 240 "$@"; }
run() { local name=$1; shift; echo "== $name"; testbed --out "$WORK/$name" "$@" 2>&1 | tail -40; }
run measure --measure-wan 10
common=(--no-build --workload synthetic --jobs 60 --data-size medium --time-scale 10000)
run fast "${common[@]}" --network fast
run slow "${common[@]}" --network slow
run kill "${common[@]}" --network fast --kill spare@6
run join --no-build --workload synthetic --jobs 120 --data-size medium --time-scale 10000 --network fast \
  --join extra@1+20 --join late@3 --kill spare@6
run restart "${common[@]}" --network fast --kill spare@6+2
# The hold before a split's start must outlast the WAN's round trip (10 ms
# each way, 200 virtual s at this time scale): --timeout sets it.
run split --no-build --network fast --time-scale 10000 --wide-job 200 --peer-arg --coallocation=a1 \
  --peer-arg --link-mbps=40 --peer-arg --bsbw=20 --peer-arg --timeout=1000 --peer-arg --lease=3000 --settle-timeout 120
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
load = lambda name, f: json.load(open(f"{work}/{name}/results/{f}"))
m = load("measure", "testbed.json")["measure_wan"]
print("WAN rate", m)
assert m["configured_mbps"] == 40 and abs(m["measured_mbps"] - 40) <= 0.15 * 40, m
fast, slow = load("fast", "summary.json"), load("slow", "summary.json")
for name, r in (("fast", fast), ("slow", slow)):
    a = r["accounting"]
    assert a["submitted"] == a["completed"] == 240 and a["in_progress"] == 0, (name, a)
    assert r["lost_jobs"] == 0 and r["jobs"] == 240, (name, r["lost_jobs"])
print("WAN MB/job fast", fast["wan_volume_mb_per_job"], "slow", slow["wan_volume_mb_per_job"])
assert fast["wan_volume_mb_per_job"] > 2 * slow["wan_volume_mb_per_job"], (fast, slow)
assert fast["fraction_transferred"] > slow["fraction_transferred"]
k = load("kill", "summary.json")
a = k["accounting"]
print("kill accounting", {x: y for x, y in a.items() if not isinstance(y, list)})
assert a["settled"] and a["in_progress"] == 0 and a["unknown_records"] == 0, a
assert a["completed"] + a["lost"] + a["rejected"] + a["origin_unreachable"] == a["submitted"], a
assert a["submitted"] + a["not_submitted"] == a["handed"] == 240, a
assert any(u.startswith("spare:") for u in k["unreachable_peers"]), k["unreachable_peers"]
assert a["not_submitted"] + a["origin_unreachable"] > 0, a
for x in k["not_completed"]:
    assert x["outcome"] == "lost" and "spare" in x["reason"], x
assert a["completed"] > 120, a
j = load("join", "summary.json")
a = j["accounting"]
runs = {s["name"]: s["jobs_executed"] for s in j["per_server"]}
print("join accounting", {x: y for x, y in a.items() if not isinstance(y, list)}, "runs", runs)
assert a["settled"] and a["in_progress"] == 0 and a["unknown_records"] == 0, a
assert a["completed"] + a["lost"] + a["rejected"] + a["origin_unreachable"] == a["submitted"], a
assert a["submitted"] + a["not_submitted"] == a["handed"] == 480, a
assert runs.get("extra", 0) > 0, f"the peer that joined ran nothing: {runs}"
assert "late" in runs, f"the second joiner is not in the results: {runs}"
for x in j["not_completed"]:
    assert x["outcome"] == "lost" and "spare" in x["reason"], x
assert load("join", "testbed.json")["join"] == "extra@1+20,late@3"
r = load("restart", "summary.json")
a = r["accounting"]
print("restart accounting", {x: y for x, y in a.items() if not isinstance(y, list)})
assert a["settled"] and a["in_progress"] == 0 and a["lost"] == 0 and r["lost_jobs"] == 0, a
assert a["completed"] + a["rejected"] == a["submitted"] and a["origin_unreachable"] == 0, a
assert a["not_submitted"] == a["unacknowledged"] and a["unknown_records"] <= a["unacknowledged"], a
assert a["submitted"] + a["not_submitted"] == a["handed"] == 240, a
records = [json.loads(line) for line in open(f"{work}/restart/results/records.jsonl")]
ids = [x["id"] for x in records]
assert len(ids) == len(set(ids)), "a job has two records"
split = [json.loads(line) for line in open(f"{work}/split/results/records.jsonl")]
assert len(split) == 1 and split[0]["outcome"] == "completed" and split[0]["cpus"] == 200, split
parts = {p["server"]: p["cpus"] for p in split[0]["parts"]}
print("split job", parts, "from", split[0]["start_s"], "to", split[0]["finish_s"])
# A1 on an idle grid fills the servers in the topology's order, each as far
# as its link allows (here all of it): crowded 32, steady 64, roomy the last
# 104 -- both sites. The slowest part is crowded's, the origin's own speed.
assert parts == {"crowded": 32, "steady": 64, "roomy": 104}, parts
assert all(p["lowest_share"] == 1 for p in split[0]["parts"]), split[0]["parts"]
assert abs(split[0]["finish_s"] - split[0]["start_s"] - 36000) < 1, split[0]
# It starts after the hold: two time-outs (2,000 s) and the clock skew (50 ms
# real, 500 s), from when the replies came.
assert 2500 <= split[0]["start_s"] - split[0]["submit_s"] <= 2600, split[0]
assert "split over" in load("split", "testbed.json")["wide_job"]["ended"]
PY
