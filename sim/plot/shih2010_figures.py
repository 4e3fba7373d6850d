"""Shih, Huang & Chung 2010's tables and figures, from any `gridsim sweep`
folder of the shih2010 family:

- shih2010 (the trace, axis rc) and shih2010-models (axis load: "f600" is
  Feitelson96 at ARR_FACTOR 600, "l9.5" Lublin99 at AARR 9.5): the method
  comparison. ART is averaged over the speed vectors of each setting first
  [reading]; NPIR (eq. 23) of each rule against the better of BF and FF in the
  same setting; TNPIR sums NPIR over a group's settings (in %): Tables 11 and
  12, and Table 13's spread (the standard deviation of AI2's and TAI2's NPIR).
- shih2010-dynamic and shih2010-dynamic-models (axis pair: "t0.05-2" is
  SHT 0.05, SLT 2): Table 10 (eqs. 21-22: each pair against the mean ART of
  the 20 pairs, RC 100% or each model) and Tables 14-15 (TI*, TAI*, TAI2*: the
  best pair in each setting, against the better of BF and FF).

A group is an RC of the trace or a model; a setting is (SH, SL) or (SH, the
model's knob). Figures: ART against the load per SH for each rule (the
paper's Figs. 5-10) and TNPIR bars. reproduction.md: every table beside the
paper's, the rankings, and the paper's claims checked.
"""
import statistics

import matplotlib.pyplot as plt
import numpy as np
import vector_bootstrap as boot

from paper_support import claim_rows, load_summary, number, plot_paper, write_markdown

RULES = ["bf", "ff", "si", "ti", "ai", "ai2", "tai", "tai2"]
THRESHOLD_RULES = ["ti", "tai", "tai2"]
PAIRS = [(sht, slt) for sht in (0.05, 0.1, 0.15, 0.2) for slt in (1, 1.5, 2, 2.5, 3)]
MODELS = {"f": "Feitelson96", "l": "Lublin99"}
# Published TNPIR (%), rules in RULES order.
TABLE_11 = {"RC 100%": [-473, -93, -69, -44, -86, -17, 4, 14],
            "RC 75%": [-522, -60, -53, -21, -36, 17, -10, 7],
            "RC 50%": [-600, -25, -75, -45, -41, 19, -13, 1],
            "RC 25%": [-594, -29, -4, -7, -24, 2, -22, 7]}
TABLE_11_TOTAL = [-2189, -208, -202, -117, -186, 22, -40, 29]
TABLE_12 = {"Feitelson96": [-127, -469, -121, -56, -396, -67, -236, -43],
            "Lublin99": [-274, -122, -97, -36, -79, 15, -77, -10]}
TABLE_13 = {"RC 100%": (0.024, 0.022), "RC 75%": (0.031, 0.026), "RC 50%": (0.019, 0.012),
            "RC 25%": (0.010, 0.011), "Feitelson96": (0.079, 0.049), "Lublin99": (0.022, 0.023)}
# Table 10: TNPIR (%) of each pair, in PAIRS order, for TI, TAI, TAI2.
TABLE_10 = {"ti": [102, 85, 110, 92, 96, 98, 58, 80, 39, 66, 39, -15, 34, -57, 22, -80, -159, -112, -200, -102],
            "tai": [7, 85, 41, 27, 51, -7, 24, 9, -8, 39, -54, 16, -1, -35, 24, -83, -17, -26, -53, -6],
            "tai2": [125, 91, 82, 115, 120, 83, 56, 74, 70, 64, 44, -32, -25, -18, 1, -106, -147, -185, -156, -160]}
# Tables 14 and 15 (TI, TAI, TAI2 are the starred best-pair forms).
TABLE_14 = {"RC 100%": [-627, -127, -126, 58, -78, 1, 132, 123], "RC 75%": [-605, -61, -135, 56, -64, 22, 76, 103],
            "RC 50%": [-657, -25, -133, -6, -62, -20, 41, 46], "RC 25%": [-615, -22, -37, 32, -19, 7, 37, 40]}
