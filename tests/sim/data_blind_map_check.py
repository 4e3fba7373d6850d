#!/usr/bin/env python3
"""The data-blind map end to end on a slice of shan2004-data-blind-map: two
mappings (ours, other logs), WAN 4 and 40 Mb/s, b = 1,000 and 10,000, both
readings, 5-day windows, one seed. `gridsim plot data-blind-map` writes
data_blind_map.md and two figures. Checked against results.csv directly:
a cell's penalty is blind over aware turnaround minus one; b = 1,000 over
4 Mb/s and b = 10,000 over 40 Mb/s (the site networks scaled with the WAN) give
the same penalty but for the control messages' fixed sizes; counting data per
node moves less data than per CPU. Skipped (77) without the traces.

usage: data_blind_map_check.py GRIDSIM WORK_DIR SOURCE_DIR
"""
import math
import os
import re
import shutil
import subprocess
import sys

import pandas as pd

gridsim, work, source = sys.argv[1], sys.argv[2], sys.argv[3]
trace_dir = os.environ.get("GRIDPEER_TRACE_DIR", "")
if not os.path.exists(os.path.join(trace_dir, "CTC-SP2-1996-3.1-cln.swf.gz")):
    print("no traces: skipped")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
text = open(os.path.join(source, "sim", "sweeps", "experiments", "shan2004-data-blind-map.toml")).read()
for full in ('  { label = "windows", topology = "shan2004-windows" },\n',
             '  { label = "wan2", wan-mbps = 2, site-mbps = 40 },\n',
             '  { label = "wan10", wan-mbps = 10, site-mbps = 200 },\n',
             '  { label = "wan100", wan-mbps = 100, site-mbps = 2000 },\n',
             '  { label = "wan400", wan-mbps = 400, site-mbps = 8000 },\n'):
    assert full in text, f"shan2004-data-blind-map.toml lost {full}"
    text = text.replace(full, "")
sizes = 'values = ["100", "300", "1000", "3000", "10000", "30000"]'
assert sizes in text
text = text.replace(sizes, 'values = ["1000", "10000"]').replace("limit-days = 30", "limit-days = 5")
experiment = os.path.join(work, "slice.toml")
open(experiment, "w").write(text.replace('name = "shan2004-data-blind-map"', 'name = "data-blind-map-slice"'))
out = os.path.join(work, "out")
subprocess.run([gridsim, "sweep", experiment, "--out", out, "--threads", "2", "--seeds", "1"], check=True, timeout=600)

runs = pd.read_csv(os.path.join(out, "results.csv"))
assert len(runs) == 2 * 2 * 2 * 2 * 2, len(runs)
keys = ["mapping", "wan", "data-size", "data-work"]
aware = runs[runs.algorithm == "syi"].set_index(keys)
blind = runs[runs.algorithm == "syi-blind"].set_index(keys)
penalty = (blind.avg_response_s / aware.avg_response_s - 1).to_dict()
moved = aware.data_volume_mb_per_job.to_dict()
for mapping in ("ours", "other-logs"):
    for work_unit in ("cpus", "nodes"):
        low = penalty[(mapping, "wan4", "b1000", work_unit)]
        high = penalty[(mapping, "wan40", "b10000", work_unit)]
        assert abs(math.log1p(low) - math.log1p(high)) < math.log(1.1), (mapping, work_unit, low, high)
    for cell in (("wan4", "b10000"), ("wan40", "b1000")):
        assert moved[(mapping, *cell, "nodes")] <= moved[(mapping, *cell, "cpus")], (mapping, cell)

report = open(os.path.join(out, "data_blind_map.md")).read()
for section in ("## Where the paper's two points sit", "## The cliff",
                "## Where the paper's two values fall on each curve", "## The map"):
    assert section in report, section
# The report's cell is the penalty computed here (ours, per CPU, the paper's slow point).
table = report.split("### ours, data per CPU (the paper's words)")[1]
row = next(line for line in table.splitlines() if line.startswith("| 10000 |"))
cell = row.split("|")[2]  # WAN 4 Mb/s: the first column of this slice
shown = float(re.match(r"\s*([+-][\d,]+)%", cell).group(1).replace(",", ""))
expected = 100 * penalty[("ours", "wan4", "b10000", "cpus")]
assert abs(shown - expected) <= 0.5 + 1e-9 * abs(expected), (cell, expected)
points = report.split("## Where the paper's two points sit")[1].split("## The cliff")[0]
assert sum(line.startswith(("| ours |", "| other-logs |")) for line in points.splitlines()) == 4, points
for figure in ("data_blind_map.png", "data_blind_cliff.png"):
    assert os.path.getsize(os.path.join(out, "figures", figure)) > 10_000, figure
shutil.rmtree(work)
print("data-blind map slice: penalties, one axis in b / WAN, the report and figures: ok")
