"""Co-allocation placed by the peers themselves against the meta-scheduler,
from a `gridsim sweep jones2004-peers` or `jones2006-peers` folder (a coalloc
sweep with a placed-by axis).

jones2004-peers: each method's turnaround over BSBW, meta-scheduler and peers
side by side; the price of deciding without global knowledge (peers / meta - 1)
per method and BSBW; the share of jobs split. jones2006-peers: the fixed
cluster's and the other clusters' turnaround over the others' rate under ICS
and ICS+B, meta-scheduler and peers, beside No Share. Both write reproduction.md: the
tables the reproduction reports quote.
"""

import os

import matplotlib.pyplot as plt
import pandas as pd

from paper_support import number, write_markdown

NAMES = {"a1": "A1", "b3-85": "B3 85%", "migration-only": "Migration Only", "ics": "ICS", "ics-b": "ICS+B",
         "no-share": "No Share"}
STYLE = {"meta": "-", "peers": "--"}
WHO = {"meta": "meta-scheduler", "peers": "S-I peers"}


def load(folder):
    path = os.path.join(folder, "summary.csv")
    if not os.path.exists(path):
        raise SystemExit(f"gridpeer_plot: {path} not found: run the sweep first")
    summary = pd.read_csv(path)
    if "placed-by" not in summary.columns:
        raise SystemExit(f"gridpeer_plot: {path} has no 'placed-by' axis: is it a jones2004-peers sweep?")
    return summary


def mean(summary, metric, **where):
    rows = summary
    for column, value in where.items():
        rows = rows[rows[column] == value]
    return (rows[metric + "_mean"].mean() if len(rows) else float("nan"),
            rows[metric + "_ci95"].mean() if len(rows) else float("nan"))


def with_ci(value, ci):
    return f"{value:.1f}" + (f" ± {ci:.1f}" if ci == ci else "")


def price(peers, meta):
    return f"{(peers - meta) / meta:+.1%}" if meta == meta and peers == peers and meta > 0 else "–"


# ---- Jones et al. 2004 ------------------------------------------------------------------------------

def methods_figures(summary, out, save):
    summary = summary.copy()
    summary["bsbw_mbps"] = summary["bsbw"].map(number)
    methods = [m for m in ("a1", "b3-85", "migration-only") if m in set(summary["method"])]
    bsbws = sorted(summary["bsbw_mbps"].unique())
    figure, ax = plt.subplots(figsize=(7.5, 4.8))
    for k, method in enumerate(methods):
        for who in ("meta", "peers"):
            rows = summary[(summary["method"] == method) & (summary["placed-by"] == who)]
            if method == "migration-only":  # reads no BSBW: one value, drawn across
                value, _ = mean(rows, "avg_turnaround_s")
                xs, ys = bsbws, [value] * len(bsbws)
            else:
                rows = rows.sort_values("bsbw_mbps")
                xs, ys = rows["bsbw_mbps"], rows["avg_turnaround_s_mean"]
            ax.plot(xs, ys, STYLE[who], color=f"C{k}", marker="o" if method != "migration-only" else None,
                    markersize=3, label=f"{NAMES[method]}, {WHO[who]}")
    ax.set_xlabel("job BSBW (Mb/s)")
    ax.set_ylabel("average turnaround (s)")
    ax.set_title("Jones et al. 2004's set-up: placed by the meta-scheduler\nand by the peers themselves")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2)
    save(figure, out, "peers_vs_meta.png")
    figure, ax = plt.subplots(figsize=(7.5, 4.4))
    for method in methods:
        prices = []
        for b in bsbws:
            where = {} if method == "migration-only" else {"bsbw_mbps": b}
            meta, _ = mean(summary[summary["method"] == method], "avg_turnaround_s", **where, **{"placed-by": "meta"})
            peers, _ = mean(summary[summary["method"] == method], "avg_turnaround_s", **where, **{"placed-by": "peers"})
            prices.append(100 * (peers - meta) / meta)
        ax.plot(bsbws, prices, marker="o", markersize=3, label=NAMES[method])
    ax.set_xlabel("job BSBW (Mb/s)")
    ax.set_ylabel("peers' turnaround over the meta-scheduler's (%)")
    ax.set_title("The price of deciding without global knowledge")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, out, "price_of_peers.png")
    figure, ax = plt.subplots(figsize=(7.5, 4.4))
    for k, method in enumerate(m for m in methods if m != "migration-only"):
        for who in ("meta", "peers"):
            rows = summary[(summary["method"] == method) & (summary["placed-by"] == who)].sort_values("bsbw_mbps")
            ax.plot(rows["bsbw_mbps"], 100 * rows["fraction_coallocated_mean"], STYLE[who], color=f"C{k}", marker="o",
                    markersize=3, label=f"{NAMES[method]}, {WHO[who]}")
    ax.set_xlabel("job BSBW (Mb/s)")
    ax.set_ylabel("jobs split (%)")
    ax.set_title("How often each splits")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, out, "split_share.png")


