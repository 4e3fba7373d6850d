"""Ang et al.'s grouping at a peer of the P2P grid (Ang et al. 2007), from
a `gridsim sweep ang2007-p2p` folder (model bag): the bag's makespan against
its size for each scheduler, one panel per load and phi, the messages it
cost, and reproduction.md with the paired change of grouping against S-I job
by job (none) and the claims judged. The paper has no P2P figure: these are
ours alone, the claims carried over from its routed experiment."""
import statistics

import matplotlib.pyplot as plt

from paper_support import claim_rows, number, plot_paper, write_markdown

SCHEDULERS = [("ba", "grouped, bandwidth-aware (BA)"), ("blind", "grouped, bandwidth-blind"),
              ("none", "S-I job by job")]
# Blind is drawn dashed over BA: from R1 the two orders are mostly one.
STYLE = {"ba": dict(marker="o"), "blind": dict(marker="x", linestyle="--"), "none": dict(marker="s")}
LOAD_ORDER = {"light": 0, "heavy": 1}


def panel_order(panel):
    return LOAD_ORDER.get(panel[0], 2), -number(panel[1])


def load(runs):
    """points[(load, phi)][jobs][scheduler][seed] = the run's JSON."""
    points = {}
    for run in runs:
        a = run["axes"]
        panel = (a.get("load", "light"), a.get("phi", f"phi{run['phi_s']:g}"))
        points.setdefault(panel, {}).setdefault(number(a.get("jobs", run["jobs"])), {}).setdefault(
            a["scheduler"], {})[run["seed"]] = run
    return points


def series(by_jobs, scheduler, metric):
    xs = sorted(by_jobs)
    return xs, [[r[metric] for r in by_jobs[x].get(scheduler, {}).values()] for x in xs]


def change(by_jobs, x, metric):
    """Per seed (T_none - T_ba) / T_none: > 0 grouping is faster."""
    ba, none = by_jobs[x].get("ba", {}), by_jobs[x].get("none", {})
    return [(none[s][metric] - ba[s][metric]) / none[s][metric] for s in ba if s in none and none[s][metric] > 0]


def figures(points, out, save):
    panels = sorted(points, key=panel_order)
    for metric, label, name in (("bag_makespan_s", "bag makespan (s)", "p2p_makespan.png"),
                                ("messages", "messages in the grid", "p2p_messages.png")):
        figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.0), squeeze=False)
        for ax, panel in zip(axes[0], panels):
            for scheduler, title in SCHEDULERS:
                xs, values = series(points[panel], scheduler, metric)
                if not any(values):
                    continue
                ax.plot(xs, [statistics.mean(v) for v in values], label=title, **STYLE[scheduler])
                ax.fill_between(xs, [min(v) for v in values], [max(v) for v in values], alpha=0.15)
            ax.set_xscale("log")
            if metric == "messages":  # S-I may send none: 0 has to show
                ax.set_yscale("symlog", linthresh=1)
                ax.set_ylim(bottom=0)
            else:
                ax.set_yscale("log")
            ax.set_xlabel("jobs in the bag")
            ax.set_title(f"{panel[0]} load, {panel[1]}", fontsize="medium")
            ax.grid(alpha=0.3, which="both")
        axes[0][0].set_ylabel(label)
        axes[0][0].legend(fontsize="small")
        figure.suptitle(f"Ang et al. 2007's grouping at peer R1 against S-I job by job: {label}, mean and seeds' range",
                        fontsize="medium")
        figure.tight_layout()
        save(figure, out, name)


def report(points, folder):
    lines = ["# Ang et al. 2007's grouping in the P2P grid", "",
             "Made by `gridsim plot ang2007` from an ang2007-p2p sweep. Makespan: the bag's submission to its "
             "last job's end at the origin; mean over seeds [seeds' range]. Change: (T_none - T_BA) / T_none per "
             "seed, averaged: above 0 grouping is faster. docs/reproducing-003.md explains the set-up.", ""]
    claims = []
    for panel in sorted(points, key=panel_order):
        by_jobs = points[panel]
        xs = sorted(by_jobs)
        lines += [f"## {panel[0]} load, {panel[1]}", "",
                  "| jobs | BA (s) | blind (s) | S-I job by job (s) | BA vs job by job | messages BA / job by job |",
                  "|---|---|---|---|---|---|"]
        wins = 0
        for x in xs:
            cells = []
            for scheduler, _ in SCHEDULERS:
                v = [r["bag_makespan_s"] for r in by_jobs[x].get(scheduler, {}).values()]
                cells.append(f"{statistics.mean(v):.1f} [{min(v):.1f}-{max(v):.1f}]" if v else "-")
            c = change(by_jobs, x, "bag_makespan_s")
            wins += 1 if c and statistics.mean(c) > 0 else 0
            cells.append(f"{100 * statistics.mean(c):+.0f}% [{100 * min(c):+.0f}..{100 * max(c):+.0f}]" if c else "-")
            m = {s: statistics.mean(r["messages"] for r in by_jobs[x].get(s, {}).values()) for s in ("ba", "none")
                 if by_jobs[x].get(s)}
            cells.append(f"{m.get('ba', 0):.0f} / {m.get('none', 0):.0f}")
            lines.append(f"| {x:g} | " + " | ".join(cells) + " |")
        lines.append("")
        claims.append((f"grouping makes the bag finish sooner than S-I job by job ({panel[0]}, {panel[1]})",
                       True if wins == len(xs) else ("partly" if wins else False),
                       f"BA faster on the mean at {wins} of {len(xs)} bag sizes", "p2p_makespan.png"))
        fewer = sum(1 for x in xs if by_jobs[x].get("ba") and by_jobs[x].get("none") and
                    statistics.mean(r["messages"] for r in by_jobs[x]["ba"].values()) <
                    statistics.mean(r["messages"] for r in by_jobs[x]["none"].values()))
        claims.append((f"grouping costs fewer messages ({panel[0]}, {panel[1]})",
                       True if fewer == len(xs) else ("partly" if fewer else False),
                       f"fewer at {fewer} of {len(xs)} bag sizes", "p2p_messages.png"))
    lines += ["## Claims carried over", ""] + claim_rows(claims)
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, runs, out, save, quiet):
    plot_paper(folder, out, save, quiet, lambda _: load(runs), figures, report)