TABLE_14_TOTAL = [-2504, -235, -431, 140, -223, 10, 286, 313]
TABLE_15 = {"Feitelson96": [-439, -350, -73, 78, -233, 79, 25, 139],
            "Lublin99": [-371, -120, -146, 45, -75, -13, 27, 54]}


def load(folder):
    """One row per (group, SH, load, rule[, pair]) with its ART averaged over speed vectors; the
    folder is kept (attrs) so the figures can draw intervals over the vectors."""
    arts = _arts_of(load_summary(folder, "shih2010", ("sh", "rule")))
    arts.attrs["folder"] = folder
    return arts


def _error_bars(point, samples):
    """matplotlib yerr ([below], [above]) of a 95% interval around a point."""
    low, high = boot.interval(samples)
    return [max(0.0, point - low)], [max(0.0, high - point)]


def _with_groups(summary):
    """summary with group, order (for sorting), load and sh as numbers, and pair as text."""
    summary = summary.copy()
    if "rc" in summary.columns:
        summary["group"] = summary["rc"].map(lambda label: f"RC {number(label):g}%")
        summary["order"] = -summary["rc"].map(number)
        summary["load"] = summary["sl"].map(number)
    elif "load" in summary.columns:
        labels = summary["load"]
        summary["group"] = labels.map(lambda label: MODELS.get(str(label)[0], str(label)))
        summary["order"] = labels.map(lambda label: list(MODELS).index(str(label)[0]) if str(label)[0] in MODELS else 9)
        summary["load"] = labels.map(number)
    else:
        raise SystemExit("gridpeer_plot: a shih2010 folder has an rc axis (the trace) or a load axis (the models)")
    summary["sh"] = summary["sh"].map(number)
    if "pair" in summary.columns:
        summary["pair"] = summary["pair"].astype(str)
    return summary


def _keys(summary):
    return ["order", "group", "sh", "load", "rule"] + (["pair"] if "pair" in summary.columns else [])


def _arts_of(summary):
    summary = _with_groups(summary)
    return summary.groupby(_keys(summary), as_index=False)["art_s_mean"].mean()


def groups(arts):
    return list(arts.sort_values("order")["group"].unique())


def settings(arts, group):
    return arts[arts["group"] == group].groupby(["sh", "load"])


def method_arts(setting):
    """{rule: ART} of one setting; a threshold rule at its best pair when the folder has pairs."""
    if "pair" not in setting.columns:
        return dict(zip(setting["rule"], setting["art_s_mean"]))
    return setting.groupby("rule")["art_s_mean"].min().to_dict()


def npirs(arts):
    """{group: {rule: [NPIR per setting, fraction]}}: eq. 23 against min(BF, FF)."""
    result = {}
    for group in groups(arts):
        per_rule = {rule: [] for rule in RULES}
        for _, setting in settings(arts, group):
            art = method_arts(setting)
            if "bf" not in art or "ff" not in art:
                continue
            best = min(art["bf"], art["ff"])
            for rule in RULES:
                if rule in art:
                    per_rule[rule].append((best - art[rule]) / best)
        result[group] = per_rule
    return result


def tnpir(arts):
    """{group: {rule: TNPIR %}}."""
    return {group: {rule: 100 * sum(values) for rule, values in per_rule.items()}
            for group, per_rule in npirs(arts).items()}


def pair_label(pair):
    return f"t{pair[0]:g}-{pair[1]:g}"


def threshold_tnpir(arts, group):
    """Table 10 for one group: {rule: {pair label: TNPIR %}} (eqs. 21-22, against the pairs' mean ART)."""
    result = {rule: {} for rule in THRESHOLD_RULES}
    for _, setting in settings(arts, group):
        for rule in THRESHOLD_RULES:
            rows = setting[setting["rule"] == rule]
            if rows.empty:
                continue
            mean = rows["art_s_mean"].mean()
            for pair, art in zip(rows["pair"], rows["art_s_mean"]):
                result[rule][pair] = result[rule].get(pair, 0.0) + 100 * (mean - art) / mean
    return result


