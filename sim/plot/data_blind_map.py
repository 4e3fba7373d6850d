"""Shan et al. 2004's data-blind penalty as a map (`gridsim sweep shan2004-data-blind-map`).

Sy-I decides with and without the data-transfer terms on the same jobs (the
same seed draws the same data). The penalty of one seed is blind Sy-I's mean
turnaround over aware Sy-I's, minus one; a cell is its mean over seeds with a
95% Student-t interval. A blind run that leaves jobs unfinished averages only
the jobs that ended, so its penalty is a lower bound: such cells are marked.

The paper gives two points: +4% on the fast network (WAN 40 Mb/s) and +690%
on the slow one (4 Mb/s), both at b = 10,000 B per CPU-second (large data).
On the map they sit at b / WAN = 250 and 2,500 bytes per CPU-second per Mb/s.
"""
import json
import math
import os

import matplotlib.colors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paper_support import number, plot_paper, write_markdown

PAPER_POINTS = ((40.0, 10000.0, 0.04, "fast"), (4.0, 10000.0, 6.90, "slow"))
# Two-sided 95% Student-t quantiles by degrees of freedom (no scipy in Debian's minimal set).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
CLIFF = 1.0  # the edge: blind turnaround twice aware's
AGREES = 2.0  # a published point is matched when the slowdowns (1 + penalty) are within this factor
READINGS = {"cpus": "data per CPU (the paper's words)", "nodes": "data per node (its Table 2)"}


def t95(n):
    return T95.get(n - 1, 1.96) if n > 1 else float("nan")


def load(folder):
    path = os.path.join(folder, "results.json")
    if not os.path.exists(path):
        raise SystemExit(f"gridpeer_plot: {path} not found: run "
                         f"`gridsim sweep shan2004-data-blind-map --out {folder}` first")
    rows = []
    for run in json.load(open(path)):
        axes = run.get("axes", {})
        if not {"mapping", "wan", "data-size", "data-work", "algorithm"} <= set(axes):
            raise SystemExit(f"gridpeer_plot: {path} is not a shan2004-data-blind-map sweep "
                             f"(run {run.get('run')} has axes {sorted(axes)})")
        rows.append({"mapping": axes["mapping"], "wan": run["wan_mbps"], "b": number(axes["data-size"]),
                     "work": axes["data-work"], "blind": bool(run["data_blind"]), "seed": run["seed"],
                     "response": run["avg_response_s"], "unfinished": run["unfinished_jobs"], "jobs": run["jobs"]})
    runs = pd.DataFrame(rows)
    keys = ["mapping", "wan", "b", "work", "seed"]
    aware = runs[~runs.blind].set_index(keys)
    blind = runs[runs.blind].set_index(keys)
    paired = aware.join(blind, lsuffix="_aware", rsuffix="_blind", how="inner").reset_index()
    paired["penalty"] = paired.response_blind / paired.response_aware - 1
    cells = []
    for key, group in paired.groupby(["mapping", "wan", "b", "work"], sort=True):
        n = len(group)
        mean = group.penalty.mean()
        half = t95(n) * group.penalty.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
        cells.append(dict(zip(["mapping", "wan", "b", "work"], key), penalty=mean, half=half, seeds=n,
                          unfinished=group.unfinished_blind.mean(), unfinished_aware=group.unfinished_aware.mean(),
                          jobs=group.jobs_blind.mean()))
    return pd.DataFrame(cells)


def mappings(cells):
    order = ["ours", "windows", "other-logs"]
    present = list(cells.mapping.unique())
    return [m for m in order if m in present] + sorted(m for m in present if m not in order)


def cell_text(row):
    p = 100 * row.penalty
    text = f"{p:+.0f}%" if abs(p) < 1e4 else f"{p:+.1e}%"
    return text + ("†" if row.unfinished > 0 else "")


def heat_maps(cells, out, save):
    maps = mappings(cells)
    works = [w for w in READINGS if w in set(cells.work)]
    figure, axes = plt.subplots(len(works), len(maps), figsize=(4.6 * len(maps), 4.2 * len(works)), squeeze=False)
    norm = matplotlib.colors.LogNorm(vmin=1, vmax=max(1e3, 100 * cells.penalty.max()))
    wans = sorted(cells.wan.unique())
    sizes = sorted(cells.b.unique())
    for r, work in enumerate(works):
        for c, mapping in enumerate(maps):
            ax = axes[r][c]
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            grid = np.full((len(sizes), len(wans)), np.nan)
            for row in part.itertuples():
                grid[sizes.index(row.b), wans.index(row.wan)] = max(100 * row.penalty, 1)
            ax.imshow(grid, origin="lower", cmap="magma_r", norm=norm, aspect="auto")
            for row in part.itertuples():
                ax.text(wans.index(row.wan), sizes.index(row.b), cell_text(row), ha="center", va="center",
                        fontsize=6.5, color="white" if 100 * row.penalty > 300 else "black")
            for wan, b, paper, name in PAPER_POINTS:
                if wan in wans and b in sizes:
                    ax.add_patch(plt.Rectangle((wans.index(wan) - 0.5, sizes.index(b) - 0.5), 1, 1, fill=False,
                                               edgecolor="tab:blue", linewidth=2))
                    # On a light box: the darkest cells would swallow blue text.
                    ax.annotate(f"paper {paper:+.0%}", (wans.index(wan), sizes.index(b) + 0.32), ha="center",
                                fontsize=6.5, color="tab:blue",
                                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                                      "alpha": 0.85})
            ax.set_xticks(range(len(wans)), [f"{w:g}" for w in wans])
            ax.set_yticks(range(len(sizes)), [f"{b:g}" for b in sizes])
            ax.set_xlabel("WAN Mb/s (site networks 20×)")
            ax.set_ylabel("b, bytes per CPU-second")
            ax.set_title(f"{mapping}: {READINGS[work]}", fontsize="medium")
    figure.suptitle("Data-blind Sy-I's penalty over aware Sy-I (mean of seeds; † jobs left unfinished)",
                    fontsize="medium")
    save(figure, out, "data_blind_map.png")


