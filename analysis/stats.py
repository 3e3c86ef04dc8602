"""Intervals and tests every report uses. Vectorised; no per-row Python."""
from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np

Z95 = 1.959963984540054
# Per thread (and per asyncio task), not per process: with `--backend threading` several batches are summarised
# at once in one process, and one batch leaving the block must not switch it off for another still inside.
_AGGREGATING = contextvars.ContextVar("balance_sim_aggregating", default=False)


@contextlib.contextmanager
def aggregating():
    """Within this block rate() and mean() also carry their sufficient statistics (`_kind`, `_s`, `_ss`, `_n`),
    so --summary-only can merge batches' summaries exactly (analysis.summary)."""
    token = _AGGREGATING.set(True)
    try:
        yield
    finally:
        _AGGREGATING.reset(token)


def is_aggregating() -> bool:
    """True inside `aggregating()` (in this thread): summaries must stay mergeable sums."""
    return _AGGREGATING.get()


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
        out = {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    else:
        lo, hi = wilson(successes, n)
        out = {"estimate": float(successes) / n, "ci_low": float(lo), "ci_high": float(hi), "n": n}
    if _AGGREGATING.get():
        out.update(_kind="rate", _s=float(successes), _ss=0.0, _n=n)
    return out


def mean(values) -> dict:
    """A mean with a 95% normal interval (t is indistinguishable at the sample sizes we run)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n == 0:
        out = {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    else:
        m = float(values.mean())
        se = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        out = {"estimate": m, "ci_low": m - Z95 * se, "ci_high": m + Z95 * se, "n": int(n)}
    if _AGGREGATING.get():
        out.update(_kind="mean", _s=float(values.sum()), _ss=float((values * values).sum()), _n=int(n))
    return out


def binomial_test_half(successes, n) -> float:
    """Two-sided p-value that a rate differs from 1/2 (normal approximation with continuity correction)."""
    if n == 0:
        return float("nan")
    z = (abs(successes - n / 2) - 0.5) / math.sqrt(n / 4)
    return float(math.erfc(max(z, 0.0) / math.sqrt(2)))


def binomial_test(k: int, n: int, p: float) -> float:
    """Two-sided exact binomial test: scipy.stats.binomtest(k, n, p).pvalue to the bit (its tail search and Boost
    functions), without importing scipy.stats (about 1 CPU-s of a report for one p-value)."""
    k, n = int(k), int(n)
    if n < 1 or not 0 <= k <= n or not 0 <= p <= 1:
        raise ValueError(f"binomial test: need 0 <= k <= n, n >= 1 and 0 <= p <= 1 (k={k}, n={n}, p={p})")
    try:
        from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_sf
    except ImportError:  # a SciPy that keeps them in scipy.stats: its own test, the same value
        from scipy.stats import binomtest
        return float(binomtest(k, n, p).pvalue)

    def pmf(x):
        return np.clip(_binom_pmf(x, n, p), 0, 1) if 0 <= x <= n else 0.0

    def cdf(x):
        return 0.0 if x < 0 else 1.0 if x >= n else np.clip(_binom_cdf(np.floor(x), n, p), 0, 1)

    def sf(x):
        return 1.0 if x < 0 else 0.0 if x >= n else np.clip(_binom_sf(np.floor(x), n, p), 0, 1)

    def search(a, d, lo, hi):  # scipy's _binary_search_for_binom_tst: i in [lo, hi] with a(i) <= d < a(i + 1)
        while lo < hi:
            mid = lo + (hi - lo) // 2
            value = a(mid)
            if value < d:
                lo = mid + 1
            elif value > d:
                hi = mid - 1
            else:
                return mid
        return lo if a(lo) <= d else lo - 1

    d = pmf(k)
    rerr = 1 + 1e-7
    if k == p * n:
        return 1.0
    if k < p * n:
        ix = search(lambda x: -pmf(x), -d * rerr, np.ceil(p * n), n)
        y = n - ix + int(d * rerr == pmf(ix))
        pval = cdf(k) + sf(n - y)
    else:
        ix = search(pmf, d * rerr, 0, np.floor(p * n))
        pval = cdf(ix) + sf(k - 1)
    return float(min(1.0, pval))


def games_to_detect(edge: float = 0.01, p0: float = 0.5, power: float = 0.8, z_alpha: float = Z95) -> int:
    """Games needed to tell a rate of p0 + edge from p0 (two-sided 5% test, 80% power)."""
    from scipy.special import ndtri  # here: `bench` imports this module and never asks
    z_beta = float(ndtri(power))
    p1 = p0 + edge
    n = ((z_alpha * math.sqrt(p0 * (1 - p0)) + z_beta * math.sqrt(p1 * (1 - p1))) / edge) ** 2
    return int(math.ceil(n))


# ---- error control: which seats, which families (analysis.conclusions) ---------------------------------------
MODEL = "model"  # a figure's `population` when a model, not a count of games, gives it (analysis.edges)


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given; NaN stays NaN (and counts as not rejected). The step-down of
    statsmodels' multipletests(method="holm"), to the bit (tests/test_conclusions.py checks it): that function
    runs a full garbage collection on every call (about half a CPU-second in a loaded process)."""
    known = [i for i, p in enumerate(pvalues) if p == p]
    out = [float("nan")] * len(pvalues)
    m = len(known)
    running = 0.0
    for rank, i in enumerate(sorted(known, key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def p_fair(m: dict, fair: float) -> float:
    """Two-sided p-value that one seat's rate (a summary metric) is `fair`: the exact binomial test for a rate over
    games, a Wald test on the log-odds scale (its standard error read off its interval) for a model estimate."""
    if m.get("population") == MODEL:
        from scipy.special import logit, ndtr  # not scipy.stats: importing it costs about 1 CPU-s
        se = (logit(m["ci_high"]) - logit(m["ci_low"])) / (2 * Z95)
        return float(2 * ndtr(-abs(logit(m["estimate"]) - logit(fair)) / se)) if se > 0 else float("nan")
    n = int(m.get("n") or 0)
    return binomial_test(round(m["estimate"] * n), n, fair) if n else float("nan")


def fair_shares_p(family: list[dict], fair: float) -> tuple[float, str]:
    """One p-value for "every seat of `family` (metrics, one a seat) wins its fair share", and the test's name:
    one seat, its own test (`p_fair`); several, counted on the same games, a chi-square goodness of fit on their
    wins (scipy); model estimates (no counts), Holm's smallest adjusted p of the seats' own tests."""
    if len(family) == 1:
        model = family[0].get("population") == MODEL
        return p_fair(family[0], fair), "Wald test on the model" if model else "binomial test against 50%"
    ns = {int(m.get("n") or 0) for m in family}
    if all(m.get("population") != MODEL for m in family) and len(ns) == 1 and min(ns) > 0:
        from scipy.stats import chisquare  # deferred: importing scipy.stats costs about 1 CPU-s
        wins = [m["estimate"] * m["n"] for m in family]
        total = sum(wins)
        if total <= 0:
            return float("nan"), "chi-square across seats"
        return float(chisquare(wins, [total * fair] * len(wins)).pvalue), "chi-square across seats"
    adjusted = holm([p_fair(m, fair) for m in family])
    return min((p for p in adjusted if p == p), default=float("nan")), "Holm over the seats' own tests"


def same_shares_p(a: list[dict], b: list[dict]) -> float:
    """Two-sided p-value that two populations' seats (metrics, one a seat, the same seats in the same order) win
    the same shares: a chi-square test of homogeneity on their wins (scipy), a z test on the difference for one
    seat (each a rate of its own games, or a model's: independent estimates, the margin read off each interval)."""
    if len(a) == 1 or any(m.get("population") == MODEL for m in (*a, *b)):
        x, y = a[0], b[0]
        se = math.hypot((x["ci_high"] - x["ci_low"]) / (2 * Z95), (y["ci_high"] - y["ci_low"]) / (2 * Z95))
        if not se > 0:
            return float("nan")
        return float(math.erfc(abs(x["estimate"] - y["estimate"]) / se / math.sqrt(2)))
    from scipy.stats import chi2_contingency  # deferred: importing scipy.stats costs about 1 CPU-s
    table = np.array([[m["estimate"] * m["n"] for m in a], [m["estimate"] * m["n"] for m in b]])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table.sum(axis=1) <= 0).any():
        return float("nan")
    return float(chi2_contingency(table, correction=False).pvalue)