def methods_report(summary, folder):
    summary = summary.copy()
    summary["bsbw_mbps"] = summary["bsbw"].map(number)
    bsbws = sorted(summary["bsbw_mbps"].unique())
    lines = ["# Co-allocation placed by the peers themselves (Jones et al. 2004's set-up)", "",
             "Written by `gridsim plot jones2004` from this folder's summary.csv (means over seeds; ± is the 95% "
             "interval). Average turnaround (s) of the meta-scheduler and of four S-I peers on the same jobs, and "
             "the price of deciding without global knowledge (peers / meta − 1).", "",
             "| BSBW (Mb/s) | A1 meta | A1 peers | price | B3 85% meta | B3 85% peers | price | split: A1 meta / peers |",
             "|---|---|---|---|---|---|---|---|"]
    for b in bsbws:
        cells = [f"{b:g}"]
        for method in ("a1", "b3-85"):
            rows = summary[(summary["method"] == method) & (summary["bsbw_mbps"] == b)]
            meta = mean(rows, "avg_turnaround_s", **{"placed-by": "meta"})
            peers = mean(rows, "avg_turnaround_s", **{"placed-by": "peers"})
            cells += [with_ci(*meta), with_ci(*peers), price(peers[0], meta[0])]
        rows = summary[(summary["method"] == "a1") & (summary["bsbw_mbps"] == b)]
        split_meta, _ = mean(rows, "fraction_coallocated", **{"placed-by": "meta"})
        split_peers, _ = mean(rows, "fraction_coallocated", **{"placed-by": "peers"})
        cells.append(f"{split_meta:.1%} / {split_peers:.1%}")
        lines.append("| " + " | ".join(cells) + " |")
    migration = summary[summary["method"] == "migration-only"]
    meta = mean(migration, "avg_turnaround_s", **{"placed-by": "meta"})
    peers = mean(migration, "avg_turnaround_s", **{"placed-by": "peers"})
    lines += ["", f"Migration Only (reads no BSBW): meta {with_ci(*meta)} s, peers {with_ci(*peers)} s, price "
                  f"{price(peers[0], meta[0])}.", ""]
    for who in ("meta", "peers"):
        gains = []
        for b in bsbws:
            a1, _ = mean(summary[(summary["method"] == "a1") & (summary["bsbw_mbps"] == b)], "avg_turnaround_s",
                         **{"placed-by": who})
            base, _ = mean(migration, "avg_turnaround_s", **{"placed-by": who})
            gains.append(f"{b:g}: {(base - a1) / base:.1%}")
        lines.append(f"- What A1's splits buy over Migration Only, {WHO[who]}: " + ", ".join(gains) + ".")
    return write_markdown(folder, "reproduction.md", lines)


# ---- Jones & Ligon 2006 ---------------------------------------------------------------------------