def figures(arts, out, save):
    fixed = arts
    if "pair" in arts.columns:  # the paper's pairs stand for the threshold rules in the ART figures
        paper_pairs = {"ti": "t0.05-2", "tai": "t0.05-1.5", "tai2": "t0.05-1"}
        fixed = arts[arts.apply(lambda row: paper_pairs.get(row["rule"], row["pair"]) == row["pair"], axis=1)]
        fixed = fixed.groupby(["order", "group", "sh", "load", "rule"], as_index=False)["art_s_mean"].mean()
    for index, group in enumerate(groups(fixed)):
        rows_of_group = fixed[fixed["group"] == group]
        shs = sorted(rows_of_group["sh"].unique())
        figure, axes = plt.subplots(1, len(shs), figsize=(4 * len(shs), 3.8), sharey=True, squeeze=False)
        for ax, sh in zip(axes[0], shs):
            rows = rows_of_group[rows_of_group["sh"] == sh]
            for rule in RULES:
                line = rows[rows["rule"] == rule].sort_values("load")
                if len(line):
                    ax.plot(line["load"], line["art_s_mean"], marker="o", markersize=3, label=rule.upper())
            ax.set_yscale("log")
            ax.set_title(f"{group}, SH {sh:g}", fontsize="small")
            ax.set_xlabel({"Feitelson96": "ARR_FACTOR", "Lublin99": "AARR"}.get(group, "SL"))
            if group in ("Feitelson96", "Lublin99"):
                ax.invert_xaxis()  # load grows to the right, as SL does
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("ART (s, mean over speed vectors)")
        axes[0][0].legend(fontsize="x-small", ncol=2)
        name = "art_by_sl.png" if index == 0 else f"art_by_sl_{group.replace(' ', '').replace('%', '')}.png"
        save(figure, out, name)
    sums = tnpir(arts)
    replicated = _replicated(arts.attrs["folder"]) if "folder" in arts.attrs else None
    intervals = tnpir_replicates(*replicated) if replicated is not None and "pair" not in arts.columns else {}
    figure, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(sums))
    for i, (group, per_rule) in enumerate(sums.items()):
        yerr = None
        if group in intervals:  # 95% over the speed vectors
            bars = [_error_bars(per_rule[rule], intervals[group][rule][1:]) for rule in RULES]
            yerr = [[b[0][0] for b in bars], [b[1][0] for b in bars]]
        ax.bar([r + (i - (len(sums) - 1) / 2) * width for r in range(len(RULES))],
               [per_rule[rule] for rule in RULES], width, label=group, yerr=yerr, capsize=2,
               error_kw={"linewidth": 0.8})
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(RULES)))
    star = "*" if "pair" in arts.columns else ""
    ax.set_xticklabels([rule.upper() + (star if rule in THRESHOLD_RULES else "") for rule in RULES])
    ax.set_ylabel("TNPIR (%)")
    ax.set_title("Each rule against the better of BF and FF, summed over the settings", fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, out, "tnpir.png")
    if "pair" in arts.columns:
        first = groups(arts)[0]
        table = threshold_tnpir(arts, first)
        over = threshold_replicates(*replicated, first) if replicated is not None else {}
        figure, ax = plt.subplots(figsize=(10, 4))
        labels = [pair_label(pair) for pair in PAIRS]
        for i, rule in enumerate(THRESHOLD_RULES):
            heights = [table[rule].get(label, 0) for label in labels]
            yerr = None
            if rule in over and all(label in over[rule] for label in labels):
                bars = [_error_bars(h, over[rule][label][1:]) for h, label in zip(heights, labels)]
                yerr = [[b[0][0] for b in bars], [b[1][0] for b in bars]]
            ax.bar([p + (i - 1) * 0.27 for p in range(len(labels))], heights, 0.27, label=rule.upper(), yerr=yerr,
                   capsize=1.5, error_kw={"linewidth": 0.7})
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([label[1:] for label in labels], rotation=60, fontsize="x-small")
        ax.set_xlabel("(SHT, SLT)")
        ax.set_ylabel("TNPIR against the pairs' mean (%)")
        ax.set_title(f"Table 10: each threshold pair, {first}" +
                     (" (95% intervals over the speed vectors)" if over else ""), fontsize="medium")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="small")
        save(figure, out, "thresholds.png")


