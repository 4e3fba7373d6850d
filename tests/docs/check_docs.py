#!/usr/bin/env python3
"""The README and docs against the programs and the tree: every gridsim, gridctl
and gridpeer command line shown in a code block must name a subcommand the tool
has and only options its --help lists, and every file or folder of the
repository written in backticks must exist. Help that promises what the program
does not have, a documented option the program dropped, or a path a change moved
fails here.

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
        # "--slurm-option=--time=10": what follows "=" is a value passed on to another program.
        for option in re.findall(r"(?<![\w=-])--([a-z][a-z0-9-]*)", rest):
            checked += 1
            if not re.search(rf"--{re.escape(option)}\b", text):
                failures.append(f"{where}: {tool} {sub} has no option --{option}")

# Paths in backticks: a token with a folder of the tree (peer/core/p2p/peer_host.hpp,
# policy/job_grouping.hpp, sim/sweeps/experiments/*.toml) or a source file's name
# (grid_peer_bags.cpp, bag_rounds.*). It must name something the repository holds:
# from its root, from the document's folder, or as the tail of a tracked path.
# Paths outside the repository (../shared/...), outputs a command writes and
# examples of the user's own files are not the repository's and are left alone.
tracked = subprocess.run(["git", "-C", source, "ls-files"], capture_output=True, text=True).stdout.split("\n")
tracked = [t for t in tracked if t]
folders = {str(p) for t in tracked for p in __import__("pathlib").PurePosixPath(t).parents if str(p) != "."}
top = {t.split("/", 1)[0] for t in tracked if "/" in t}
SOURCE_EXTENSIONS = (".cpp", ".hpp", ".py", ".sh", ".capnp", ".cmake", ".service")
backticked = re.compile(r"`([^`\s]+)`")


def looks_like_path(token):
    if token.startswith(("../", "/", "-", "$", "~", "http")) or "://" in token or "=" in token:
        return False
    if any(part.isupper() for part in token.split("/")):  # a placeholder: tests/fuzz/crashes/TARGET/
        return False
    first = token.split("/", 1)[0]
    if "/" in token and (first in top or first in {"policy", "p2p", "meta", "local", "driver", "studies"}):
        return True
    return "/" not in token and token.endswith(SOURCE_EXTENSIONS + (".*",)) and not token.startswith(".")


def exists(token, document):
    braces = re.search(r"\{([^{}]*)\}", token)
    if braces:  # peer/core/p2p/grid_peer.{hpp,cpp}: each must exist
        return all(exists(token[:braces.start()] + choice + token[braces.end():], document)
                   for choice in braces.group(1).split(","))
    import fnmatch
    name = token.split("#", 1)[0]
    name = re.sub(r":\d+(-\d+)?$", "", name).rstrip("/")
    if name.endswith(".*"):
        name = name[:-2] + ".[ch]pp"
    for base in (source, os.path.dirname(document)):
        if glob.glob(os.path.join(base, name)) or glob.glob(os.path.join(base, name + ".[ch]pp")):
            return True
    for candidate in tracked + sorted(folders):
        if fnmatch.fnmatch(candidate, name) or fnmatch.fnmatch(candidate, "*/" + name):
            return True
    return False


paths_checked = 0
for path in documents:
    inside = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.strip().startswith("```"):
            inside = not inside
            continue
        if inside:
            continue
        for token in backticked.findall(line):
            token = token.rstrip(".,;:)")
            if not looks_like_path(token):
                continue
            paths_checked += 1
            if not exists(token, path):
                failures.append(f"{os.path.relpath(path, source)}:{number}: `{token}` is not in the repository")

for failure in failures:
    print("FAIL:", failure)
print(f"check_docs: {checked} options and {paths_checked} paths in {len(documents)} documents;",
      "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