def cliff_figure(cells, out, save):
    figure, ax = plt.subplots(figsize=(7.5, 4.8))
    markers = {"cpus": "o", "nodes": "s"}
    for mapping in mappings(cells):
        for work in READINGS:
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            if part.empty:
                continue
            curve = ratio_curve(part)
            ax.plot(curve.ratio, 100 * curve.penalty, marker=markers[work], markersize=4, linewidth=1,
                    label=f"{mapping}, {work}")
    for wan, b, paper, name in PAPER_POINTS:
        ax.plot([b / wan], [100 * paper], marker="*", markersize=14, color="black", linestyle="none")
        ax.annotate(f"paper, {name} network {paper:+.0%}", (b / wan, 100 * paper), textcoords="offset points",
                    xytext=(6, -12), fontsize="small")
    ax.axhline(100 * CLIFF, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylim(bottom=-1)  # penalties below 0 are within noise of 0
    ax.set_xlabel("b / WAN bandwidth (bytes per CPU-second per Mb/s)")
    ax.set_ylabel("data-blind penalty (%)")
    ax.set_title("The cliff: the penalty against data size over bandwidth (mean over the cells of a ratio)",
                 fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2)
    save(figure, out, "data_blind_cliff.png")


def figures(cells, out, save):
    heat_maps(cells, out, save)
    cliff_figure(cells, out, save)


def cliff_edge(part):
    """The smallest b / WAN with a mean penalty of at least CLIFF, and the smallest
    with jobs left unfinished (None: none on the map)."""
    ratio = part.b / part.wan
    steep = ratio[part.penalty >= CLIFF]
    stuck = ratio[part.unfinished > 0]
    return (steep.min() if len(steep) else None), (stuck.min() if len(stuck) else None)


def ratio_curve(part):
    """(ratio, mean penalty, unfinished) per b / WAN, ascending: the map read along its one axis."""
    part = part.assign(ratio=part.b / part.wan)
    curve = part.groupby("ratio").agg(penalty=("penalty", "mean"), unfinished=("unfinished", "max")).reset_index()
    return curve.sort_values("ratio")


def crossing(curve, target):
    """The b / WAN where the curve first reaches `target`, interpolated in log(ratio) against
    log(1 + penalty); None where it never does or starts above it."""
    rows = list(curve.itertuples())
    for low, high in zip(rows, rows[1:]):
        if low.penalty < target <= high.penalty:
            a, b = math.log1p(low.penalty), math.log1p(high.penalty)
            share = (math.log1p(target) - a) / (b - a)
            return math.exp(math.log(low.ratio) + share * (math.log(high.ratio) - math.log(low.ratio)))
    return None


def collapse(part):
    """The largest gap, in log(1 + penalty), between cells of one b / WAN (other b and WAN):
    the site networks scale with the WAN, so only the ratio should matter."""
    part = part.assign(ratio=part.b / part.wan)
    worst = 0.0
    for _, cells in part[part.unfinished == 0].groupby("ratio"):
        if len(cells) > 1:
            values = [math.log1p(p) for p in cells.penalty]
            worst = max(worst, max(values) - min(values))
    return worst


def fmt_ratio(value):
    return "none on the map" if value is None else f"{value:,.0f}"


def pct(row):
    text = f"{100 * row.penalty:+,.0f}%"
    if not math.isnan(row.half):
        text += f" ± {100 * row.half:,.0f}"
    return text + (f" ({row.unfinished:.0f} unfinished)" if row.unfinished > 0 else "")


def agrees(ours, paper):
    return abs(math.log((1 + ours) / (1 + paper))) <= math.log(AGREES)


def report(cells, folder):
    maps = mappings(cells)
    wans = sorted(cells.wan.unique())
    sizes = sorted(cells.b.unique())
    lines = ["# The data-blind penalty, mapped", "",
             "Shan et al. 2004 report data-blind Sy-I at +4% over aware Sy-I on the fast network (WAN "
             "40 Mb/s) and +690% on the slow one (4 Mb/s), both with large data (b = 10,000 B per "
             "CPU-second). Each cell below is data-blind Sy-I's mean turnaround over aware Sy-I's, minus one, "
             "mean ± 95% interval over the seeds (paired: the same seed draws the same data). "
             "A cell marked with unfinished jobs is a lower bound: the blind run's mean covers the jobs that "
             "ended. Site networks are 20× the WAN, as in both of the paper's settings.", "",
             "## Where the paper's two points sit", "",
             f"A point agrees when the slowdowns (1 + penalty) are within a factor of {AGREES:g}.", "",
             "| mapping | data counted per | fast (paper +4%) | agrees? | slow (paper +690%) | agrees? |",
             "|---|---|---|---|---|---|"]
    both = []
    for mapping in maps:
        for work in READINGS:
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            found = []
            for wan, b, paper, _ in PAPER_POINTS:
                row = part[(part.wan == wan) & (part.b == b)]
                found.append(None if row.empty else next(row.itertuples()))
            if any(f is None for f in found):
                continue
            verdicts = [agrees(f.penalty, p[2]) and f.unfinished == 0 for f, p in zip(found, PAPER_POINTS)]
            if all(verdicts):
                both.append(f"{mapping}/{work}")
            lines.append(f"| {mapping} | {work} | {pct(found[0])} | {'yes' if verdicts[0] else 'no'} | "
                         f"{pct(found[1])} | {'yes' if verdicts[1] else 'no'} |")
    lines += ["", "Both points agree on: " + (", ".join(both) if both else "no mapping and reading") + ".", "",
              "## The cliff", "",
              f"The edge is the smallest b / WAN (bytes per CPU-second per Mb/s) where the mean penalty "
              f"reaches +{100 * CLIFF:.0f}%; the paper's points are at 250 (fast) and 2,500 (slow).", "",
              "| mapping | data counted per | edge: penalty ≥ +100% | first unfinished jobs | "
              "penalty at 250 (mean of cells) | at 2,500 |", "|---|---|---|---|---|---|"]
    for mapping in maps:
        for work in READINGS:
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            if part.empty:
                continue
            steep, stuck = cliff_edge(part)
            ratio = part.b / part.wan
            at = [part[np.isclose(ratio, r)].penalty.mean() for r in (250.0, 2500.0)]
            lines.append(f"| {mapping} | {work} | {fmt_ratio(steep)} | {fmt_ratio(stuck)} | "
                         + " | ".join("–" if math.isnan(a) else f"{100 * a:+,.0f}%" for a in at) + " |")
    lines += ["", "Cells of one b / WAN (another b over a proportionally faster network) agree: the largest "
              "gap between them, as a factor on the slowdown (1 + penalty), is "
              + ", ".join(f"{m}/{w} ×{math.exp(collapse(cells[(cells.mapping == m) & (cells.work == w)])):.2f}"
                          for m in maps for w in READINGS
                          if not cells[(cells.mapping == m) & (cells.work == w)].empty)
              + " (cells with unfinished jobs left out). With the site networks at 20× the WAN every "
              "transfer time is bytes over bandwidth, so the map is one curve in b / WAN: the paper's "
              "two networks are one decade along it.", "",
              "## Where the paper's two values fall on each curve", "",
              "The b / WAN at which each curve reaches +4% and +690%, and how far apart they are "
              "(the paper: 250 and 2,500, a factor of 10).", "",
              "| mapping | data counted per | reaches +4% at | reaches +690% at | factor between |",
              "|---|---|---|---|---|"]
    for mapping in maps:
        for work in READINGS:
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            if part.empty:
                continue
            curve = ratio_curve(part)
            low, high = crossing(curve, 0.04), crossing(curve, 6.90)
            factor = "–" if low is None or high is None else f"{high / low:.1f}"
            lines.append(f"| {mapping} | {work} | {fmt_ratio(low)} | {fmt_ratio(high)} | {factor} |")
    lines += ["", "## The map", ""]
    for mapping in maps:
        for work in READINGS:
            part = cells[(cells.mapping == mapping) & (cells.work == work)]
            if part.empty:
                continue
            lines += [f"### {mapping}, {READINGS[work]}", "",
                      "| b \\ WAN Mb/s | " + " | ".join(f"{w:g}" for w in wans) + " |",
                      "|---|" + "---|" * len(wans)]
            for b in sizes:
                row = [f"{b:g}"]
                for wan in wans:
                    hit = part[(part.wan == wan) & (part.b == b)]
                    row.append("–" if hit.empty else pct(next(hit.itertuples())))
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
    lines += ["Figures: `figures/data_blind_map.png` (the map per mapping and reading, the paper's two "
              "points boxed), `figures/data_blind_cliff.png` (the penalty against b / WAN)."]
    return write_markdown(folder, "data_blind_map.md", lines)


def plot(folder, out, save, quiet):
    plot_paper(folder, out, save, quiet, load, figures, report)
