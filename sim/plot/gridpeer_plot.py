#!/usr/bin/env python3
"""The figures of a scheduling study, from gridpeer's own outputs.

Shipped inside gridsim (`gridsim plot ...` runs it) and in the repository as
sim/plot/gridpeer_plot.py; needs Debian's python3-pandas and python3-matplotlib.

  jobs LABEL=JOBS.csv [LABEL=JOBS.csv ...] [--series LABEL=SERIES.csv ...] --out DIR
      per-job CSVs (gridsim run/replay --jobs-csv, gridctl results --jobs-csv):
      cdf_wait.png, cdf_bounded_slowdown.png, per_origin_response.png, gantt.png
      (the first label, --gantt-start/--gantt-hours), and with --series
      (gridsim run/replay --series): busy_nodes.png and waiting_jobs.png.
  sweep DIR [--out DIR]
      a sweep folder (gridsim sweep): one bar chart per metric of summary.csv,
      mean and 95% confidence interval over seeds, in DIR/figures/.
  shih2010 DIR [--out DIR]
      a `gridsim sweep shih2010` folder: ART against SL per SH for each rule,
      TNPIR per RC beside the paper's Table 11, reproduction.md.
  jones2004 DIR [--out DIR]
      a `gridsim sweep jones2004` folder: Jones et al. 2004's figures 7-18 and
      link saturation in DIR/figures/, and DIR/reproduction.md (the baselines
      beside the paper's and each of its claims checked on the data).
  fairness FILE.csv --out DIR
      who gains and who pays (gridsim compare --fairness-csv): each origin
      server's change in turnaround against Local, per algorithm.
  fairness-sweep DIR [--out DIR]
      a grid sweep with Local among its algorithms (gridsim sweep
      shan2004-fairness): who_gains.md and a chart per configuration.
  jones2006 DIR [--out DIR]
      a `gridsim sweep jones2006` folder: Jones & Ligon 2006's figures 4-6,
      the fixed cluster's benefit, and reproduction.md with the claims checked.
  data-blind-map DIR [--out DIR]
      a `gridsim sweep shan2004-data-blind-map` folder: the data-blind
      penalty over data size and WAN bandwidth per mapping and reading, where
      Shan et al.'s two points sit on it, and data_blind_map.md.
"""
import argparse
import os
import re
import sys

import matplotlib
import matplotlib.patches

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

SLOWDOWN_BOUND_S = 10.0  # bounded slowdown's run-time floor, as gridpeer's metrics use

METRIC_TITLES = {
    "avg_response_s": "Average response time (s)",
    "avg_wait_s": "Average wait (s)",
    "avg_bounded_slowdown": "Average bounded slowdown",
    "weighted_utilization": "Weighted utilization",
    "fraction_transferred": "Fraction of jobs transferred",
    "fraction_in_origin_site": "Fraction run in the origin site",
    "data_volume_mb_per_job": "Data moved per job (MB)",
    "messages": "Messages",
    "unfinished_jobs": "Unfinished jobs",
}


