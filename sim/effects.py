"""Morris elementary effects with the step as played (SALib divides by the nominal step, which a whole-number knob
rounds), a few-valued knob moved a unit at a time, and intervals from a bootstrap over the games (the same blocks
of game ids at every point: common random numbers) and the trajectories (docs/sensitivity.md)."""
from __future__ import annotations

import math
import warnings

import numpy as np

FEW_VALUES = 6        # a whole-number knob with at most this many values is played at each of them
RESAMPLES = 1000
LEVEL = 0.95


def few_values(integer: bool, scales_list: bool, value_low, value_high) -> int:
    """The number of whole values of a knob played one unit at a time, or 0 when it is moved by design steps."""
    if not integer or scales_list:
        return 0
    count = int(value_high) - int(value_low) + 1
    return count if 2 <= count <= FEW_VALUES else 0


def align_whole_levels(X: np.ndarray, size: int, knobs: list[tuple[int, int, int]], seed: int) -> np.ndarray:
    """Morris trajectories (blocks of `size` rows) with each few-valued knob (column, lowest value, number of
    values) moved one unit at its own step, trajectory t taking unit (t + a random offset) mod (values - 1)."""
    X = np.array(X, dtype=float)
    rng = np.random.default_rng(seed)
    for column, low, count in knobs:
        offset = int(rng.integers(count - 1))
        for t in range(len(X) // size):
            rows = X[t * size:(t + 1) * size, column]
            moved = np.flatnonzero(np.diff(rows) != 0)
            if not len(moved):
                continue
            step = int(moved[0]) + 1
            unit = (t + offset) % (count - 1)
            lower, upper = low + unit, low + unit + 1
            before, after = (lower, upper) if rows[step] > rows[step - 1] else (upper, lower)
            X[t * size:t * size + step, column] = before
            X[t * size + step:(t + 1) * size, column] = after
    return X


def steps(X: np.ndarray, size: int) -> list[list[tuple[int, int]]]:
    """Per knob, the (before, after) row pairs of the design's steps that move it."""
    out = [[] for _ in range(X.shape[1])]
    for t in range(len(X) // size):
        for r in range(t * size + 1, (t + 1) * size):
            for column in np.flatnonzero(X[r] != X[r - 1]):
                out[column].append((r - 1, r))
    return out


class Effects:
    """Elementary effects of a design. `position[point, knob]`: the knob's value as played, on the scale of its
    whole range (0 = low end, 1 = high end); `few[knob]`: its number of whole values played (0: design steps)."""

    def __init__(self, X: np.ndarray, size: int, position: np.ndarray, few: list[int]):
        self.position, self.few = position, few
        self.pairs = []   # per knob: (before rows, after rows, change of position, stratum) of its real steps
        for k, pairs in enumerate(steps(X, size)):
            rows = np.array(pairs, dtype=np.int64).reshape(-1, 2)
            change = position[rows[:, 1], k] - position[rows[:, 0], k]
            keep = change != 0   # a step rounded to no change plays the same configuration: no step
            rows, change = rows[keep], change[keep]
            if few[k]:   # the unit of the knob the step crosses (0 = lowest value to the next)
                stratum = np.minimum(position[rows[:, 0], k], position[rows[:, 1], k]) * (few[k] - 1)
                stratum = np.rint(stratum).astype(np.int64)
            else:
                stratum = np.zeros(len(rows), dtype=np.int64)
            self.pairs.append((rows[:, 0], rows[:, 1], change, stratum))

    def estimate(self, Y: np.ndarray, resample=None) -> np.ndarray:
        """(knobs, 4, replicates): mu*, mu, sigma and effect_across_range from figures Y (points, replicates);
        `resample`: a generator redrawing every knob's steps (within each unit) per replicate."""
        reps = Y.shape[1]
        out = np.full((len(self.pairs), 4, reps), np.nan)
        for k, (before, after, change, stratum) in enumerate(self.pairs):
            if not len(change):
                continue
            order = np.argsort(stratum, kind="stable")   # steps laid out unit by unit
            units, counts = np.unique(stratum[order], return_counts=True)
            ends = np.concatenate([[0], np.cumsum(counts)])
            if resample is None:
                idx = np.repeat(order[:, None], reps, axis=1)
            else:
                idx = np.concatenate([order[resample.integers(a, b, size=(b - a, reps))]
                                      for a, b in zip(ends[:-1], ends[1:])])
            diff = np.take_along_axis(Y[after] - Y[before], idx, axis=0)
            ee = diff / change[idx]
            out[k, 0], out[k, 1] = np.abs(ee).mean(axis=0), ee.mean(axis=0)
            out[k, 2] = ee.std(axis=0, ddof=1) if len(idx) > 1 else 0.0
            if self.few[k]:   # the sum of the units' mean changes, each oriented low -> high
                upward = diff * np.sign(change[idx])
                present = [upward[a:b].mean(axis=0) for a, b in zip(ends[:-1], ends[1:])]
                out[k, 3] = np.sum(present, axis=0) if len(units) == self.few[k] - 1 else np.nan
            else:
                out[k, 3] = out[k, 1]
        return out


def game_replicates(y: np.ndarray, blocks: np.ndarray | None, se: np.ndarray | None, reps: int, rng
                    ) -> np.ndarray:
    """(points, reps) figures under resampled games: `blocks` (points, G, 2), (sum, count) per block of game ids,
    drawn once per replicate for all points; else each point moves by its own standard error `se`, if any."""
    if blocks is not None:
        G = blocks.shape[1]
        weights = rng.multinomial(G, np.full(G, 1 / G), size=reps).T.astype(float)  # (G, reps)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (blocks[:, :, 0] @ weights) / (blocks[:, :, 1] @ weights)
    if se is None:
        return np.repeat(y[:, None], reps, axis=1)
    return y[:, None] + np.nan_to_num(se)[:, None] * rng.standard_normal((len(y), reps))


def small_sample_stretch(effects: Effects) -> np.ndarray:
    """Per knob: t(0.975, n - u) / z(0.975) x sqrt(n / (n - u)), n its steps and u its units."""
    from scipy.special import ndtri, stdtrit  # not scipy.stats: importing it costs about 1 CPU-s
    z = float(ndtri(0.5 + LEVEL / 2))
    out = np.ones(len(effects.pairs))
    for k, (_, _, change, stratum) in enumerate(effects.pairs):
        if len(change):
            n, units = len(change), len(np.unique(stratum))
            df = max(1, n - units)
            out[k] = float(stdtrit(df, 0.5 + LEVEL / 2)) / z * math.sqrt((df + units) / df)
    return out


def analyse_metric(effects: Effects, y: np.ndarray, blocks: np.ndarray | None, se: np.ndarray | None,
                   seed: int, reps: int = RESAMPLES) -> dict:
    """Per knob: estimates with 95% intervals (games and trajectories resampled), and its noise level."""
    rng = np.random.default_rng(seed)
    point = effects.estimate(y[:, None])[..., 0]   # (knobs, 4)
    games = game_replicates(y, blocks, se, reps, rng)
    boot = effects.estimate(games, rng)   # (knobs, 4, reps)
    tail = (1 - LEVEL) / 2 * 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a knob with no step at all: NaN, said in the table
        low, high = np.nanpercentile(boot, [tail, 100 - tail], axis=-1)
    # few steps (n in u units): the bootstrap understates the error by sqrt((n - u) / n) and its normal quantile
    # is too short for n - u degrees of freedom; the interval is stretched about the estimate by both
    stretch = small_sample_stretch(effects)[:, None]
    low, high = point + stretch * (low - point), point + stretch * (high - point)
    # noise: the spread of each step's elementary effect under resampled games alone
    noise = np.zeros(len(effects.pairs))
    for k, (before, after, change, _) in enumerate(effects.pairs):
        if len(change):
            sds = np.nanstd((games[after] - games[before]) / change[:, None], axis=1, ddof=1)
            sds = sds[np.isfinite(sds) & (sds > 1e-12)]
            noise[k] = math.sqrt(2 / math.pi) * float(np.median(sds)) if len(sds) else 0.0
    return {"estimate": point, "low": low, "high": high, "noise": noise}