def ranking(per_rule, rules=RULES):
    return " > ".join(rule.upper() for rule in sorted(rules, key=per_rule.get, reverse=True))


def art_at(arts, group, rule, sh, load):
    row = arts[(arts["group"] == group) & (arts["rule"] == rule) & (arts["sh"] == sh) & (arts["load"] == load)]
    return row["art_s_mean"].mean()


def verdict(wins, of):
    return len(wins) == len(of) or ("partly" if wins else False)


def comparison_claims(arts, sums):
    found = []
    trace = [group for group in sums if group.startswith("RC")]
    if trace:
        group = trace[0]
        flat = [load for load in (3, 3.5, 4) if load in set(arts[(arts["group"] == group) & (arts["sh"] == 0)]["load"])]
        if flat:
            wins = [sl for sl in flat if art_at(arts, group, "bf", 0, sl) < art_at(arts, group, "ff", 0, sl)]
            found.append(("At SH 0, BF beats FF for SL 3-4", verdict(wins, flat),
                          f"BF below FF at SL {', '.join(f'{s:g}' for s in wins) or 'none'} of "
                          f"{', '.join(f'{s:g}' for s in flat)} ({group})", "art_by_sl"))
        top = arts["sh"].max()
        light = [sl for sl in (1, 1.5, 2, 2.5) if sl in set(arts[(arts["group"] == group) & (arts["sh"] == top)]["load"])]
        if light and top > 0:
            wins = [sl for sl in light if art_at(arts, group, "ff", top, sl) < art_at(arts, group, "bf", top, sl)]
            found.append((f"At high SH ({top:g}), FF beats BF for SL 1-2.5", verdict(wins, light),
                          f"FF below BF at SL {', '.join(f'{s:g}' for s in wins) or 'none'} ({group})", "art_by_sl"))
        total = {rule: sum(sums[g][rule] for g in trace) for rule in RULES}
        paper = dict(zip(RULES, TABLE_11_TOTAL))
        found.append(("TAI2 is the best rule on the trace (Table 11's total)",
                      max(total, key=total.get) == "tai2", f"ours: {ranking(total)}; paper: {ranking(paper)}", "tnpir"))
    claimed = dict(sums)
    if len(trace) > 1:
        claimed["Trace, all RC"] = {rule: sum(sums[g][rule] for g in trace) for rule in RULES}
    for group, per_rule in claimed.items():
        smart = [rule for rule in ("si", "ti", "ai2", "tai2") if per_rule[rule] > max(per_rule["bf"], per_rule["ff"])]
        found.append((f"{group}: SI, TI, AI2 and TAI2 each beat BF and FF",
                      verdict(smart, ["si", "ti", "ai2", "tai2"]),
                      f"above both: {', '.join(r.upper() for r in smart) or 'none'}", "tnpir"))
        found.append((f"{group}: AI2 beats AI, TAI2 beats TAI",
                      verdict([r for r, s in (("ai2", "ai"), ("tai2", "tai")) if per_rule[r] > per_rule[s]], [1, 2]),
                      f"AI2 {per_rule['ai2']:.0f} vs AI {per_rule['ai']:.0f}; TAI2 {per_rule['tai2']:.0f} vs "
                      f"TAI {per_rule['tai']:.0f}", "tnpir"))
    for group, order in (("Feitelson96", ["tai2", "ti", "ai2", "si"]), ("Lublin99", ["ai2", "tai2", "ti", "si"])):
        if group in sums:
            ours = ranking(sums[group], order)
            found.append((f"{group}: {' > '.join(r.upper() for r in order)}", ours == " > ".join(r.upper() for r in order),
                          f"ours: {ours}", "tnpir"))
    return found


