"""gridpeer's simulator from Python: run, compare, coalloc, allocate, group, bag, replay and sweep in-process.

Options are gridsim's (``gridsim run --help``), written as keyword arguments
with ``_`` for ``-``: ``gridpeer.run(topology="tiny-3server", workload="lublin",
jobs=200, algorithm="si", seed=3)``. ``True`` passes a switch, ``False`` and
``None`` leave an option out. The same parser checks them, so a bad value is
refused with the option named, as on the command line.

Each run returns a :class:`Run`: ``summary`` (the dict ``gridsim run --out``
writes), ``jobs`` (every job in Batsim's jobs.csv layout, docs/output-formats.md)
and ``series`` (each server's busy nodes and queue over time). Both tables are
pandas DataFrames when pandas is importable (Debian: python3-pandas), else
lists of dicts.
"""
import csv
import io
import json
import os

from . import _gridpeer

__all__ = ["Run", "run", "compare", "coalloc", "allocate", "group", "bag", "replay", "sweep", "version", "builtin_experiments"]

ExperimentError = _gridpeer.ExperimentError


def version():
    """The version every result records: 0.1.0+<git describe>."""
    return _gridpeer.version()


def builtin_experiments():
    """The experiment files built into gridsim (shan2004, phi-sensitivity, ...)."""
    return list(_gridpeer.builtin_experiments())


def _table(text):
    try:
        import pandas
    except ImportError:
        return list(csv.DictReader(io.StringIO(text)))
    return pandas.read_csv(io.StringIO(text))


def _arguments(options):
    arguments = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            arguments.append(flag)
        else:
            arguments += [flag, str(value)]
    return arguments


class Run:
    """One run's results: summary (dict), jobs and series (DataFrames)."""

    def __init__(self, texts):
        summary, jobs, series = texts if len(texts) == 3 else (*texts, None)
        self.summary = json.loads(summary)
        self.jobs = _table(jobs)
        self.series = _table(series) if series is not None else None

    def __repr__(self):
        label = (self.summary.get("algorithm") or self.summary.get("policy") or self.summary.get("method")
                 or self.summary.get("rule"))
        return f"<gridpeer.Run {label}: {self.summary.get('jobs')} jobs>"


def run(**options):
    """One grid run, as ``gridsim run``; returns a Run."""
    return Run(_gridpeer.run(_arguments(options)))


def compare(data_blind=False, threads=None, **options):
    """Local, Centralized, S-I, R-I and Sy-I (and with data_blind the
    data-blind S-I and Sy-I) on one grid and workload, as ``gridsim compare``.
    Returns {label: Run}, labels as gridsim prints them."""
    runs = [Run(texts) for texts in _gridpeer.compare(_arguments(options), data_blind, threads or os.cpu_count() or 1)]
    return {r.summary["algorithm"]: r for r in runs}


def coalloc(**options):
    """One run of Jones et al. 2004's clusters, as ``gridsim coalloc`` (options
    of ``gridsim coalloc --help``: method, lslt, bsbw, chunk, ...). Returns a
    Run: summary, and jobs (where each ran: local, migrated or split, its parts
    and lowest slowdown; docs/coallocation.md); series is None."""
    return Run(_gridpeer.coalloc(_arguments(options)))


def allocate(**options):
    """One run of Shih, Huang & Chung's processor allocation, as ``gridsim
    allocate`` (options of ``gridsim allocate --help``: rule, sh, speed_draw,
    sl, rc, workload, ...). Returns a Run: summary, and jobs (each job's site,
    speed, start and end; docs/processor-allocation.md); series is None."""
    return Run(_gridpeer.allocate(_arguments(options)))


def group(**options):
    """One run of Ang et al. 2007's job grouping on a routed grid, as ``gridsim
    group`` (options of ``gridsim group --help``: scheduler, jobs, user,
    granularity, ...). Returns a Run: summary, and jobs (one row per group:
    resource, jobs, MI and its times)."""
    return Run(_gridpeer.group(_arguments(options)))


def bag(**options):
    """One peer's bag grouped over its partners in the P2P grid, as ``gridsim
    bag`` (options of ``gridsim bag --help``: scheduler, algorithm, origin,
    ...). Returns a Run: summary, and jobs (each job of the bag: where it ran
    and its times)."""
    return Run(_gridpeer.bag(_arguments(options)))


def replay(verbose=False, **options):
    """One server's workload under its local policies, as ``gridsim replay``.
    Returns {policy: Run}."""
    runs = [Run(texts) for texts in _gridpeer.replay(_arguments(options), verbose)]
    return {r.summary["policy"]: r for r in runs}


def sweep(experiment, out, set=None, seeds=None, threads=None, force=False, overwrite=False, verbose=False):
    """Runs an experiment file (or a built-in one) into the folder ``out``, as
    ``gridsim sweep``: reuses identical runs, refuses a folder of other results
    unless ``overwrite``. ``set`` is a dict of fixed options to replace, ``seeds``
    "1-5" or "1,2,5". Returns (results, summary) tables from the folder."""
    sets = [f"{name}={value}" for name, value in (set or {}).items()]
    status = _gridpeer.sweep(str(experiment), str(out), sets, seeds or "", threads or os.cpu_count() or 1, force,
                             overwrite, verbose)
    if status != 0:
        raise RuntimeError(f"gridpeer.sweep({experiment!r}) failed (exit status {status}); its log says why")
    with open(os.path.join(out, "results.csv")) as results, open(os.path.join(out, "summary.csv")) as summary:
        return _table(results.read()), _table(summary.read())
