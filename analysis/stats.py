"""Intervals and tests every report uses. Vectorised; no per-row Python."""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, n, z: float = Z95):
    """Wilson score interval for a binomial rate. Works on scalars or arrays; n = 0 gives (nan, nan)."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def rate(successes, n) -> dict:
    """A rate as the summary.json metric object: estimate, 95% Wilson interval, sample size.
    `successes` may be fractional (shared wins credited 1/k); the interval then uses the rounded count."""
    n = int(n)
    if n == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    lo, hi = wilson(successes, n)
    return {"estimate": float(successes) / n, "ci_low": float(lo), "ci_high": float(hi), "n": n}


def mean(values) -> dict:
    """A mean with a 95% normal interval (t is indistinguishable at the sample sizes we run)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    m = float(values.mean())
    se = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return {"estimate": m, "ci_low": m - Z95 * se, "ci_high": m + Z95 * se, "n": int(n)}


def binomial_test_half(successes, n) -> float:
    """Two-sided p-value that a rate differs from 1/2 (normal approximation with continuity correction)."""
    if n == 0:
        return float("nan")
    z = (abs(successes - n / 2) - 0.5) / math.sqrt(n / 4)
    return float(math.erfc(max(z, 0.0) / math.sqrt(2)))


def games_to_detect(edge: float = 0.01, p0: float = 0.5, power: float = 0.8, z_alpha: float = Z95) -> int:
    """Games needed to tell a rate of p0 + edge from p0 (two-sided 5% test, 80% power)."""
    z_beta = 0.8416212335729143 if power == 0.8 else float(np.sqrt(2) * _erfinv(2 * power - 1))
    p1 = p0 + edge
    n = ((z_alpha * math.sqrt(p0 * (1 - p0)) + z_beta * math.sqrt(p1 * (1 - p1))) / edge) ** 2
    return int(math.ceil(n))


def _erfinv(y: float) -> float:
    # Newton on erf; only used for unusual power values
    x = 0.0
    for _ in range(50):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x