def spread_rows(arts):
    rows = ["| group | AI2 | TAI2 | TAI2 steadier? |", "|---|---|---|---|"]
    for group, per_rule in npirs(arts).items():
        ai2 = statistics.stdev(per_rule["ai2"]) if len(per_rule["ai2"]) > 1 else float("nan")
        tai2 = statistics.stdev(per_rule["tai2"]) if len(per_rule["tai2"]) > 1 else float("nan")
        paper = TABLE_13.get(group)
        cells = [f"{ai2:.3f}" + (f" [{paper[0]}]" if paper else ""), f"{tai2:.3f}" + (f" [{paper[1]}]" if paper else "")]
        rows.append(f"| {group} | {cells[0]} | {cells[1]} | {'yes' if tai2 < ai2 else 'no'} |")
    return rows


def tnpir_rows(sums, published, total=None, star=""):
    names = [rule.upper() + (star if rule in THRESHOLD_RULES else "") for rule in RULES]
    rows = ["| group | " + " | ".join(names) + " |", "|---|" + "---|" * len(RULES)]
    for group, per_rule in sums.items():
        paper = published.get(group)
        rows.append(f"| {group} | " + " | ".join(f"{per_rule[rule]:.0f}" + (f" [{paper[i]}]" if paper else "")
                                                 for i, rule in enumerate(RULES)) + " |")
    trace = [group for group in sums if group.startswith("RC")]
    if len(trace) > 1 and total:
        rows.append("| total | " + " | ".join(f"{sum(sums[g][rule] for g in trace):.0f} [{total[i]}]"
                                               for i, rule in enumerate(RULES)) + " |")
    return rows


def threshold_rows(arts):
    lines = []
    for group in groups(arts):
        table = threshold_tnpir(arts, group)
        paper = TABLE_10 if group == "RC 100%" else None
        lines += [f"### Table 10's study, {group}" + (" (paper's in brackets)" if paper else ""), "",
                  "| (SHT, SLT) | " + " | ".join(f"({a:g}, {b:g})" for a, b in PAIRS) + " |",
                  "|---|" + "---|" * len(PAIRS)]
        for rule in THRESHOLD_RULES:
            cells = []
            for i, pair in enumerate(PAIRS):
                value = table[rule].get(pair_label(pair))
                cell = "–" if value is None else f"{value:.0f}"
                cells.append(cell + (f" [{paper[rule][i]}]" if paper else ""))
            lines.append(f"| {rule.upper()} | " + " | ".join(cells) + " |")
        best = {rule: max(table[rule], key=table[rule].get) for rule in THRESHOLD_RULES if table[rule]}
        lines += ["", "Best pair: " + ", ".join(f"{rule.upper()} {label[1:]}" for rule, label in best.items())
                  + " (paper: TI 0.05-2, TAI 0.05-1.5, TAI2 0.05-1).", ""]
    return lines


