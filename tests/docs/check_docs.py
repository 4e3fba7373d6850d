#!/usr/bin/env python3
"""The README and docs against the programs: every gridsim, gridctl and gridpeer
command line shown in a code block must name a subcommand the tool has and
only options its --help lists. Help that promises what the program does not
have (or documents an option the program dropped) fails here.

usage: check_docs.py SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys

source, build = sys.argv[1], sys.argv[2]
tools = {
    "gridsim": os.path.join(build, "sim", "gridsim"),
    "gridctl": os.path.join(build, "peer", "client", "gridctl"),
    "gridpeer": os.path.join(build, "peer", "daemon", "gridpeer"),
}
has_subcommands = {"gridsim", "gridctl"}
documents = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md"))) + \
    [os.path.join(source, d, "README.md") for d in ("topologies", "docker", "sim") if
     os.path.exists(os.path.join(source, d, "README.md"))]

help_cache = {}


def help_of(tool, sub):
    key = (tool, sub)
    if key not in help_cache:
        command = [tools[tool]] + ([sub] if sub else []) + ["--help"]
        run = subprocess.run(command, capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, COLUMNS="200"))
        help_cache[key] = (run.returncode, run.stdout + run.stderr)
    return help_cache[key]


SHELL_BLOCKS = ("```sh", "```bash", "```shell", "```console")


def code_lines(path):
    """Lines of shell code blocks (```sh and the like), continuation backslashes joined."""
    inside, pending = False, ""
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        fence = line.strip()
        if fence.startswith("```"):
            inside, pending = (not inside and fence.startswith(SHELL_BLOCKS)), ""
            continue
        if not inside:
            continue
        text = pending + line.rstrip("\n")
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        yield number, text


invocation = re.compile(r"(?:^|[\s/;&|(])(gridsim|gridctl|gridpeer)(?=\s)(.*)")
failures, checked = [], 0
for path in documents:
    for number, line in code_lines(path):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#SBATCH") else ""
        match = invocation.search(code)
        if not match:
            continue
        tool, rest = match.group(1), match.group(2)
        rest = re.split(r"\s(?:&&|\|\||;|\||&|>)\s?|\s[12]?>", rest)[0]
        words = rest.split()
        sub = ""
        if tool in has_subcommands and words and not words[0].startswith("-"):
            sub = words[0]
        where = f"{os.path.relpath(path, source)}:{number}"
        if sub and not sub.startswith("$"):
            status, text = help_of(tool, "")
            if not re.search(rf"^\s+{re.escape(sub)}\b", text, re.M):
                failures.append(f"{where}: {tool} has no command '{sub}'")
                continue
        status, text = help_of(tool, sub)
        if status != 0:
            failures.append(f"{where}: {tool} {sub} --help failed")
            continue
        for option in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", rest):
            checked += 1
            if not re.search(rf"--{re.escape(option)}\b", text):
                failures.append(f"{where}: {tool} {sub} has no option --{option}")

for failure in failures:
    print("FAIL:", failure)
print(f"check_docs: {checked} options in {len(documents)} documents;", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
