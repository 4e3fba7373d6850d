#!/usr/bin/env python3
"""The shih2010 report end to end on a slice of the experiment (RC 100/50%, SH
0/0.24, SL 1/2/3, two speed vectors, all eight rules): the sweep runs on
SDSC-SP2, and `gridsim plot shih2010` writes TNPIR beside the paper's Table 11,
the figures, a verdict per claim, and every TNPIR with its interval over the
speed vectors. TNPIR of BF and FF can only be <= 0 (the better of the two is
the reference), in every resampling too. A slice of shih2010-table10 gives
Table 10 with intervals and judges the paper's chosen pairs on them. Then slices of shih2010-models (Table 12)
and shih2010-dynamic-models (Tables 10 and 15) on 1,500-job models. Skipped
(77) without the traces.

usage: shih2010_check.py GRIDSIM WORK_DIR SOURCE_DIR
"""
import os
import re
import shutil
import subprocess
import sys

gridsim, work, source = sys.argv[1], sys.argv[2], sys.argv[3]
trace_dir = os.environ.get("GRIDPEER_TRACE_DIR", "")
if not os.path.exists(os.path.join(trace_dir, "SDSC-SP2-1998-4.2-cln.swf.gz")):
    print("no SDSC-SP2 trace: skipped")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
text = open(os.path.join(source, "sim", "sweeps", "experiments", "shih2010.toml")).read()
for full, small in (("[100, 75, 50, 25]", "[100, 50]"), ("[0, 0.06, 0.12, 0.18, 0.24]", "[0, 0.24]"),
                    ("[1, 1.5, 2, 2.5, 3, 3.5, 4]", "[1, 2, 3]"), ("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", "[0, 1]")):
    assert full in text, f"shih2010.toml lost its axis {full}"
    text = text.replace(full, small)
experiment = os.path.join(work, "slice.toml")
open(experiment, "w").write(text.replace('name = "shih2010"', 'name = "shih2010-slice"'))
out = os.path.join(work, "out")
subprocess.run([gridsim, "sweep", experiment, "--out", out, "--threads", "2"], check=True, timeout=600)
report = open(os.path.join(out, "reproduction.md")).read()
assert "| group | BF | FF | SI | TI | AI | AI2 | TAI | TAI2 |" in report, report
for rc in ("RC 100%", "RC 50%", "total"):
    row = next(line for line in report.splitlines() if line.startswith(f"| {rc} |"))
    cells = [float(re.match(r"\s*(-?\d+)", cell).group(1)) for cell in row.split("|")[2:-1]]
    assert len(cells) == 8 and cells[0] <= 0 and cells[1] <= 0, row
verdicts = [line for line in report.splitlines()
            if any(f"| {verdict} |" in line for verdict in ("holds", "partly", "does not hold"))]
# Three claims on the trace, then two per RC and two on the total (the smart rules beat BF and FF;
# AI2/TAI2 beat AI/TAI); then over the vectors, the smart rules per RC and on the total, and TAI2
# the best, each told apart by the intervals.
assert len(verdicts) == 3 + 2 * 2 + 2 + 3 + 1, verdicts
assert "## Table 13" in report and "| RC 100% |" in report.split("## Table 13")[1], report
for figure in ("art_by_sl.png", "tnpir.png"):
    assert os.path.getsize(os.path.join(out, "figures", figure)) > 10_000, figure
# Every TNPIR has an interval over the speed vectors; BF's and FF's can never
# rise above 0 in any resampling (the better of the two is the reference).
intervals = report.split("## TNPIR with 95% intervals over the speed vectors")[1].split("## ")[0]
for rc in ("RC 100%", "RC 50%", "total"):
    row = next(line for line in intervals.splitlines() if line.startswith(f"| {rc} |"))
    cells = [re.match(r"\s*(-?\d+) \[(-?\d+), (-?\d+)\]", cell) for cell in row.split("|")[2:10]]
    assert all(cells), row
    assert all(int(c.group(2)) <= int(c.group(3)) for c in cells), row
    assert int(cells[0].group(3)) <= 0 and int(cells[1].group(3)) <= 0, row
    assert " > " in row or " = " in row, row  # the ranking, told apart where the intervals say so

# The models (Table 12) and the threshold studies (Tables 10 and 15) on small
# slices: 1,500 jobs per model, SH 0 and 0.24, two vectors.
def slice_of(name, replacements, sets):
    text = open(os.path.join(source, "sim", "sweeps", "experiments", f"{name}.toml")).read()
    for full, small in replacements:
        assert full in text, f"{name}.toml lost {full}"
        text = text.replace(full, small)
    path = os.path.join(work, f"{name}.toml")
    open(path, "w").write(text.replace(f'name = "{name}"', f'name = "{name}-slice"'))
    folder = os.path.join(work, name)
    subprocess.run([gridsim, "sweep", path, "--out", folder, "--threads", "2"] + sets, check=True, timeout=600)
    return open(os.path.join(folder, "reproduction.md")).read(), folder


small_sh = ("[0, 0.06, 0.12, 0.18, 0.24]", "[0, 0.24]")
models, _ = slice_of("shih2010-models", [small_sh, ("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", "[0, 1]")],
                     ["--set", "jobs=1500"])
assert "## Table 12" in models, models
for model in ("Feitelson96", "Lublin99"):
    row = next(line for line in models.splitlines() if line.startswith(f"| {model} | -") or
               line.startswith(f"| {model} | 0"))
    cells = [float(re.match(r"\s*(-?\d+)", cell).group(1)) for cell in row.split("|")[2:-1]]
    assert len(cells) == 8 and cells[0] <= 0 and cells[1] <= 0, row
    assert f"| {model}: SI, TI, AI2 and TAI2 each beat BF and FF |" in models, models
assert "How much one speed vector decides" in models
# Table 10 over the vectors: every pair with an interval, and the paper's
# chosen pairs judged against the pairs not told apart from the best.
table10, _ = slice_of("shih2010-table10", [small_sh, ("[1, 1.5, 2, 2.5, 3, 3.5, 4]", "[1, 3]"),
                                           ("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", "[0, 1, 2]")], [])
over = table10.split("### Table 10's study over the speed vectors, RC 100%")[1]
assert sum(line.startswith("| (0.") for line in over.splitlines()) == 20, over  # one row per pair
for rule in ("TI", "TAI", "TAI2"):
    assert re.search(rf"\| {rule} \| \(0\.\d+, [\d.]+\) \(\d+%\) \|", over), over
assert "the chosen pairs are the best" in table10, table10
dynamic, folder = slice_of("shih2010-dynamic-models", [small_sh], ["--set", "jobs=1500"])
assert "## Table 15" in dynamic and "TAI2*" in dynamic, dynamic
assert "### Table 10's study, Feitelson96" in dynamic and "Best pair: TI 0." in dynamic, dynamic
assert "a smaller SHT is better on average" in dynamic
for figure in ("thresholds.png", "tnpir.png", "art_by_sl.png"):
    assert os.path.getsize(os.path.join(folder, "figures", figure)) > 10_000, figure
shutil.rmtree(work)
print("shih2010 slices (trace, models, thresholds), TNPIR and claims: ok")
