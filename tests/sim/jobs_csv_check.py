#!/usr/bin/env python3
"""Reads gridsim's per-job CSV with pandas, as a researcher's script would, and
checks it against gridsim's own summary and against the SWF log it replayed.

usage: jobs_csv_check.py GRIDSIM WORKDIR [TRACE_DIR]
"""
import gzip
import json
import os
import subprocess
import sys

import pandas as pd

gridsim, workdir = sys.argv[1], sys.argv[2]
trace_dir = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(workdir, exist_ok=True)
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def nodes_of(interval_set):
    nodes = []
    for part in str(interval_set).split():
        first, _, last = part.partition("-")
        nodes.extend(range(int(first), int(last or first) + 1))
    return nodes


def check_no_node_twice(jobs, label):
    """No node runs two jobs at once: per node, intervals sorted by start never overlap."""
    spans = {}
    for row in jobs.itertuples():
        for node in nodes_of(row.allocated_resources):
            spans.setdefault(node, []).append((row.starting_time, row.finish_time))
    for node, intervals in spans.items():
        intervals.sort()
        for (s0, f0), (s1, _) in zip(intervals, intervals[1:]):
            if s1 < f0:
                check(False, f"{label}: node {node} runs two jobs at once ({s0}-{f0} and from {s1})")
                return


# 1. A grid run: every job, the summary's means, nodes never shared.
csv = os.path.join(workdir, "grid-jobs.csv")
out = os.path.join(workdir, "grid.json")
swf_path = os.path.join(workdir, "grid.swf")
series_path = os.path.join(workdir, "grid-series.csv")
subprocess.run([gridsim, "run", "--topology", "tiny-3server", "--workload", "lublin", "--jobs", "200",
                "--algorithm", "si", "--seed", "3", "--jobs-csv", csv, "--out", out, "--swf", swf_path,
                "--series", series_path],
               check=True, stdout=subprocess.DEVNULL)
jobs = pd.read_csv(csv)
summary = json.load(open(out))
# Batsim's jobs.csv contract (its docs/output-jobs.rst): these names, this order, seconds, first.
BATSIM = ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources", "requested_time",
          "success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time",
          "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata"]
check(list(jobs.columns[:len(BATSIM)]) == BATSIM, f"columns differ from Batsim's: {list(jobs.columns[:17])}")
for column in ("submission_time", "requested_time", "starting_time", "execution_time", "finish_time", "waiting_time",
               "turnaround_time", "stretch", "requested_number_of_resources", "success"):
    check(pd.api.types.is_numeric_dtype(jobs[column]), f"{column} is not numeric")
check(((jobs.turnaround_time - (jobs.finish_time - jobs.submission_time)).abs() < 1e-6).all(),
      "turnaround_time is not finish_time - submission_time")
check(((jobs.stretch - jobs.turnaround_time / jobs.execution_time).abs() < 1e-6).all(), "stretch is not turnaround / execution")
check(len(jobs) == 600, f"grid: {len(jobs)} rows, expected 600 (3 servers x 200)")
done = jobs[jobs.success == 1]
check(len(done) == summary["jobs"], f"grid: {len(done)} completed rows, summary says {summary['jobs']}")
check(close(done.waiting_time.mean(), summary["avg_wait_s"]),
      f"grid: mean waiting_time {done.waiting_time.mean()} != avg_wait_s {summary['avg_wait_s']}")
response = (done.output_home_time - done.submission_time).mean()
check(close(response, summary["avg_response_s"]), f"grid: mean response {response} != {summary['avg_response_s']}")
check(((done.execution_time - (done.finish_time - done.starting_time)).abs() < 1e-6).all(),
      "grid: execution_time is not finish - start")
check(jobs.job_id.is_unique, "grid: job_id repeats")
check((jobs.groupby("workload_name").swf_job_number.nunique() == jobs.groupby("workload_name").size()).all(),
      "grid: a synthetic job number repeats within its workload")
