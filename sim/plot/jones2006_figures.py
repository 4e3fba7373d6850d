"""Jones & Ligon 2006's figures and claims, from a `gridsim sweep jones2006` folder.

Figures 4-6 (one per grid: equal, small-fc, mixed): turnaround against the
arrival rate of clusters 1-3 (jobs/week per 100 nodes) for ICS on G, ICS on FC,
ICS+B on FC, OC and G, and No Share on FC (conservative 10; FCFS dotted); the
benefit of joining for the fixed cluster (No Share on FC minus its turnaround
in the grid); and reproduction.md, each of the paper's claims checked on the
data with its numbers. FC is the last cluster; OC pools clusters 1-3's jobs.
No Share on FC does not depend on the others' rate (FC alone sees only its
own jobs), so it is one value per grid, drawn across, as in the paper.

With an fc-load axis (`gridsim sweep jones2006-fc-load`): FC's excess over No
Share against the others' rate, one line per load of FC's own, and the claims
judged at each load.
"""

import coalloc_peers_figures
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paper_support import VERDICTS, claim_rows, load_summary, number, plot_paper, write_markdown

GRIDS = [("equal", "Fig. 4: 100/100/100/100"), ("small-fc", "Fig. 5: 100/100/100/50"),
         ("mixed", "Fig. 6: 200/100/100/50")]
NODES = {"equal": (100, 100, 100, 100), "small-fc": (100, 100, 100, 50), "mixed": (200, 100, 100, 50)}
SATURATION = 4480  # jobs/week per 100 nodes at load 1 (T_E 450 s, UNIF[10, 50] nodes)
PRESSED = 3500  # the others' rate from which they are pressed (load 0.78)


def departure_rate(grid, fc_rate=570):
    """The others' rate (per 100 nodes) at which the whole grid saturates: what
    every node can drain less FC's own jobs, over the others' nodes."""
    nodes = NODES[grid]
    return (sum(nodes) * SATURATION - nodes[-1] * fc_rate) / sum(nodes[:-1])
FC = "fixed_cluster_turnaround_s"
OC = "other_clusters_turnaround_s"
G = "avg_turnaround_s"
CURVES = [  # (scheduler, metric, label, style)
    ("ics", G, "ICS on G", dict(color="tab:blue", linestyle="-", marker="o")),
    ("ics", FC, "ICS on FC", dict(color="tab:blue", linestyle="--", marker="x")),
    ("ics-b", FC, "ICS+B on FC", dict(color="tab:red", linestyle="-", marker="s")),
    ("ics-b", OC, "ICS+B on OC", dict(color="tab:orange", linestyle="-", marker="^")),
    ("ics-b", G, "ICS+B on G", dict(color="tab:purple", linestyle="-", marker="v")),
    ("no-share", FC, "No Share on FC", dict(color="black", linestyle="-", marker=None)),
    ("no-share-fcfs", FC, "No Share on FC (FCFS)", dict(color="grey", linestyle=":", marker=None)),
]


def load(folder):
    summary = load_summary(folder, "jones2006", ("grid", "rate", "scheduler"))
    summary["rate_per_week"] = summary["rate"].map(number)
    return summary


def no_share_fc(summary, grid, scheduler="no-share"):
    """(mean, 95% interval) of FC alone: one run whatever the others' rate."""
    rows = summary[(summary["grid"] == grid) & (summary["scheduler"] == scheduler)]
    if not len(rows):
        return float("nan"), float("nan")
    ci = rows[FC + "_ci95"].mean() if FC + "_ci95" in rows else float("nan")
    return rows[FC + "_mean"].mean(), ci


