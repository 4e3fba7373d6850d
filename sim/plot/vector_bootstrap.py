"""Intervals for Shih, Huang & Chung's TNPIR over the speed vectors.

Each (SH > 0) setting is run on the same V drawn speed vectors for every rule
and threshold pair; ART is averaged over the vectors before NPIR is taken. A
bootstrap replicate draws V vectors with replacement -- one draw shared by
every setting, rule and pair, so the comparisons stay paired -- and
recomputes every TNPIR from the ARTs averaged over the drawn vectors. The 95%
interval is the replicates' 2.5th to 97.5th percentile. Two values are told
apart only where the paired difference's interval excludes 0.

Near saturation the model is chaotic (+0.2% capacity moved BF's ART by 70%),
so the vectors are the uncertainty that matters; a rule or pair ranked above
another only inside it is a tie.
"""
import numpy as np

REPLICATES = 2000
SEED = 2010  # fixed: the same folder gives the same intervals


def vector_arts(summary, keys):
    """(index of keys, ART array [rows, vectors]) from a summary with a
    speed-draw axis; a row missing a vector (SH 0, where every vector is
    speed 1) takes the mean of the vectors it has."""
    table = summary.pivot_table(index=keys, columns="speed-draw", values="art_s_mean", aggfunc="mean")
    values = table.to_numpy(dtype=float)
    row_mean = np.nanmean(values, axis=1, keepdims=True)
    values = np.where(np.isnan(values), row_mean, values)
    return table.index.to_frame(index=False), values


def replicate_weights(vectors, replicates=REPLICATES, seed=SEED):
    """[vectors, replicates + 1]: how often each vector is drawn, divided by
    the count; column 0 is the plain mean (every vector once)."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(vectors, [1.0 / vectors] * vectors, size=replicates).T
    return np.hstack([np.ones((vectors, 1)), counts]) / vectors


def interval(samples):
    """(low, high) of the 95% percentile interval of replicate samples."""
    return float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def separated(a, b):
    """+1 if a is above b in 97.5% of the replicates, -1 if below, 0 if not told apart."""
    low, high = interval(a - b)
    return 1 if low > 0 else -1 if high < 0 else 0


def tied_ranking(point, samples, names):
    """'AI2 = TAI2 > TAI ...': names by point estimate, '>' only where the
    neighbours' paired difference is separated, '=' otherwise."""
    order = sorted(names, key=point.get, reverse=True)
    text = order[0].upper()
    for above, below in zip(order, order[1:]):
        text += (" > " if separated(samples[above], samples[below]) > 0 else " = ") + below.upper()
    return text


def not_separated_from_best(point, samples):
    """The names whose difference to the best is not separated from 0, best first."""
    best = max(point, key=point.get)
    close = [name for name in point if name == best or separated(samples[best], samples[name]) == 0]
    return sorted(close, key=point.get, reverse=True)


def best_share(samples):
    """{name: share of the replicates in which it has the highest TNPIR}."""
    names = list(samples)
    stacked = np.vstack([samples[name] for name in names])
    winners = np.argmax(stacked, axis=0)
    return {name: float(np.mean(winners == i)) for i, name in enumerate(names)}