def threshold_claims(arts):
    found = []
    group = groups(arts)[0]
    table = threshold_tnpir(arts, group)
    by_sht = {}
    for rule in THRESHOLD_RULES:
        for label, value in table[rule].items():
            by_sht.setdefault(number(label), []).append(value)
    means = [statistics.mean(by_sht[sht]) for sht in sorted(by_sht)]
    if len(means) > 1:
        falling = all(a >= b for a, b in zip(means, means[1:]))
        found.append((f"{group}: a smaller SHT is better on average (Table 10)",
                      falling or ("partly" if means[0] == max(means) else False),
                      "mean TNPIR by SHT " + ", ".join(f"{sht:g}: {m:.0f}" for sht, m in zip(sorted(by_sht), means)),
                      "thresholds"))
    sums = tnpir(arts)
    for group_name, per_rule in sums.items():
        fixed = {}
        for _, setting in settings(arts, group_name):
            art = dict(zip(setting["rule"] + "@" + setting["pair"], setting["art_s_mean"]))
            best = min(setting[setting["rule"] == "bf"]["art_s_mean"].mean(),
                       setting[setting["rule"] == "ff"]["art_s_mean"].mean())
            for rule, label in (("ti", "t0.05-2"), ("tai", "t0.05-1.5"), ("tai2", "t0.05-1")):
                if f"{rule}@{label}" in art:
                    fixed[rule] = fixed.get(rule, 0.0) + 100 * (best - art[f"{rule}@{label}"]) / best
        gains = [rule for rule in THRESHOLD_RULES if rule in fixed and per_rule[rule] > fixed[rule]]
        found.append((f"{group_name}: the best pair per setting beats the fixed pair (Tables 14-15)",
                      verdict(gains, THRESHOLD_RULES),
                      "; ".join(f"{rule.upper()}* {per_rule[rule]:.0f} vs {fixed.get(rule, float('nan')):.0f}"
                                for rule in THRESHOLD_RULES), "tnpir"))
    trace = [group for group in sums if group.startswith("RC")]
    claimed = {group: per_rule for group, per_rule in sums.items() if not group.startswith("RC")}
    if trace:
        claimed["Trace, all RC"] = {rule: sum(sums[g][rule] for g in trace) for rule in RULES}
    for group_name, per_rule in claimed.items():
        found.append((f"{group_name}: TAI2* gains the most of the three (Tables 14-15)",
                      per_rule["tai2"] == max(per_rule[rule] for rule in THRESHOLD_RULES),
                      "ours: " + ranking(per_rule, THRESHOLD_RULES), "tnpir"))
    return found


def vector_spread_rows(folder):
    """TNPIR per group and rule computed from each speed vector alone: min..max over the vectors."""
    summary = load_summary(folder, "shih2010", ("sh", "rule"))
    if "speed-draw" not in summary.columns or summary["speed-draw"].nunique() < 2:
        return []
    rows = ["## How much one speed vector decides", "",
            "TNPIR (%) computed from each speed vector alone, lowest..highest over the vectors (the tables "
            "above average ART over the vectors first):", "",
            "| group | " + " | ".join(rule.upper() for rule in RULES) + " |", "|---|" + "---|" * len(RULES)]
    per_vector = {}
    for vector, part in summary.groupby("speed-draw"):
        arts = _arts_of(part.drop(columns=["speed-draw"]))
        for group, per_rule in tnpir(arts).items():
            for rule, value in per_rule.items():
                per_vector.setdefault(group, {}).setdefault(rule, []).append(value)
    for group, per_rule in per_vector.items():
        rows.append(f"| {group} | " + " | ".join(f"{min(per_rule[r]):.0f}..{max(per_rule[r]):.0f}" for r in RULES)
                    + " |")
    return rows + [""]


# ---- intervals over the speed vectors ----------------------------------------------------------------

def _replicated(folder):
    """(keys frame with group/sh/load/rule[/pair], ART replicates [rows, 1 + REPLICATES]) or None
    when the folder has fewer than two speed vectors. Column 0 is the plain mean."""
    summary = load_summary(folder, "shih2010", ("sh", "rule"))
    if "speed-draw" not in summary.columns or summary["speed-draw"].nunique() < 2:
        return None
    summary = _with_groups(summary)
    keys = _keys(summary)
    index, arts = boot.vector_arts(summary, keys)
    return index, arts @ boot.replicate_weights(arts.shape[1])


def _setting_arrays(index, reps, group, rule_of_column):
    """{column name: [settings, replicates]} for one group, settings in one order for every name."""
    part = index[index["group"] == group]
    settings = sorted(set(zip(part["sh"], part["load"])))
    result = {}
    for name, mask in rule_of_column(part).items():
        rows = part[mask]
        by_setting = dict(zip(zip(rows["sh"], rows["load"]), rows.index))
        if all(s in by_setting for s in settings):
            result[name] = np.vstack([reps[by_setting[s]] for s in settings])
    return result


