#!/usr/bin/env python3
"""A small study with `import gridpeer`, written as a notebook would be.

Compares the five grid algorithms of Shan et al. on a synthetic 24-server grid,
then asks how sender-initiated migration copes as the load grows, with three
seeds and 95% intervals, and draws two figures. A few seconds on 2 cores.

    PYTHONPATH=build/release/python /usr/bin/python3 docs/examples/compare_study.py [OUT_DIR]

CI runs it (tests/CMakeLists.txt: python_example) so that it keeps working.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import gridpeer  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "study"
os.makedirs(out, exist_ok=True)
print("gridpeer", gridpeer.version())

# %% The five algorithms on one workload: a summary table and every job.
runs = gridpeer.compare(topology="synthetic:24", workload="lublin", jobs=200, seed=1, data_size="medium")
table = pd.DataFrame([{"algorithm": name, **{k: r.summary[k] for k in
                       ("avg_response_s", "avg_wait_s", "avg_bounded_slowdown", "fraction_transferred")}}
                      for name, r in runs.items()])
print(table.round(2).to_string(index=False))

# %% Per-job analysis with plain pandas: the wait CDF of each algorithm.
figure, ax = plt.subplots(figsize=(6, 4))
for name, r in runs.items():
    waits = r.jobs[r.jobs.success == 1].waiting_time.sort_values().reset_index(drop=True)
    ax.step(waits, (waits.index + 1) / len(waits), where="post", label=name)
ax.set_xscale("symlog", linthresh=1)
ax.set_xlabel("wait (s)")
ax.set_ylabel("fraction of jobs")
ax.legend()
figure.tight_layout()
figure.savefig(os.path.join(out, "wait_cdf.png"), dpi=110)

# %% A sweep as a file: load factor x algorithm, three seeds, 95% intervals.
experiment = os.path.join(out, "load.toml")
with open(experiment, "w") as f:
    f.write("""[experiment]
name = "load"
title = "S-I against Local as the load grows"
seeds = [1, 2, 3]
[fixed]
topology = "synthetic:24"
workload = "lublin"
jobs = 150
estimates = "f-model:5"
[[axis]]
name = "load-factor"
values = [1, 1.5, 2]
[[axis]]
name = "algorithm"
values = ["local", "si"]
""")
results, summary = gridpeer.sweep(experiment, os.path.join(out, "load"), overwrite=True)
print(summary[["load-factor", "algorithm", "n", "avg_response_s_mean", "avg_response_s_ci95"]].round(1)
      .to_string(index=False))

figure, ax = plt.subplots(figsize=(6, 4))
for algorithm, rows in summary.groupby("algorithm", sort=False):
    ax.errorbar(rows["load-factor"].astype(float), rows.avg_response_s_mean, yerr=rows.avg_response_s_ci95,
                marker="o", capsize=3, label=algorithm)
ax.set_xlabel("load factor")
ax.set_ylabel("mean response (s), 95% CI")
ax.legend()
figure.tight_layout()
figure.savefig(os.path.join(out, "load.png"), dpi=110)
print("figures in", out)