moved = done[done.origin != done.executed_on]
check(len(moved) > 0, "grid: S-I moved no job; the check of transferred rows is empty")
check((moved.output_home_time > moved.finish_time).all(), "grid: a moved job's output was home before it finished")
check_no_node_twice(done, "grid")
# The schedule as SWF: one line per job, job number = job_id + 1, the same waits (to the second).
swf = pd.read_csv(swf_path, sep=r"\s+", comment=";", header=None)
check(len(swf) == 600, f"grid swf: {len(swf)} lines")
joined = done.assign(number=done.job_id + 1).merge(swf, left_on="number", right_on=0)
check(len(joined) == len(done), "grid swf: a completed job is missing")
check(((joined.waiting_time - joined[2]).abs() <= 0.5).all(), "grid swf: waits differ from the CSV")
check((joined[10] == 1).all(), "grid swf: a completed job's status is not 1")

# The time series: at every instant a server's busy nodes equal the nodes of the jobs running there.
series = pd.read_csv(series_path)
for server, nodes in (("A", 8), ("B", 8), ("C", 4)):
    data = series[series.server == server]
    check(data.busy_nodes.between(0, nodes).all(), f"series: {server} busy nodes outside 0..{nodes}")
    check(data.busy_nodes.iloc[-1] == 0 and data.waiting_jobs.iloc[-1] == 0, f"series: {server} does not end idle")
    probe = done[done.executed_on == server].starting_time.median()
    running = done[(done.executed_on == server) & (done.starting_time <= probe) & (done.finish_time > probe)]
    at_probe = data[data.time <= probe].iloc[-1]
    check(at_probe.running_jobs == len(running), f"series: {server} at {probe}: {at_probe.running_jobs} running, "
          f"the jobs say {len(running)}")

# The figures: gridsim plot draws every one from these files.
figures = os.path.join(workdir, "figures")
subprocess.run([gridsim, "plot", "jobs", f"S-I={csv}", "--series", f"S-I={series_path}", "--out", figures],
               check=True, stdout=subprocess.DEVNULL)
for name in ("cdf_wait", "cdf_bounded_slowdown", "per_origin_response", "gantt", "busy_nodes", "waiting_jobs"):
    path = os.path.join(figures, name + ".png")
    check(os.path.exists(path) and os.path.getsize(path) > 10_000, f"plot: {path} missing or empty")

# 2. A replay of a real log: job numbers and submit times are the log's.
log = "SDSC-SP2-1998-4.2-cln.swf.gz"
if trace_dir and os.path.exists(os.path.join(trace_dir, log)):
    prefix = os.path.join(workdir, "sp2")
    subprocess.run([gridsim, "replay", "--workload", log, "--trace-dir", trace_dir, "--policy", "easy",
                    "--jobs-csv", prefix, "--out", prefix + ".json"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    jobs = pd.read_csv(prefix + "-easy.csv")
    summary = json.load(open(prefix + ".json"))["results"][0]
    swf = pd.read_csv(gzip.open(os.path.join(trace_dir, log), "rt"), sep=r"\s+", comment=";", header=None,
                      usecols=[0, 1, 3, 4, 7, 8], names=["number", "submit", "run", "alloc", "req_procs", "req_time"])
    kept = swf[(swf.run > 0)]
    check(len(jobs) == summary["jobs"] + summary["rejected"], f"sp2: {len(jobs)} rows for {summary['jobs']} jobs")
    joined = jobs.merge(swf, left_on="swf_job_number", right_on="number", how="left", validate="one_to_one")
    check(joined.number.notna().all(), "sp2: a row's swf_job_number is not in the log")
    check((joined.submission_time == joined.submit).all(), "sp2: submission_time differs from the log's")
    check((joined.execution_time == joined.run).all(), "sp2: execution_time differs from the log's run time")
    check(set(jobs.swf_job_number) == set(kept.number), "sp2: the kept jobs are not the log's jobs with run time > 0")
    check(close(jobs[jobs.success == 1].waiting_time.mean(), summary["avg_wait_s"]), "sp2: mean wait differs")
    check_no_node_twice(jobs[jobs.success == 1], "sp2")
    print(f"sp2: {len(jobs)} jobs joined with the log")
else:
    print("traces not found: the SWF part is skipped")

print("jobs_csv_check:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
