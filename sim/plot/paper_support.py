"""What the paper reports share: reading a sweep's summary.csv, numbers in axis
labels, markdown files, claim verdicts, and per-server change bars."""
import os
import re

import pandas as pd

VERDICTS = {None: "not examined", True: "holds", False: "does not hold", "partly": "partly"}


def number(label):
    """The first number in an axis label ("bsbw300" -> 300.0), else NaN."""
    found = re.search(r"(\d+(?:\.\d+)?)", str(label))
    return float(found.group(1)) if found else float("nan")


def load_summary(folder, sweep, axes):
    """summary.csv of a `gridsim sweep SWEEP` folder, checked to have `axes`."""
    path = os.path.join(folder, "summary.csv")
    if not os.path.exists(path):
        raise SystemExit(f"gridpeer_plot: {path} not found: run `gridsim sweep {sweep} --out {folder}` first")
    summary = pd.read_csv(path)
    for axis in axes:
        if axis not in summary.columns:
            raise SystemExit(f"gridpeer_plot: {path} has no '{axis}' axis: is it a {sweep} sweep?")
    return summary


def claim_rows(found):
    """Markdown rows of (claim, holds, evidence, figure) tuples, under their header."""
    lines = ["| claim of the paper | holds? | evidence | figure |", "|---|---|---|---|"]
    for claim, holds, evidence, figure in found:
        lines.append(f"| {claim} | {VERDICTS[holds]} | {evidence} | {figure} |")
    return lines


def write_markdown(folder, name, lines):
    path = os.path.join(folder, name)
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    return path


def plot_paper(folder, out, save, quiet, load, figures, report):
    """A paper's figures (into OUT, default FOLDER/figures) and its report
    beside the sweep; `save(figure, out, file)` writes and closes a figure."""
    summary = load(folder)
    out = out or os.path.join(folder, "figures")
    os.makedirs(out, exist_ok=True)
    figures(summary, out, save)
    path = report(summary, folder)
    if not quiet:
        print(path)


def change_bars(ax, servers, series, title):
    """Grouped bars of per-server changes (fractions; > 0 a loss), one group per server.
    `series`: (label, {server: change}) in drawing order."""
    width = 0.8 / max(1, len(series))
    for i, (label, change) in enumerate(series):
        ax.bar([s + (i - (len(series) - 1) / 2) * width for s in range(len(servers))],
               [100 * change.get(server, 0) for server in servers], width, label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(servers)))
    ax.set_xticklabels(servers)
    ax.set_xlabel("origin server (its own jobs)")
    ax.set_ylabel("turnaround vs Local (%); > 0: loses")
    ax.set_title(title, fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