def tnpir_replicates(index, reps):
    """{group: {rule: TNPIR % per replicate}} against min(BF, FF) (Table 11), column 0 the point."""
    result = {}
    for group in index.sort_values("order")["group"].unique():
        arrays = _setting_arrays(index, reps, group, lambda part: {r: part["rule"] == r for r in RULES})
        if "bf" not in arrays or "ff" not in arrays:
            continue
        best = np.minimum(arrays["bf"], arrays["ff"])
        result[group] = {rule: 100 * ((best - art) / best).sum(axis=0) for rule, art in arrays.items()}
    return result


def threshold_replicates(index, reps, group):
    """{rule: {pair label: TNPIR % per replicate}} of Table 10 (against the pairs' mean ART)."""
    result = {}
    for rule in THRESHOLD_RULES:
        labels = [pair_label(p) for p in PAIRS]
        arrays = _setting_arrays(index, reps, group,
                                 lambda part: {label: (part["rule"] == rule) & (part["pair"] == label)
                                               for label in labels})
        if len(arrays) < 2:
            continue
        mean = np.mean(np.stack(list(arrays.values())), axis=0)
        result[rule] = {label: 100 * ((mean - art) / mean).sum(axis=0) for label, art in arrays.items()}
    return result


def _with_interval(samples):
    low, high = boot.interval(samples[1:])
    return f"{samples[0]:.0f} [{low:.0f}, {high:.0f}]"


def interval_rows_table11(index, reps):
    """(markdown rows, claims): TNPIR with intervals, and the comparison claims judged on them."""
    sums = tnpir_replicates(index, reps)
    if not sums:
        return [], []
    trace = [group for group in sums if group.startswith("RC")]
    if len(trace) > 1:
        sums["total"] = {rule: sum(sums[g][rule] for g in trace) for rule in RULES}
    rows = ["## TNPIR with 95% intervals over the speed vectors", "",
            f"Each TNPIR (%) with its interval from {boot.REPLICATES} resamplings of the vectors (one draw shared "
            "by every setting and rule). The ranking reads from the highest TNPIR down: '>' where a rule and the "
            "next below it are told apart (their paired difference's interval excludes 0), '=' where they are "
            "not.", "",
            "| group | " + " | ".join(rule.upper() for rule in RULES) + " | ranking where the intervals separate |",
            "|---|" + "---|" * (len(RULES) + 1)]
    found = []
    for group, per_rule in sums.items():
        point = {rule: per_rule[rule][0] for rule in RULES}
        samples = {rule: per_rule[rule][1:] for rule in RULES}
        rows.append(f"| {group} | " + " | ".join(_with_interval(per_rule[rule]) for rule in RULES) +
                    f" | {boot.tied_ranking(point, samples, RULES)} |")
        smart = ["si", "ti", "ai2", "tai2"]
        apart = [r for r in smart if all(boot.separated(samples[r], samples[b]) > 0 for b in ("bf", "ff"))]
        found.append((f"{group}: SI, TI, AI2 and TAI2 each beat BF and FF, told apart over the vectors",
                      verdict(apart, smart), f"above both beyond the intervals: "
                      f"{', '.join(r.upper() for r in apart) or 'none'}", "tnpir"))
    if "total" in sums:
        samples = {rule: sums["total"][rule][1:] for rule in RULES}
        above = [r for r in RULES if r != "tai2" and boot.separated(samples["tai2"], samples[r]) > 0]
        below = [r for r in RULES if boot.separated(samples["tai2"], samples[r]) < 0]
        found.append(("TAI2 is the best rule on the trace (Table 11's total), told apart over the vectors",
                      False if below else (True if len(above) == len(RULES) - 1 else "partly"),
                      "TAI2 above " + (", ".join(r.upper() for r in above) or "none") +
                      ("; below " + ", ".join(r.upper() for r in below) if below else "") +
                      "; tied with the rest", "tnpir"))
    return rows + [""], found