def fairness_figures(summary, out, save):
    summary = summary.copy()
    summary["rate_per_week"] = summary["rate"].map(number)
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, metric, title in ((axes[0], "fixed_cluster_turnaround_s", "the fixed cluster FC"),
                              (axes[1], "other_clusters_turnaround_s", "the other clusters OC")):
        for k, scheduler in enumerate(("ics", "ics-b")):
            for who in ("meta", "peers"):
                rows = summary[(summary["scheduler"] == scheduler) & (summary["placed-by"] == who)]
                rows = rows.sort_values("rate_per_week")
                ax.plot(rows["rate_per_week"], rows[metric + "_mean"], STYLE[who], color=f"C{k}", marker="o",
                        markersize=3, label=f"{NAMES[scheduler]}, {WHO[who]}")
        rows = summary[(summary["scheduler"] == "no-share") & (summary["placed-by"] == "meta")]
        rows = rows.sort_values("rate_per_week")
        if metric == "fixed_cluster_turnaround_s":
            ax.plot(rows["rate_per_week"], rows[metric + "_mean"], ":", color="black", label="No Share")
        ax.set_xlabel("the other clusters' rate (jobs/week per 100 nodes)")
        ax.set_ylabel("average turnaround (s)")
        ax.set_title(f"Jones & Ligon 2006's equal grid: {title}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
        if metric == "other_clusters_turnaround_s":
            top = summary[summary["scheduler"] != "no-share"][metric + "_mean"].max()
            ax.set_ylim(0, 1.1 * top)
    save(figure, out, "fairness_peers_vs_meta.png")


def fairness_report(summary, folder):
    summary = summary.copy()
    summary["rate_per_week"] = summary["rate"].map(number)
    rates = sorted(summary["rate_per_week"].unique())
    lines = ["# Fairness placed by the peers themselves (Jones & Ligon 2006's equal grid)", "",
             "Written by `gridsim plot jones2006` from this folder's summary.csv (means over seeds; ± is the 95% "
             "interval). Average turnaround (s) of the fixed cluster FC and of the others OC, ICS+B by the "
             "meta-scheduler and by fair S-I peers (`--fair`), ICS likewise, beside No Share.", "",
             "| OC rate | FC No Share | FC ICS+B meta | FC ICS+B peers | price | OC ICS+B meta | OC ICS+B peers | price "
             "| FC ICS meta | FC ICS peers |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rates:
        at = summary[summary["rate_per_week"] == r]
        none = mean(at[at["scheduler"] == "no-share"], "fixed_cluster_turnaround_s", **{"placed-by": "meta"})
        cells = [f"{r:g}", with_ci(*none)]
        fair = at[at["scheduler"] == "ics-b"]
        for metric in ("fixed_cluster_turnaround_s", "other_clusters_turnaround_s"):
            meta = mean(fair, metric, **{"placed-by": "meta"})
            peers = mean(fair, metric, **{"placed-by": "peers"})
            cells += [with_ci(*meta), with_ci(*peers), price(peers[0], meta[0])]
        full = at[at["scheduler"] == "ics"]
        cells += [with_ci(*mean(full, "fixed_cluster_turnaround_s", **{"placed-by": "meta"})),
                  with_ci(*mean(full, "fixed_cluster_turnaround_s", **{"placed-by": "peers"}))]
        lines.append("| " + " | ".join(cells) + " |")
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, out, save, quiet):
    summary = load(folder)
    out = out or os.path.join(folder, "figures")
    os.makedirs(out, exist_ok=True)
    if "bsbw" in summary.columns and "method" in summary.columns:
        methods_figures(summary, out, save)
        path = methods_report(summary, folder)
    else:
        fairness_figures(summary, out, save)
        path = fairness_report(summary, folder)
    if not quiet:
        print(path)


def placed_by_peers(folder):
    """Whether a coalloc sweep folder has a placed-by axis (this module draws it)."""
    path = os.path.join(folder, "summary.csv")
    if not os.path.exists(path):
        return False
    with open(path) as summary:
        return "placed-by" in summary.readline().split(",")