def close_to_alone(summary, grid):
    """The paper's first claim in its own words at one grid: FC under ICS+B "no
    worse than it would be if it were not participating", though "sometimes
    worse than that of the No Share". Over the rates where the others are
    pressed, the rates where ICS+B on FC is worse than alone by more than the
    two runs' combined 95% interval, the worst excess, and whether ICS+B is
    below ICS at every one of them (it protects FC at all)."""
    alone, alone_ci = no_share_fc(summary, grid)
    rates = [r for r in sorted(summary["rate_per_week"].unique()) if r >= PRESSED]
    worse, excess, protects, judged = [], [], True, []
    for r in rates:
        icsb, icsb_ci = value(summary, grid, "ics-b", FC, r), interval(summary, grid, "ics-b", FC, r)
        ics = value(summary, grid, "ics", FC, r)
        if icsb != icsb or alone != alone:
            continue
        judged.append(r)
        excess.append(icsb / alone - 1)
        noise = (zero_if_nan(alone_ci) ** 2 + zero_if_nan(icsb_ci) ** 2) ** 0.5
        if icsb - alone > noise:
            worse.append(r)
        if not icsb < ics:
            protects = False
    if not judged:
        return None, "no rate with the others pressed", judged, worse, excess
    if len(worse) <= len(judged) / 3:
        holds = True
    elif protects:
        holds = "partly"
    else:
        holds = False
    return holds, "", judged, worse, excess


def zero_if_nan(v):
    return 0.0 if v != v else v


def interval(summary, grid, scheduler, metric, rate):
    """The 95% interval over seeds of `metric` at one point (NaN with one seed)."""
    return _cell(summary, grid, scheduler, metric + "_ci95", rate)


def _cell(summary, grid, scheduler, column, rate):
    rows = summary[(summary["grid"] == grid) & (summary["scheduler"] == scheduler) &
                   (summary["rate_per_week"] == rate)]
    return rows[column].mean() if len(rows) and column in rows else float("nan")


def series(summary, grid, scheduler, metric):
    rows = summary[(summary["grid"] == grid) & (summary["scheduler"] == scheduler)].sort_values("rate_per_week")
    ci = rows[metric + "_ci95"] if metric + "_ci95" in rows else None
    return rows["rate_per_week"].to_numpy(), rows[metric + "_mean"].to_numpy(), ci


def value(summary, grid, scheduler, metric, rate):
    """The mean over seeds of `metric` at one point."""
    return _cell(summary, grid, scheduler, metric + "_mean", rate)


