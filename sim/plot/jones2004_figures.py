"""Jones et al. 2004's figures and claims, from a `gridsim sweep jones2004` folder.

Figures 7-12 (turnaround over BSBW x LSLT per method, as surfaces and as
annotated heat maps), 13-14 (every method, and B3's chunks, at LSLT 100% against
BSBW), 15-18 (against LSLT at BSBW 300 and 800), link saturation against LSLT,
and reproduction.md: the baselines beside the paper's 1087 s and 735 s and each
of the paper's claims checked on the data, holds or not, with its numbers.
"""

import coalloc_peers_figures
import matplotlib.pyplot as plt

from paper_support import claim_rows, load_summary, number, plot_paper, write_markdown

PUBLISHED = {"migration-only": 1087.0, "ideal": 735.0}
SURFACES = ["a1", "b1", "b2", "b4", "b3-70", "b3-90"]  # Figs. 7-12 (Fig. 9 is B2)
CHUNKS = ["b3-70", "b3-75", "b3-80", "b3-85", "b3-90"]
COMPARED = ["a1", "b1", "b2", "b3-85", "b4", "initial"]
NAMES = {"a1": "A1", "b1": "B1", "b2": "B2", "b4": "B4", "initial": "Initial", "ideal": "Ideal",
         "migration-only": "Migration Only"}


def name(method):
    return NAMES.get(method, method.upper().replace("B3-", "B3 ") + ("%" if method.startswith("b3-") else ""))


def load(folder):
    summary = load_summary(folder, "jones2004", ("method", "bsbw", "lslt"))
    summary["bsbw_mbps"] = summary["bsbw"].map(number)
    summary["lslt_pct"] = summary["lslt"].map(number)
    return summary


def value(summary, method, bsbw, lslt, metric="avg_turnaround_s"):
    rows = summary[(summary["method"] == method) & (summary["bsbw_mbps"] == bsbw) & (summary["lslt_pct"] == lslt)]
    return rows[metric + "_mean"].mean() if len(rows) else float("nan")


def baseline(summary, method):
    rows = summary[summary["method"] == method]
    return rows["avg_turnaround_s_mean"].mean(), rows["avg_turnaround_s_ci95"].mean()


def grid(summary, method, metric="avg_turnaround_s"):
    rows = summary[summary["method"] == method]
    return rows.pivot_table(index="lslt_pct", columns="bsbw_mbps", values=metric + "_mean")


def baselines_on(ax, summary):
    for method, style in (("migration-only", "--"), ("ideal", ":")):
        mean, _ = baseline(summary, method)
        if mean == mean:
            ax.axhline(mean, color="black", linestyle=style, linewidth=1, label=name(method))


def clip(ax, summary):
    """Keeps the methods readable: Initial's runaway turnaround leaves the chart."""
    migration, _ = baseline(summary, "migration-only")
    ideal, _ = baseline(summary, "ideal")
    if migration == migration and ideal == ideal:
        low, high = ax.get_ylim()
        if high > 1.6 * migration:
            ax.set_ylim(max(low, 0.8 * ideal), 1.6 * migration)
            ax.text(0.99, 0.99, "clipped at 1.6 x Migration Only", transform=ax.transAxes, ha="right", va="top",
                    fontsize="x-small", color="grey")


def line(ax, summary, method, x_axis, fixed_axis, fixed):
    rows = summary[(summary["method"] == method) & (summary[fixed_axis] == fixed)].sort_values(x_axis)
    if len(rows) == 0:
        return
    errors = rows["avg_turnaround_s_ci95"].fillna(0)
    ax.errorbar(rows[x_axis], rows["avg_turnaround_s_mean"], yerr=errors, marker="o", markersize=3, capsize=2,
                label=name(method))