def natural(name):
    """A sort key that puts S2 before S10: digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(name))]


def labelled(pairs, what):
    result = []
    for pair in pairs:
        label, sep, path = pair.partition("=")
        if not sep or not label or not path:
            sys.exit(f"gridpeer_plot: '{pair}' is not LABEL=FILE ({what})")
        if not os.path.exists(path):
            sys.exit(f"gridpeer_plot: {what} file '{path}' (label {label}) does not exist")
        result.append((label, path))
    return result


QUIET = False


def save(figure, out, name):
    path = os.path.join(out, name)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    if not QUIET:
        print(path)


def cdf(ax, values, label):
    values = values.sort_values().to_numpy()
    if len(values) == 0:
        return
    ax.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post", label=label)


def bounded_slowdown(jobs):
    # Response to the output's return (gridpeer's response), over the run time bounded below.
    response = jobs.output_home_time - jobs.submission_time
    return (response / jobs.execution_time.clip(lower=SLOWDOWN_BOUND_S)).clip(lower=1.0)


def parse_nodes(interval_set):
    for part in str(interval_set).split():
        first, _, last = part.partition("-")
        yield int(first), int(last or first)


def plot_jobs(args):
    runs = [(label, pd.read_csv(path)) for label, path in labelled(args.files, "jobs CSV")]
    os.makedirs(args.out, exist_ok=True)
    done = [(label, jobs[jobs.success == 1]) for label, jobs in runs]

    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, jobs in done:
        cdf(ax, jobs.waiting_time, label)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("wait (s)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title("CDF of wait")
    ax.grid(alpha=0.3)
    ax.legend()
    save(figure, args.out, "cdf_wait.png")

    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, jobs in done:
        cdf(ax, bounded_slowdown(jobs), label)
    ax.set_xscale("log")
    ax.set_xlabel(f"bounded slowdown (run time floor {SLOWDOWN_BOUND_S:g} s)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title("CDF of bounded slowdown")
    ax.grid(alpha=0.3)
    ax.legend()
    save(figure, args.out, "cdf_bounded_slowdown.png")

    origins = sorted(set().union(*(set(jobs.origin) for _, jobs in done)), key=natural)
    figure, ax = plt.subplots(figsize=(max(6.4, 0.5 * len(origins) * len(done)), 4.2))
    width = 0.8 / max(1, len(done))
    for k, (label, jobs) in enumerate(done):
        means = (jobs.output_home_time - jobs.submission_time).groupby(jobs.origin).mean()
        ax.bar([i + k * width for i in range(len(origins))], [means.get(o, 0.0) for o in origins], width,
               label=label)
    ax.set_xticks([i + width * (len(done) - 1) / 2 for i in range(len(origins))], origins)
    ax.set_xlabel("origin (where the job was submitted)")
    ax.set_ylabel("mean response (s)")
    ax.set_title("Response by origin")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    save(figure, args.out, "per_origin_response.png")

    label, jobs = done[0]
    start = args.gantt_start if args.gantt_start is not None else jobs.starting_time.min()
    end = start + args.gantt_hours * 3600
    window = jobs[(jobs.finish_time > start) & (jobs.starting_time < end)]
    figure, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20")
    origin_index = {o: i for i, o in enumerate(origins)}
    for row in window.itertuples():
        for first, last in parse_nodes(row.allocated_resources):
            ax.broken_barh([(row.starting_time, row.finish_time - row.starting_time)], (first, last - first + 1),
                           facecolors=colours(origin_index[row.origin] % 20), edgecolor="black", linewidth=0.2)
    ax.set_xlim(start, end)
    handles = [matplotlib.patches.Patch(color=colours(origin_index[o] % 20), label=o) for o in origins]
    ax.legend(handles=handles, title="origin", loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("node (numbered server by server)")
    ax.set_title(f"Gantt chart of {label}, {args.gantt_hours:g} h from {start:g} s (colour: origin)")
    save(figure, args.out, "gantt.png")

    series = [(label, pd.read_csv(path)) for label, path in labelled(args.series or [], "series CSV")]
    for column, title, name in (("busy_nodes", "Busy nodes (all servers)", "busy_nodes.png"),
                                ("waiting_jobs", "Waiting jobs (all servers)", "waiting_jobs.png")):
        if not series:
            break
        figure, ax = plt.subplots(figsize=(8, 4.2))
        for label, data in series:
            # Each server's value holds until its next line: carry it forward, then sum.
            wide = data.pivot_table(index="time", columns="server", values=column, aggfunc="last").ffill().fillna(0)
            ax.step(wide.index / 3600.0, wide.sum(axis=1), where="post", label=label, linewidth=0.8)
        ax.set_xlabel("time (h)")
        ax.set_ylabel(column.replace("_", " "))
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend()
        save(figure, args.out, name)


def plot_fairness(args):
    """Who gains, who pays: each origin server's change in turnaround against Local."""
    import pandas as pd

    table = pd.read_csv(args.file)
    for column in ("server", "algorithm", "change"):
        if column not in table.columns:
            raise SystemExit(f"gridpeer_plot: {args.file} has no '{column}' column: write it with "
                             "`gridsim compare --fairness-csv FILE`")
    servers = list(dict.fromkeys(table["server"]))
    algorithms = list(dict.fromkeys(table["algorithm"]))
    from paper_support import change_bars  # built in beside this script

    os.makedirs(args.out, exist_ok=True)
    figure, ax = plt.subplots(figsize=(max(7, 0.9 * len(servers) + 2), 4.5))
    series = [(a, dict(zip(table[table["algorithm"] == a]["server"], table[table["algorithm"] == a]["change"])))
              for a in algorithms]
    change_bars(ax, servers, series, "Who gains, who pays")
    save(figure, args.out, "who_gains_who_pays.png")


