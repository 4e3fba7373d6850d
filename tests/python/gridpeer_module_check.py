#!/usr/bin/env python3
"""`import gridpeer` as a notebook would: a comparison, a replay and a sweep
in-process, checked against the gridsim binary's own output for the same
options (same parser, same code: the numbers must be equal).

usage: gridpeer_module_check.py GRIDSIM WORKDIR   (PYTHONPATH holds the module)
"""
import json
import os
import subprocess
import sys

import gridpeer
import pandas as pd

gridsim, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


METRICS = ["jobs", "avg_response_s", "avg_wait_s", "avg_bounded_slowdown", "weighted_utilization", "messages",
           "fraction_transferred"]

# 1. A comparison: the same numbers as `gridsim compare --out`.
options = dict(topology="tiny-3server", workload="lublin", jobs=80, seed=5, data_size="small")
runs = gridpeer.compare(**options, threads=2)
check(list(runs) == ["local", "central", "si", "ri", "syi"], f"compare labels: {list(runs)}")
out = os.path.join(workdir, "compare.json")
subprocess.run([gridsim, "compare", "--topology", "tiny-3server", "--workload", "lublin", "--jobs", "80", "--seed",
                "5", "--data-size", "small", "--out", out], check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
cli = {run["algorithm"]: run for run in json.load(open(out))}
for label, run in runs.items():
    for metric in METRICS:
        check(run.summary[metric] == cli[label][metric],
              f"compare {label} {metric}: python {run.summary[metric]} != gridsim {cli[label][metric]}")
    jobs = run.jobs
    check(isinstance(jobs, pd.DataFrame) and len(jobs) == 240, f"{label}: jobs is not a 240-row DataFrame")
    done = jobs[jobs.success == 1]
    check(abs(done.waiting_time.mean() - run.summary["avg_wait_s"]) < 1e-6, f"{label}: jobs' mean wait differs")
check(runs["local"].summary["fraction_transferred"] == 0, "local moved jobs")

# 2. A replay: one row per policy, pandas tables, a bad option refused with its name.
policies = gridpeer.replay(workload="lublin", jobs=300, seed=2, nodes=64)
check(sorted(policies) == ["conservative", "easy", "fcfs"], f"replay policies: {sorted(policies)}")
check(policies["easy"].summary["avg_wait_s"] <= policies["fcfs"].summary["avg_wait_s"], "EASY waits longer than FCFS")
try:
    gridpeer.run(topology="tiny-3server", workload="lublin", phi="soon")
    check(False, "phi='soon' was accepted")
except ValueError as error:
    check("--phi" in str(error), f"the error does not name --phi: {error}")

# 3. A sweep of a parameter outside Shan et al.'s axes, with seeds and intervals.
experiment = os.path.join(workdir, "delta.toml")
with open(experiment, "w") as f:
    f.write('[experiment]\nname = "delta"\ntitle = "delta"\nseeds = [1, 2, 3]\n'
            '[fixed]\ntopology = "tiny-3server"\nworkload = "lublin"\njobs = 40\nalgorithm = "si"\n'
            '[[axis]]\nname = "delta"\nvalues = [0.5, 0.9]\n')
results, summary = gridpeer.sweep(experiment, os.path.join(workdir, "sweep"), threads=2, overwrite=True)
check(len(results) == 6 and len(summary) == 2, f"sweep: {len(results)} runs, {len(summary)} points")
first = results[results.delta == results.delta.iloc[0]]
check(abs(summary.avg_response_s_mean.iloc[0] - first.avg_response_s.mean()) < 1e-6 * first.avg_response_s.mean(),
      "sweep: the summary's mean is not the mean of its runs")
check(summary.avg_response_s_ci95.notna().all(), "sweep: no confidence interval with three seeds")

# 4. Jones et al.'s clusters: the same numbers as `gridsim coalloc --out`, and a jobs table.
split = gridpeer.coalloc(method="b3", chunk=80, bsbw=700, jobs_per_cluster=3000, seed=2)
out = os.path.join(workdir, "coalloc.json")
subprocess.run([gridsim, "coalloc", "--method", "b3", "--chunk", "80", "--bsbw", "700", "--jobs-per-cluster", "3000",
                "--seed", "2", "--out", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
cli = json.load(open(out))
for metric in ("jobs", "avg_turnaround_s", "fraction_coallocated", "mean_link_saturation", "mean_coalloc_slowdown"):
    check(split.summary[metric] == cli[metric], f"coalloc {metric}: {split.summary[metric]} != {cli[metric]}")
check(len(split.jobs) == 12000, f"coalloc jobs table: {len(split.jobs)} rows")
check(set(split.jobs.placement) == {"local", "migrated", "split"}, f"placements: {set(split.jobs.placement)}")
check((split.jobs.turnaround_s.mean() - cli["avg_turnaround_s"]) < 1e-3, "the jobs table gives the mean turnaround")
try:
    gridpeer.coalloc(method="b5")
    check(False, "a bad method is refused")
except ValueError as error:
    check("--method" in str(error), f"the refusal names the option: {error}")

# 5. Shih, Huang & Chung's allocation on a synthetic model: the same numbers as `gridsim allocate --out`,
# and a jobs table whose starts keep strict FCFS order and whose responses give the ART.
placed = gridpeer.allocate(workload="lublin99", jobs=3000, aarr=9, rule="tai2", sh=0.12, speed_draw=2, seed=4)
out = os.path.join(workdir, "allocate.json")
subprocess.run([gridsim, "allocate", "--workload", "lublin99", "--jobs", "3000", "--aarr", "9", "--rule", "tai2",
                "--sh", "0.12", "--speed-draw", "2", "--seed", "4", "--out", out], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
cli = json.load(open(out))
for metric in ("jobs", "art_s", "avg_wait_s", "mean_queue_events", "speeds"):
    check(placed.summary[metric] == cli[metric], f"allocate {metric}: {placed.summary[metric]} != {cli[metric]}")
jobs = placed.jobs.sort_values("job_id")
check(len(jobs) == 3000 and list(jobs.job_id) == list(range(1, 3001)), f"allocate jobs table: {len(jobs)} rows")
check((jobs.start_s.diff().dropna() >= 0).all(), "allocate: a job started before one ahead of it")
check(abs(jobs.response_s.mean() - cli["art_s"]) < 1e-3, "allocate: the jobs table gives the ART")
check(set(jobs.site) <= {1, 2, 3, 4, 5}, f"allocate sites: {set(jobs.site)}")
try:
    gridpeer.allocate(rule="best")
    check(False, "a bad rule is refused")
except ValueError as error:
    check("--rule" in str(error), f"the refusal names the option: {error}")

# 6. Ang et al.'s grouping, on a routed grid and in the P2P grid: the same numbers as the
# commands' --out, one row per group (their jobs add up to the bag) and per job of the bag.
def same_as_cli(result, command, arguments, metrics):
    out = os.path.join(workdir, command + ".json")
    subprocess.run([gridsim, command, *arguments, "--out", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    cli = json.load(open(out))
    for metric in metrics:
        check(result.summary[metric] == cli[metric], f"{command} {metric}: {result.summary[metric]} != {cli[metric]}")
    check(result.summary["identity"] == cli["identity"], f"{command}: another identity than the command's")


grouped = gridpeer.group(scheduler="ba", jobs=60, seed=5)
same_as_cli(grouped, "group", ["--scheduler", "ba", "--jobs", "60", "--seed", "5"], ("total_s", "groups", "bag_mi"))
check(len(grouped.jobs) == grouped.summary["groups"], f"group table: {len(grouped.jobs)} rows")
check(sum(grouped.jobs.jobs) == 60, f"the groups hold {sum(grouped.jobs.jobs)} of 60 jobs")
bag = gridpeer.bag(scheduler="ba", seed=5)
same_as_cli(bag, "bag", ["--scheduler", "ba", "--seed", "5"], ("bag_makespan_s", "bag_ended", "handoffs", "messages"))
check(len(bag.jobs) == bag.summary["bag_ended"], f"bag table: {len(bag.jobs)} rows")
check(abs(bag.jobs.end_s.max() - bag.summary["bag_makespan_s"]) < 1e-3 * bag.summary["bag_makespan_s"] + 1e-3,
      "bag: the last job's end is not the makespan")

print("gridpeer_module_check:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
