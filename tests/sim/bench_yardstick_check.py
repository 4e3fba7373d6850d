#!/usr/bin/env python3
"""gridsim bench's yardstick is a fair baseline only if it plays the same
policy: for FCFS, EASY and conservative backfilling on the first 3,000 jobs
of SDSC-SP2, the Python loop's mean wait must equal gridsim replay's (the
bench checks the same on the whole log). Skips (77) without the traces.

Usage: bench_yardstick_check.py GRIDSIM TRACE_DIR WORKDIR"""
import gzip
import json
import os
import subprocess
import sys

gridsim, trace_dir, work = sys.argv[1], sys.argv[2], sys.argv[3]
log = os.path.join(trace_dir, "SDSC-SP2-1998-4.2-cln.swf.gz")
if not os.path.exists(log):
    print("no traces at", trace_dir)
    sys.exit(77)
os.makedirs(work, exist_ok=True)
prefix = os.path.join(work, "sp2-3000.swf")
with gzip.open(log, "rt") as lines, open(prefix, "w") as out:
    kept = 0
    for line in lines:
        if line.startswith(";"):
            continue
        out.write(line)
        kept += 1
        if kept == 3000:
            break
yardstick = os.path.join(work, "replay_yardstick.py")
with open(yardstick, "w") as out:
    out.write(subprocess.run([gridsim, "bench", "--print-yardstick"], check=True, capture_output=True, text=True).stdout)
for policy in ("fcfs", "easy", "conservative"):
    python = json.loads(subprocess.run([sys.executable, yardstick, prefix, policy, "128"], check=True,
                                       capture_output=True, text=True).stdout)
    result = os.path.join(work, f"replay-{policy}.json")
    subprocess.run([gridsim, "replay", "--workload", prefix, "--policy", policy, "--nodes", "128", "--out", result],
                   check=True, capture_output=True)
    ours = json.load(open(result))["results"][0]
    assert ours["jobs"] == python["jobs"], (policy, ours["jobs"], python["jobs"])
    assert abs(ours["avg_wait_s"] - python["mean_wait_s"]) <= 1e-6 * max(1.0, ours["avg_wait_s"]), \
        (policy, ours["avg_wait_s"], python["mean_wait_s"])
    assert python["mean_wait_s"] > 0, policy  # a queue did form: the policies were exercised
    print(f"{policy}: {python['jobs']} jobs, mean wait {python['mean_wait_s']:.3f} s in both")