def figures(summary, out, save):
    methods = [m for m in SURFACES if m in set(summary["method"])]
    # Figs. 7-12 as the paper draws them: surfaces.
    figure = plt.figure(figsize=(15, 9))
    for i, method in enumerate(methods):
        table = grid(summary, method)
        ax = figure.add_subplot(2, 3, i + 1, projection="3d")
        x, y = [a.flatten() for a in __import__("numpy").meshgrid(table.columns, table.index)]
        ax.plot_trisurf(x, y, table.values.flatten(), cmap="viridis", linewidth=0.2)
        ax.set_xlabel("job BSBW (Mb/s)")
        ax.set_ylabel("LSLT (%)")
        ax.set_zlabel("turnaround (s)")
        ax.set_title(name(method))
    save(figure, out, "fig07-12_surfaces.png")
    # The same data as heat maps with their values (easier to read off).
    all_methods = [m for m in SURFACES + [c for c in CHUNKS if c not in SURFACES] if m in set(summary["method"])]
    tables = {m: grid(summary, m) for m in all_methods}
    low = min(t.values.min() for t in tables.values())
    high = max(t.values.max() for t in tables.values())
    cols = 3
    rows_n = (len(all_methods) + cols - 1) // cols
    figure, axes = plt.subplots(rows_n, cols, figsize=(6 * cols, 4.2 * rows_n), squeeze=False)
    for ax, method in zip(axes.flat, all_methods):
        table = tables[method]
        image = ax.imshow(table.values, origin="lower", aspect="auto", cmap="viridis", vmin=low, vmax=high)
        ax.set_xticks(range(len(table.columns)), [f"{c:g}" for c in table.columns])
        ax.set_yticks(range(len(table.index)), [f"{r:g}" for r in table.index])
        for (r, c), v in __import__("numpy").ndenumerate(table.values):
            ax.text(c, r, f"{v:.0f}", ha="center", va="center", fontsize=6,
                    color="white" if v < (low + high) / 2 else "black")
        ax.set_xlabel("job BSBW (Mb/s)")
        ax.set_ylabel("LSLT (%)")
        ax.set_title(f"{name(method)}: mean turnaround (s)")
        figure.colorbar(image, ax=ax)
    for ax in list(axes.flat)[len(all_methods):]:
        ax.axis("off")
    save(figure, out, "heatmaps_turnaround.png")
    # Figs. 13-14 (LSLT 100% against BSBW) and 15-18 (against LSLT at BSBW 300 and 800).
    b3 = ["a1"] + CHUNKS
    by_bsbw = ("bsbw_mbps", "lslt_pct", "job BSBW (Mb/s)")
    by_lslt = ("lslt_pct", "bsbw_mbps", "LSLT (%)")
    for file, title, chosen, (x_axis, fixed_axis, x_label), fixed in (
            ("fig13_lslt100.png", "All methods at LSLT 100%", COMPARED, by_bsbw, 100),
            ("fig14_b3_lslt100.png", "B3 chunk sizes at LSLT 100%", b3, by_bsbw, 100),
            ("fig15_bsbw300.png", "All methods at BSBW 300 Mb/s", COMPARED, by_lslt, 300),
            ("fig16_bsbw800.png", "All methods at BSBW 800 Mb/s", COMPARED, by_lslt, 800),
            ("fig17_b3_bsbw300.png", "B3 chunk sizes at BSBW 300 Mb/s", b3, by_lslt, 300),
            ("fig18_b3_bsbw800.png", "B3 chunk sizes at BSBW 800 Mb/s", b3, by_lslt, 800)):
        figure, ax = plt.subplots(figsize=(7, 4.6))
        for method in chosen:
            line(ax, summary, method, x_axis, fixed_axis, fixed)
        baselines_on(ax, summary)
        clip(ax, summary)
        ax.set_xlabel(x_label)
        ax.set_ylabel("average turnaround (s)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="upper left")
        save(figure, out, file)
    # What A1 guarantees and class B only attempts: the links' saturation.
    figure, ax = plt.subplots(figsize=(7, 4.6))
    for method in ("a1", "b1", "b2", "b3-85", "b4"):
        rows = summary[(summary["method"] == method) & (summary["bsbw_mbps"] == 800)].sort_values("lslt_pct")
        if len(rows):
            ax.plot(rows["lslt_pct"], rows["mean_link_saturation_mean"], marker="o", markersize=3, label=name(method))
    ax.plot([40, 120], [0.4, 1.2], color="grey", linewidth=0.8, linestyle="--", label="LSLT")
    ax.set_xlabel("LSLT (%)")
    ax.set_ylabel("mean link saturation (demand / capacity)")
    ax.set_title("Link saturation at BSBW 800 Mb/s")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, out, "link_saturation_bsbw800.png")


