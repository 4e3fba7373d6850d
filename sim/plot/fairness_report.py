"""Who gains and who pays, from a sweep of the grid's algorithms (`gridsim sweep
shan2004-fairness`, or any grid sweep with Local among its algorithms).

For every configuration (the sweep's axes other than the algorithm), each
origin server's own jobs' mean turnaround under each algorithm against Local
-- the server alone, 001's isolation baseline -- under the same local policy:
plain algorithms against plain Local, fair ones against Local with the fair
policy. Means over seeds first, then the change. Writes who_gains.md (one table
per configuration, the worst loss of each algorithm, which servers lose) and a
bar chart per configuration in figures/.
"""
import json
import os

import matplotlib.pyplot as plt

from paper_support import change_bars, write_markdown


def load(folder):
    path = os.path.join(folder, "results.json")
    if not os.path.exists(path):
        raise SystemExit(f"gridpeer_plot: {path} not found: run the sweep first")
    runs = json.load(open(path))
    if not runs or "per_server" not in runs[0]:
        raise SystemExit(f"gridpeer_plot: {path} holds no grid runs with per-server results")
    return runs


def mean_turnarounds(runs):
    """{(configuration, algorithm label, fair): {server: mean over seeds}}, servers in order."""
    sums = {}
    servers = []
    for run in runs:
        axes = {k: v for k, v in run.get("axes", {}).items() if k != "algorithm"}
        configuration = ", ".join(f"{k} {v}" for k, v in sorted(axes.items())) or "the sweep"
        key = (configuration, run["algorithm"], bool(run.get("fair", False)))
        for server in run["per_server"]:
            if server["name"] not in servers:
                servers.append(server["name"])
            total, count = sums.setdefault(key, {}).get(server["name"], (0.0, 0))
            sums[key][server["name"]] = (total + server["avg_response_s"], count + 1)
    means = {key: {s: total / count for s, (total, count) in per.items()} for key, per in sums.items()}
    return means, servers


def tables(runs):
    means, servers = mean_turnarounds(runs)
    configurations = sorted({c for c, _, _ in means})
    result = []
    for configuration in configurations:
        references = {fair: means.get((configuration, "local-fair" if fair else "local", fair)) for fair in (False, True)}
        rows = []
        for (c, algorithm, fair), per in sorted(means.items(), key=lambda item: (item[0][2], item[0][1])):
            if c != configuration or algorithm.startswith("local"):
                continue
            reference = references[fair]
            if reference is None:
                continue
            change = {s: per[s] / reference[s] - 1 if reference.get(s) else 0.0 for s in servers if s in per}
            rows.append((algorithm, "local-fair" if fair else "local", change))
        if rows:
            result.append((configuration, rows))
    return result, servers


def report(runs, folder, save):
    found, servers = tables(runs)
    lines = ["# Who gains, who pays", "",
             "Written by `gridsim plot fairness-sweep` from this folder's results.json: each origin server's own "
             "jobs' mean turnaround (over seeds) against Local under the same local policy. Above 0 the server "
             "loses by joining the grid.", ""]
    figures = os.path.join(folder, "figures")
    os.makedirs(figures, exist_ok=True)
    for index, (configuration, rows) in enumerate(found):
        lines += [f"## {configuration}", "", "| origin | " + " | ".join(a for a, _, _ in rows) + " |",
                  "|---|" + "---|" * len(rows)]
        for server in servers:
            lines.append(f"| {server} | " + " | ".join(f"{100 * change.get(server, 0):+.2f}%" for _, _, change in rows)
                         + " |")
        lines.append("")
        for algorithm, reference, change in rows:
            worst = max(change, key=change.get)
            losers = [s for s in servers if change.get(s, 0) > 0]
            lines.append(f"- {algorithm} (against {reference}): worst {worst} {100 * change[worst]:+.2f}%; losing: "
                         + (", ".join(f"{s} {100 * change[s]:+.2f}%" for s in losers) or "none"))
        lines.append("")
        figure, ax = plt.subplots(figsize=(max(7, 0.9 * len(servers) + 2), 4))
        change_bars(ax, servers, [(algorithm, change) for algorithm, _, change in rows],
                    f"Who gains, who pays: {configuration}")
        save(figure, figures, f"who_gains_{index + 1:02d}.png")
    return write_markdown(folder, "who_gains.md", lines)


def plot(folder, out, save, quiet):
    runs = load(folder)
    path = report(runs, out or folder, save)
    if not quiet:
        print(path)