def figures(summary, out, save):
    grids = [g for g in GRIDS if g[0] in set(summary["grid"])]
    for index, (grid, title) in enumerate(grids):
        figure, ax = plt.subplots(figsize=(7.5, 4.8))
        rates = summary[summary["grid"] == grid]["rate_per_week"]
        for scheduler, metric, label, style in CURVES:
            x, y, ci = series(summary, grid, scheduler, metric)
            if len(x) == 0:
                continue
            if scheduler.startswith("no-share"):  # FC alone: one value, across every rate
                alone, alone_ci = no_share_fc(summary, grid, scheduler)
                x = np.array([rates.min(), rates.max()])
                y = np.array([alone, alone])
                ci = pd.Series([alone_ci, alone_ci])
            ax.plot(x, y, label=label, linewidth=1.4, markersize=4, **style)
            if ci is not None and ci.notna().any():
                ax.fill_between(x, y - ci.fillna(0).to_numpy(), y + ci.fillna(0).to_numpy(), alpha=0.12,
                                color=style["color"], linewidth=0)
        # Near instability OC's No Share turnaround runs away; the paper's axes
        # show the grid's curves, so the chart stops at twice ICS+B on OC.
        _, oc, _ = series(summary, grid, "ics-b", OC)
        if len(oc):
            low, high = ax.get_ylim()
            ax.set_ylim(max(0, low), min(high, 2 * max(oc)))
        for at, what in ((SATURATION, "clusters 1-3 alone saturate"),
                         (departure_rate(grid), "the grid saturates")):
            if rates.max() >= 0.9 * at:
                ax.axvline(at, color="grey", linestyle=":", linewidth=1)
                ax.annotate(what, (at, 0.98), xycoords=("data", "axes fraction"), rotation=90, ha="right",
                            va="top", fontsize="x-small", color="grey")
        ax.set_xlabel("arrival rate of clusters 1-3 (jobs/week per 100 nodes); FC stays at 570")
        ax.set_ylabel("average turnaround (s)")
        ax.set_title(f"{title} (FC is the last cluster; mean, 95% CI over seeds)", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        save(figure, out, f"fig{4 + index}_{grid}.png")
    figure, axes = plt.subplots(1, len(grids), figsize=(4.2 * len(grids), 4), sharey=True, squeeze=False)
    for ax, (grid, title) in zip(axes[0], grids):
        alone, _ = no_share_fc(summary, grid)
        for scheduler, label, color in (("ics", "ICS", "tab:blue"), ("ics-b", "ICS+B", "tab:red")):
            x, fc, _ = series(summary, grid, scheduler, FC)
            ax.plot(x, alone - fc, label=label, color=color, marker="o", markersize=3)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_title(title, fontsize="small")
        ax.set_xlabel("rate of clusters 1-3 (jobs/week/100 nodes)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("FC's benefit: No Share − grid turnaround (s)")
    axes[0][0].legend(fontsize="small")
    save(figure, out, "fc_benefit.png")


def fmt(v):
    return f"{v:.0f}" if v == v else "-"


def claims(summary):
    """(claim, holds, evidence, figure): holds is True, False, "partly" or None."""
    result = []
    grids = [g for g, _ in GRIDS if g in set(summary["grid"])]
    rates = sorted(summary["rate_per_week"].unique())
    if not grids or not rates:
        return result
    low = rates[0]
    # 1. ICS+B keeps FC close to No Share under extreme pressure, in the paper's words.
    verdicts, parts = [], []
    for grid in grids:
        holds, why, judged, worse, excess = close_to_alone(summary, grid)
        if holds is None:
            parts.append(f"{grid}: {why}")
            continue
        verdicts.append(holds)
        ics_worst = max(value(summary, grid, "ics", FC, r) / no_share_fc(summary, grid)[0] - 1 for r in judged)
        parts.append(f"{grid}: worse than alone at {len(worse)} of {len(judged)} rates from {PRESSED} "
                     f"(worst {max(excess):+.1%}; ICS {ics_worst:+.1%})")
    holds = (None if not verdicts else True if all(v is True for v in verdicts)
             else False if all(v is False for v in verdicts) else "partly")
    result.append(("ICS+B keeps FC \"no worse than it would be if it were not participating\", though \"sometimes "
                   "worse\" (§5)", holds,
                   "; ".join(parts) + ". Worse = above No Share by more than the two runs' 95% intervals; holds "
                   "if worse at no more than a third of the rates where the others are pressed, partly if more "
                   "often but always below ICS", "fig4-6, fc_benefit"))
    # 2. Balanced rates: every cluster benefits.
    rows = []
    benefits = []
    for grid in grids:
        fc_gain = value(summary, grid, "no-share", FC, low) - value(summary, grid, "ics-b", FC, low)
        oc_gain = value(summary, grid, "no-share", OC, low) - value(summary, grid, "ics-b", OC, low)
        ics_fc_gain = value(summary, grid, "no-share", FC, low) - value(summary, grid, "ics", FC, low)
        benefits += [fc_gain > 0, oc_gain > 0]
        rows.append(f"{grid}: FC {fc_gain:+.0f} s, OC {oc_gain:+.0f} s (ICS: FC {ics_fc_gain:+.0f} s)")
    result.append((f"With balanced rates ({low:g} everywhere) every cluster benefits (ICS+B)", all(benefits),
                   "gain over No Share: " + "; ".join(rows), "fig4-6"))
    # 3. ICS+B on OC slightly worse than ICS, the gap growing with disparity.
    gaps, tops = {}, {}
    for grid in grids:
        mine = rates_of(summary, grid)
        tops[grid] = mine[-1]
        gaps[grid] = [value(summary, grid, "ics-b", OC, r) - value(summary, grid, "ics", G, r) for r in mine]
    worse_at_top = [g for g in grids if gaps[g][-1] > 0]
    growing = [g for g in grids if gaps[g][-1] > gaps[g][0]]
    slight = [g for g in grids if gaps[g][-1] <= 0.10 * value(summary, g, "ics", G, tops[g])]
    holds = True if len(worse_at_top) == len(grids) and len(growing) == len(grids) and len(slight) == len(grids) \
        else ("partly" if worse_at_top or growing else False)
    result.append(("ICS+B on OC is slightly worse than ICS, the gap growing with disparity", holds,
                   "ICS+B on OC − ICS on G from the lowest rate to each grid's highest: " +
                   "; ".join(f"{g} {gaps[g][0]:+.0f} → {gaps[g][-1]:+.0f} s at {tops[g]:g} "
                             f"({gaps[g][-1] / value(summary, g, 'ics', G, tops[g]):+.1%})" for g in grids) +
                   " (slight: within 10% of ICS on G)",
                   "fig4-6"))
    # 4. Under ICS per-cluster turnarounds are roughly equal.
    spread = {}
    for grid in grids:
        spread[grid] = max(abs(value(summary, grid, "ics", FC, r) - value(summary, grid, "ics", OC, r)) /
                           value(summary, grid, "ics", G, r) for r in rates)
    worst = max(spread.values())
    result.append(("Under ICS the clusters' turnarounds are roughly equal", True if worst <= 0.10 else
                   ("partly" if worst <= 0.25 else False),
                   "largest |ICS on FC − ICS on OC| / ICS on G over rates: " +
                   "; ".join(f"{g} {s:.1%}" for g, s in spread.items()) + " (holds within 10%)", "fig4-6"))
    # 5. Near the departure rate the others' performance varies widely.
    spreads, grown = [], []
    for grid in grids:
        mine = rates_of(summary, grid)
        at_top = relative_interval(summary, grid, mine[-1])
        at_own = relative_interval(summary, grid, max(r for r in mine if r <= SATURATION))
        spreads.append(f"{grid} {at_own:.1%} at {max(r for r in mine if r <= SATURATION):g} → {at_top:.1%} at "
                       f"{mine[-1]:g} ({mine[-1] / departure_rate(grid):.0%} of the grid's departure rate)")
        grown.append(at_top >= 0.10 and at_top > at_own)
    result.append(("Pushed \"extremely close to the departure rate\", the other clusters vary widely, and so "
                   "does FC (§5)", None if not grown else True if all(grown) else "partly" if any(grown) else False,
                   "95% interval over seeds of ICS+B on OC, relative to its mean: " + "; ".join(spreads) +
                   " (holds where it reaches 10% and grows)", "fig4-6"))
    return result


def rates_of(summary, grid):
    """The others' rates run on this grid (each stops below its own departure rate)."""
    return sorted(summary[(summary["grid"] == grid) & (summary["scheduler"] == "ics-b")]["rate_per_week"].unique())


def relative_interval(summary, grid, rate):
    mean = value(summary, grid, "ics-b", OC, rate)
    return zero_if_nan(interval(summary, grid, "ics-b", OC, rate)) / mean if mean == mean and mean > 0 else float("nan")


def benefit_table(summary):
    grids = [g for g, _ in GRIDS if g in set(summary["grid"])]
    lines = ["| grid | rate of C1-3 | No Share on FC | ICS on FC | ICS+B on FC | benefit ICS | benefit ICS+B | "
             "ICS on G | ICS+B on OC |", "|---|---|---|---|---|---|---|---|---|"]
    for grid in grids:
        ns, _ = no_share_fc(summary, grid)
        for r in rates_of(summary, grid):
            ics = value(summary, grid, "ics", FC, r)
            icsb = value(summary, grid, "ics-b", FC, r)
            lines.append(f"| {grid} | {r:g} | {fmt(ns)} | {fmt(ics)} | {fmt(icsb)} | {ns - ics:+.0f} | "
                         f"{ns - icsb:+.0f} | {fmt(value(summary, grid, 'ics', G, r))} | "
                         f"{fmt(value(summary, grid, 'ics-b', OC, r))} ± "
                         f"{fmt(interval(summary, grid, 'ics-b', OC, r))} |")
    return lines


def report(summary, folder):
    lines = ["# Jones & Ligon 2006 reproduced: fairness to a fixed cluster", "",
             "Written by `gridsim plot jones2006` from this folder's summary.csv (means over seeds, in seconds). "
             "The paper publishes curves without numbers: the claims are checked on their shape. "
             "Benefit = No Share on FC − turnaround on FC (≥ 0: joining pays).", ""]
    lines += benefit_table(summary)
    lines += [""] + claim_rows(claims(summary))
    return write_markdown(folder, "reproduction.md", lines)


# ---- the fixed cluster's own load as an axis (jones2006-fc-load) ------------------------------------

def fc_loads(summary):
    return sorted(summary["fc-load"].unique(), key=number)


def fc_load_figures(summary, out, save):
    grids = [g for g in GRIDS if g[0] in set(summary["grid"])]
    loads = fc_loads(summary)
    figure, axes = plt.subplots(1, len(grids), figsize=(4.4 * len(grids), 4.4), sharey=True, squeeze=False)
    for ax, (grid, title) in zip(axes[0], grids):
        for k, label in enumerate(loads):
            at = summary[summary["fc-load"] == label]
            alone, _ = no_share_fc(at, grid)
            for scheduler, style, name in (("ics-b", "-", "ICS+B"), ("ics", "--", "ICS")):
                x, fc, _ = series(at, grid, scheduler, FC)
                ax.plot(x, 100 * (fc / alone - 1), style, color=f"C{k}", marker="o" if scheduler == "ics-b" else None,
                        markersize=3, label=f"{name}, FC load {number(label):.2f}")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_title(title.split(": ")[1], fontsize="small")
        ax.set_xlabel("rate of clusters 1-3 (jobs/week per 100 nodes)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("FC's turnaround over No Share (%); > 0: joining costs FC")
    axes[0][-1].legend(fontsize="x-small", ncol=2)
    figure.suptitle("Jones & Ligon 2006 with the fixed cluster at five loads of its own (mean over seeds)",
                    fontsize="medium")
    save(figure, out, "fc_load_excess.png")


def fc_load_report(summary, folder):
    grids = [g for g, _ in GRIDS if g in set(summary["grid"])]
    top = max(summary["rate_per_week"])
    lines = ["# Jones & Ligon 2006 with the fixed cluster's load as an axis", "",
             "Written by `gridsim plot jones2006` from this folder's summary.csv (means over seeds, in seconds; ± "
             "the 95% interval). FC's load is its rate / 4480; the others' rate rises as in jones2006. Excess = "
             "FC's turnaround in the grid over No Share on FC. The trade-off = ICS+B on OC over ICS on OC at "
             f"{top:g}. The verdict is the paper's first claim in its own words (jones2006's reproduction.md).", "",
             f"| grid | FC load | No Share on FC | ICS+B on FC at {top:g} | excess | ICS on FC at {top:g} | excess | "
             "trade-off | worse than alone | verdict |", "|---|---|---|---|---|---|---|---|---|---|"]
    for grid in grids:
        for label in fc_loads(summary):
            at = summary[summary["fc-load"] == label]
            alone, alone_ci = no_share_fc(at, grid)
            icsb, ics = value(at, grid, "ics-b", FC, top), value(at, grid, "ics", FC, top)
            oc_icsb, oc_ics = value(at, grid, "ics-b", OC, top), value(at, grid, "ics", OC, top)
            holds, _, judged, worse, _ = close_to_alone(at, grid)
            lines.append(f"| {grid} | {number(label):.2f} | {alone:.1f} ± {zero_if_nan(alone_ci):.1f} | "
                         f"{icsb:.1f} ± {zero_if_nan(interval(at, grid, 'ics-b', FC, top)):.1f} | "
                         f"{icsb / alone - 1:+.1%} | {ics:.1f} | {ics / alone - 1:+.1%} | {oc_icsb / oc_ics - 1:+.1%} | "
                         f"{len(worse)} of {len(judged)} | {VERDICTS[holds]} |")
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, out, save, quiet):
    if coalloc_peers_figures.placed_by_peers(folder):  # placed by the meta-scheduler and by peers
        coalloc_peers_figures.plot(folder, out, save, quiet)
        return
    if "fc-load" in load(folder).columns:
        plot_paper(folder, out, save, quiet, load, fc_load_figures, fc_load_report)
        return
    plot_paper(folder, out, save, quiet, load, figures, report)