def spread(summary, method, lslt=100):
    rows = summary[(summary["method"] == method) & (summary["lslt_pct"] == lslt)]["avg_turnaround_s_mean"]
    return (rows.max() - rows.min()) / rows.mean() if len(rows) else float("nan")


def verdict(holding, total):
    """holds / partly / does not hold, from how many of the cases checked agree."""
    if total == 0:
        return None
    return True if holding == total else ("partly" if holding > 0 else False)


def listed(values):
    return ", ".join(f"{v:g}" for v in values) if values else "none"


def claims(summary):
    """(claim, verdict, evidence, figure) for each of 000's qualitative claims;
    verdict is True, False, "partly" or None (not examined)."""
    result = []
    methods = set(summary["method"])
    bsbws = sorted(summary["bsbw_mbps"].unique())
    lslts = sorted(summary["lslt_pct"].unique())
    migration, _ = baseline(summary, "migration-only")
    chunks = [c for c in CHUNKS if c in methods]
    at100 = {m: {b: value(summary, m, b, 100) for b in bsbws} for m in methods}
    if "initial" in methods:
        initial = {b: value(summary, "initial", b, lslts[0]) for b in bsbws}
        worse = [b for b in bsbws if initial[b] > migration]
        soon = bool(worse) and all(initial[b] > migration for b in bsbws if b >= worse[0])
        result.append(("Initial Strategy is soon worse than Migration Only", soon,
                       f"Initial exceeds Migration Only ({migration:.0f} s) from BSBW {worse[0]:g} Mb/s on "
                       f"({', '.join(f'{b:g}: {initial[b]:.0f}' for b in bsbws)})" if worse else
                       f"Initial stays below Migration Only ({migration:.0f} s) over the whole range", "fig13"))
        for method in ("a1", "b1"):
            if method not in methods:
                continue
            points = [(b, l) for b in bsbws for l in lslts]
            losing = sorted({b for b, l in points if value(summary, method, b, l) >= initial[b]})
            holding = len(points) - sum(value(summary, method, b, l) >= initial[b] for b, l in points)
            result.append((f"{name(method)} beats Initial everywhere", verdict(holding, len(points)),
                           f"{holding} of {len(points)} (BSBW, LSLT) points; Initial is as good or better at BSBW "
                           f"{listed(losing)} Mb/s", "heatmaps"))
    if "a1" in methods:
        others = {m: spread(summary, m) for m in ("b1", "b2", "b4") if m in methods}
        a1 = spread(summary, "a1")
        result.append(("A1 is stable in BSBW (at LSLT 100%)", all(a1 < s for s in others.values()),
                       f"spread (max-min)/mean over BSBW: A1 {a1:.1%}; " +
                       ", ".join(f"{name(m)} {s:.1%}" for m, s in others.items()), "fig13"))
        beyond = [b for b in bsbws
                  if min(value(summary, "a1", b, 110), value(summary, "a1", b, 120)) < at100["a1"][b]]
        slowed_wins = []
        for method in sorted(methods - {"a1", "ideal", "initial", "migration-only"}):
            for b in bsbws:
                sd = value(summary, method, b, 100, "mean_coalloc_slowdown")
                if sd < 1 - 1e-9 and at100[method][b] < at100["a1"][b]:
                    slowed_wins.append(f"{name(method)} at {b:g}")
        result.append(("Slight over-saturation can pay", bool(beyond) or bool(slowed_wins),
                       f"A1 at LSLT 110-120% beats A1 at 100% at BSBW {listed(beyond)}; methods whose split jobs "
                       f"were slowed (mean sd < 1) yet beat A1 at LSLT 100%: {', '.join(slowed_wins) or 'none'}",
                       "fig16"))
    if chunks and "a1" in methods:
        wins = {c: [b for b in bsbws if at100[c][b] < at100["a1"][b]] for c in chunks}
        best = max(wins, key=lambda c: len(wins[c]))
        result.append(("B3 beats A1 even at LSLT 100%", verdict(len(wins[best]), len(bsbws)),
                       "BSBW where B3 is below A1 at LSLT 100%: " +
                       "; ".join(f"{name(c)} {listed(w)}" for c, w in wins.items()), "fig14"))
        b3_spread = {c: spread(summary, c) for c in chunks}
        b_spreads = {m: spread(summary, m) for m in ("b1", "b2", "b4") if m in methods}
        result.append(("B3 is very stable in BSBW, more than the other class B methods",
                       all(max(b3_spread.values()) < s for s in b_spreads.values()),
                       "spread over BSBW at LSLT 100%: " + ", ".join(f"{name(c)} {s:.1%}" for c, s in b3_spread.items())
                       + "; " + ", ".join(f"{name(m)} {s:.1%}" for m, s in b_spreads.items()), "fig14"))
        mean_of = {c: summary[summary["method"] == c]["avg_turnaround_s_mean"].mean() for c in chunks}
        best_chunk = min(mean_of, key=mean_of.get)
        best_at = {b: min(chunks, key=lambda c: at100[c][b]) for b in bsbws}
        where = [b for b in bsbws if best_at[b] == "b3-85"]
        result.append(("An 85% chunk is best",
                       True if best_chunk == "b3-85" and len(where) == len(bsbws) else verdict(
                           len(where) + (best_chunk == "b3-85"), len(bsbws) + 1),
                       f"best over the surface: {name(best_chunk)} (" +
                       ", ".join(f"{name(c)} {v:.0f}" for c, v in mean_of.items()) +
                       "); best at LSLT 100%: " + ", ".join(f"{b:g}: {name(best_at[b])}" for b in bsbws), "fig14, fig17-18"))
        toward = abs(mean_of[chunks[-1]] - migration) < abs(mean_of[chunks[0]] - migration)
        result.append(("B3 tends to Migration Only as the chunk grows", toward,
                       f"surface means from {name(chunks[0])} {mean_of[chunks[0]]:.0f} to {name(chunks[-1])} "
                       f"{mean_of[chunks[-1]]:.0f}; Migration Only {migration:.0f}", "fig14"))
    surface = [m for m in ("a1", "b1", "b2", "b4") + tuple(chunks) if m in methods]
    if "b4" in surface:
        means = {m: summary[summary["method"] == m]["avg_turnaround_s_mean"].mean() for m in surface}
        worst = max(means, key=means.get)
        result.append(("B4 is the worst", worst == "b4",
                       "mean over the surface: " + ", ".join(f"{name(m)} {v:.0f}" for m, v in means.items()),
                       "heatmaps"))
    result.append(("Trends are stronger with more clusters", None,
                   "not examined by this experiment (4 clusters); the built-in jones2004-clusters runs 4 against 8",
                   "-"))
    return result


def report(summary, folder):
    found = claims(summary)
    lines = ["# Jones et al. 2004 reproduced: baselines and claims", "",
             "Written by `gridsim plot jones2004` from this folder's summary.csv (means over seeds; "
             "± is the 95% interval).", "", "| baseline | paper | ours | difference |", "|---|---|---|---|"]
    for method in ("migration-only", "ideal"):
        mean, ci = baseline(summary, method)
        if mean == mean:
            ci_text = f" ± {ci:.1f}" if ci == ci else ""
            lines.append(f"| {name(method)} | {PUBLISHED[method]:.0f} s | {mean:.1f}{ci_text} s | "
                         f"{(mean - PUBLISHED[method]) / PUBLISHED[method]:+.1%} |")
    lines += [""] + claim_rows(found)
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, out, save, quiet):
    if coalloc_peers_figures.placed_by_peers(folder):  # placed by the meta-scheduler and by peers
        coalloc_peers_figures.plot(folder, out, save, quiet)
        return
    plot_paper(folder, out, save, quiet, load, figures, report)
