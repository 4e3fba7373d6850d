"""Shih, Huang & Chung's (seed 004) comparison, from a `gridsim sweep shih2010` folder.

ART is averaged over the speed vectors of each (RC, SH, SL, rule) first
[reading]; NPIR (eq. 23) of each rule against the better of BF and FF in the
same setting; TNPIR sums NPIR over the 35 (SH, SL) settings of an RC (in %,
as Table 11). Figures: ART against SL per SH for each rule at RC 100% (the
paper's Figs. 5-8), TNPIR bars per RC. reproduction.md: Table 11 beside
ours, the ranking, and the paper's claims checked.
"""
import matplotlib.pyplot as plt

from paper_support import claim_rows, load_summary, number, plot_paper, write_markdown

RULES = ["bf", "ff", "si", "ti", "ai", "ai2", "tai", "tai2"]
TABLE_11 = {  # TNPIR % on the trace, per RC, rules in RULES order
    100: [-473, -93, -69, -44, -86, -17, 4, 14],
    75: [-522, -60, -53, -21, -36, 17, -10, 7],
    50: [-600, -25, -75, -45, -41, 19, -13, 1],
    25: [-594, -29, -4, -7, -24, 2, -22, 7],
}
TABLE_11_TOTAL = [-2189, -208, -202, -117, -186, 22, -40, 29]


def load(folder):
    summary = load_summary(folder, "shih2010", ("rc", "sh", "sl", "rule"))
    for axis in ("rc", "sh", "sl"):
        summary[axis + "_value"] = summary[axis].map(number)
    # The mean over speed vectors first (the sweep's own mean is over seeds).
    return summary.groupby(["rc_value", "sh_value", "sl_value", "rule"], as_index=False)["art_s_mean"].mean()


def tnpir(arts):
    """{rc: {rule: TNPIR %}} from the vector-averaged ARTs."""
    result = {}
    for rc, per_rc in arts.groupby("rc_value"):
        sums = {rule: 0.0 for rule in RULES}
        for _, setting in per_rc.groupby(["sh_value", "sl_value"]):
            art = dict(zip(setting["rule"], setting["art_s_mean"]))
            if "bf" not in art or "ff" not in art:
                continue
            best = min(art["bf"], art["ff"])
            for rule in RULES:
                if rule in art:
                    sums[rule] += 100 * (best - art[rule]) / best
        result[int(rc)] = sums
    return result


def figures(arts, out, save):
    at100 = arts[arts["rc_value"] == arts["rc_value"].max()]
    shs = sorted(at100["sh_value"].unique())
    figure, axes = plt.subplots(1, len(shs), figsize=(4 * len(shs), 3.8), sharey=True, squeeze=False)
    for ax, sh in zip(axes[0], shs):
        rows = at100[at100["sh_value"] == sh]
        for rule in RULES:
            line = rows[rows["rule"] == rule].sort_values("sl_value")
            if len(line):
                ax.plot(line["sl_value"], line["art_s_mean"], marker="o", markersize=3, label=rule.upper())
        ax.set_yscale("log")
        ax.set_title(f"SH {sh:g}", fontsize="small")
        ax.set_xlabel("SL")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("ART (s, mean over speed vectors)")
    axes[0][0].legend(fontsize="x-small", ncol=2)
    save(figure, out, "art_by_sl.png")
    sums = tnpir(arts)
    figure, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(sums))
    for i, (rc, per_rule) in enumerate(sorted(sums.items(), reverse=True)):
        ax.bar([r + (i - (len(sums) - 1) / 2) * width for r in range(len(RULES))],
               [per_rule[rule] for rule in RULES], width, label=f"RC {rc}%")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(RULES)))
    ax.set_xticklabels([rule.upper() for rule in RULES])
    ax.set_ylabel("TNPIR (%)")
    ax.set_title("Each rule against the better of BF and FF, summed over (SH, SL)", fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, out, "tnpir.png")


def ranking(per_rule):
    return " > ".join(rule.upper() for rule in sorted(per_rule, key=per_rule.get, reverse=True))


def claims(arts, sums):
    found = []
    flat = arts[arts["sh_value"] == 0]
    rc = arts["rc_value"].max()

    def art(frame, rule, sl):
        row = frame[(frame["rule"] == rule) & (frame["sl_value"] == sl) & (frame["rc_value"] == rc)]
        return row["art_s_mean"].mean()

    heavy = [sl for sl in (3, 3.5, 4) if sl in set(flat["sl_value"])]
    if heavy:
        wins = [sl for sl in heavy if art(flat, "bf", sl) < art(flat, "ff", sl)]
        found.append(("At SH 0, BF beats FF for SL 3-4", len(wins) == len(heavy) or ("partly" if wins else False),
                      f"BF below FF at SL {', '.join(f'{s:g}' for s in wins) or 'none'} of "
                      f"{', '.join(f'{s:g}' for s in heavy)} (RC {rc:g}%)", "art_by_sl"))
    high = arts[arts["sh_value"] == arts["sh_value"].max()]
    light = [sl for sl in (1, 1.5, 2, 2.5) if sl in set(high["sl_value"])]
    if light and arts["sh_value"].max() > 0:
        wins = [sl for sl in light if art(high, "ff", sl) < art(high, "bf", sl)]
        found.append((f"At high SH ({arts['sh_value'].max():g}), FF beats BF for SL 1-2.5",
                      len(wins) == len(light) or ("partly" if wins else False),
                      f"FF below BF at SL {', '.join(f'{s:g}' for s in wins) or 'none'}", "art_by_sl"))
    if sums:
        total = {rule: sum(per[rule] for per in sums.values()) for rule in RULES}
        paper = dict(zip(RULES, TABLE_11_TOTAL))
        same_top = max(total, key=total.get) == max(paper, key=paper.get)
        found.append(("TAI2 is the best rule on the trace (Table 11's total)", same_top,
                      f"ours: {ranking(total)}; paper: {ranking(paper)}", "tnpir"))
    return found


def report(arts, folder):
    sums = tnpir(arts)
    lines = ["# Shih, Huang & Chung reproduced: TNPIR on SDSC-SP2", "",
             "Written by `gridsim plot shih2010` from this folder's summary.csv. ART is averaged over the speed "
             "vectors first; NPIR is against the better of BF and FF in each (SH, SL); TNPIR sums it over the "
             "settings of an RC (%). Paper's Table 11 in brackets.", "",
             "| RC | " + " | ".join(rule.upper() for rule in RULES) + " |", "|---|" + "---|" * len(RULES)]
    for rc, per_rule in sorted(sums.items(), reverse=True):
        paper = TABLE_11.get(rc)
        cells = [f"{per_rule[rule]:.0f}" + (f" [{paper[i]}]" if paper else "") for i, rule in enumerate(RULES)]
        lines.append(f"| {rc}% | " + " | ".join(cells) + " |")
    if sums:
        total = {rule: sum(per[rule] for per in sums.values()) for rule in RULES}
        lines.append("| total | " + " | ".join(f"{total[rule]:.0f} [{TABLE_11_TOTAL[i]}]"
                                               for i, rule in enumerate(RULES)) + " |")
    lines += [""] + claim_rows(claims(arts, sums))
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, out, save, quiet):
    plot_paper(folder, out, save, quiet, load, figures, report)