def plot_sweep(args):
    summary_path = os.path.join(args.folder, "summary.csv")
    if not os.path.exists(summary_path):
        sys.exit(f"gridpeer_plot: {summary_path} not found: is {args.folder} a gridsim sweep folder?")
    summary = pd.read_csv(summary_path)
    axes = [c for c in summary.columns if c not in ("n",) and not c.endswith("_mean") and not c.endswith("_ci95")]
    out = args.out or os.path.join(args.folder, "figures")
    os.makedirs(out, exist_ok=True)
    # Bars of one colour per value of the last axis (usually what is compared),
    # grouped along x by the combinations of the other axes.
    series_axis, group_axes = axes[-1], axes[:-1]
    text = summary[axes].astype(str)
    group_of = text[group_axes].agg(" ".join, axis=1) if group_axes else pd.Series([""] * len(summary))
    groups = list(dict.fromkeys(group_of))
    series = list(dict.fromkeys(text[series_axis]))
    width = 0.8 / max(1, len(series))
    for metric in [c[: -len("_mean")] for c in summary.columns if c.endswith("_mean")]:
        figure, ax = plt.subplots(figsize=(min(40.0, max(6.4, 0.16 * len(groups) * len(series) + 2.5)), 4.6))
        for k, value in enumerate(series):
            rows = summary[text[series_axis] == value]
            groups_here = group_of[text[series_axis] == value]
            means = [rows[groups_here == g][metric + "_mean"].mean() for g in groups]
            errors = [rows[groups_here == g][metric + "_ci95"].mean() for g in groups]
            ax.bar([i + k * width for i in range(len(groups))], means, width,
                   yerr=[0 if pd.isna(e) else e for e in errors], capsize=2, label=value)
        ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(groups))], groups,
                      rotation=45 if len(groups) > 6 else 0, ha="right" if len(groups) > 6 else "center")
        ax.set_xlabel(" / ".join(group_axes))
        ax.set_ylabel(METRIC_TITLES.get(metric, metric))
        ax.set_title(METRIC_TITLES.get(metric, metric) + " (mean, 95% CI over seeds)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(title=series_axis, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        save(figure, out, f"{metric}.png")


def main():
    global QUIET
    parser = argparse.ArgumentParser(prog="gridsim plot", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    jobs = commands.add_parser("jobs", help="figures from per-job CSVs")
    jobs.add_argument("files", nargs="+", metavar="LABEL=JOBS.csv")
    jobs.add_argument("--series", nargs="+", metavar="LABEL=SERIES.csv")
    jobs.add_argument("--out", required=True)
    jobs.add_argument("--gantt-start", type=float, help="start of the Gantt chart's slice (s; default: first start)")
    jobs.add_argument("--gantt-hours", type=float, default=24.0, help="length of the slice (h)")
    sweep = commands.add_parser("sweep", help="bar charts with confidence intervals from a sweep folder")
    sweep.add_argument("folder")
    sweep.add_argument("--out", help="default: FOLDER/figures")
    sweep.add_argument("--quiet", action="store_true", help="do not list the files written")
    fairness = commands.add_parser("fairness", help="who gains, who pays, from gridsim compare --fairness-csv")
    fairness.add_argument("file")
    fairness.add_argument("--out", required=True)
    for paper_name, paper_help in (("fairness-sweep", "who gains, who pays, from a sweep of the grid's algorithms"),
                                   ("jones2004", "Jones et al. 2004's figures and claims from a jones2004 sweep"),
                                   ("jones2006", "Jones & Ligon 2006's figures and claims from a jones2006 sweep"),
                                   ("shih2010", "Shih, Huang & Chung's TNPIR tables and figures from a shih2010 sweep"),
                                   ("ang2007", "Ang et al.'s grouping figures and reductions from an ang2007 sweep"),
                                   ("data-blind-map", "Shan et al.'s data-blind penalty mapped over data size and WAN bandwidth")):
        paper = commands.add_parser(paper_name, help=paper_help)
        paper.add_argument("folder")
        paper.add_argument("--out", help="default: FOLDER/figures")
        paper.add_argument("--quiet", action="store_true", help="do not list the files written")
    args = parser.parse_args()
    if args.command == "jobs":
        plot_jobs(args)
    elif args.command == "fairness":
        plot_fairness(args)
    elif args.command in ("jones2004", "jones2006", "shih2010", "ang2007", "fairness-sweep", "data-blind-map"):
        import importlib

        QUIET = args.quiet
        module = {"fairness-sweep": "fairness_report", "data-blind-map": "data_blind_map"}.get(args.command, args.command + "_figures")
        importlib.import_module(module).plot(args.folder, args.out, save, args.quiet)  # built in beside this script
    else:
        QUIET = args.quiet
        plot_sweep(args)


if __name__ == "__main__":
    main()