def interval_rows_table10(index, reps):
    """(markdown rows, claims): Table 10 with intervals, and the paper's chosen pairs judged on them."""
    rows, found = [], []
    for group in index.sort_values("order")["group"].unique():
        table = threshold_replicates(index, reps, group)
        if not table:
            continue
        paper = TABLE_10 if group == "RC 100%" else None
        rows += [f"### Table 10's study over the speed vectors, {group}", "",
                 f"TNPIR (%) of each pair with its 95% interval ({boot.REPLICATES} resamplings of the vectors)"
                 + (", the paper's in brackets" if paper else "") + ".", "",
                 "| (SHT, SLT) | " + " | ".join(rule.upper() for rule in table) + " |",
                 "|---|" + "---|" * len(table)]
        for i, pair in enumerate(PAIRS):
            label = pair_label(pair)
            cells = [(_with_interval(table[rule][label]) if label in table[rule] else "–") +
                     (f" [{paper[rule][i]}]" if paper else "") for rule in table]
            rows.append(f"| ({pair[0]:g}, {pair[1]:g}) | " + " | ".join(cells) + " |")
        rows += ["", "| rule | best pair (share of resamplings where it is best) | pairs not told apart from "
                 "the best | the paper's pair among them? |", "|---|---|---|---|"]
        chosen = {"ti": "t0.05-2", "tai": "t0.05-1.5", "tai2": "t0.05-1"}
        among = []
        for rule, per_pair in table.items():
            point = {label: samples[0] for label, samples in per_pair.items()}
            samples = {label: s[1:] for label, s in per_pair.items()}
            share = boot.best_share(samples)
            close = boot.not_separated_from_best(point, samples)
            best = close[0]
            rows.append(f"| {rule.upper()} | ({best[1:].replace('-', ', ')}) ({share[best]:.0%}) | " +
                        ", ".join(f"({c[1:].replace('-', ', ')})" for c in close) +
                        f" | {'yes' if chosen[rule] in close else 'no'} |")
            if chosen[rule] in close:
                among.append(rule)
        rows.append("")
        found.append((f"{group}: the chosen pairs are the best, TI (0.05, 2), TAI (0.05, 1.5), TAI2 (0.05, 1) "
                      "(Table 10, over the vectors)", verdict(among, list(table)),
                      "the paper's pair is not told apart from the best for " +
                      (", ".join(r.upper() for r in among) or "no rule") + " (95% intervals over the vectors)",
                      "thresholds"))
    return rows, found


def report(arts, folder):
    sums = tnpir(arts)
    head = ["# Shih, Huang & Chung reproduced", "",
            "Written by `gridsim plot shih2010` from this folder's summary.csv. ART is averaged over the speed "
            "vectors of a setting first; NPIR is against the better of BF and FF in each setting; TNPIR sums it "
            "over a group's settings (%). The paper's numbers are in brackets.", ""]
    if "pair" in arts.columns:
        trace = any(group.startswith("RC") for group in sums)
        lines = head + [f"## Table {14 if trace else 15}: the best of 20 threshold pairs per setting (TI*, TAI*, "
                        "TAI2*)", ""]
        lines += tnpir_rows(sums, TABLE_14 if trace else TABLE_15, TABLE_14_TOTAL, "*") + [""]
        lines += threshold_rows(arts)
        found = threshold_claims(arts)
        replicated = _replicated(folder)
        if replicated is not None:
            rows, more = interval_rows_table10(*replicated)
            lines += rows
            found += more
    else:
        trace = any(group.startswith("RC") for group in sums)
        lines = head + [f"## Table {11 if trace else 12}: TNPIR of each rule (the paper's threshold pairs)", ""]
        lines += tnpir_rows(sums, TABLE_11 if trace else TABLE_12, TABLE_11_TOTAL) + [""]
        lines += ["## Table 13: the spread of NPIR (standard deviation over the settings, fractions)", ""]
        lines += spread_rows(arts) + [""]
        lines += vector_spread_rows(folder)
        replicated = _replicated(folder)
        found = comparison_claims(arts, sums)
        if replicated is not None:
            rows, more = interval_rows_table11(*replicated)
            lines += rows
            found += more
    lines += ["## The paper's claims", ""] + claim_rows(found)
    return write_markdown(folder, "reproduction.md", lines)


def plot(folder, out, save, quiet):
    plot_paper(folder, out, save, quiet, load, figures, report)

