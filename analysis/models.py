"""Models behind the figures raw rates get wrong: `fit_luce` (a game's winner as a Luce choice among its seats,
strategy plus position terms, games grouped by lineup, a weak prior keeping an all-or-nothing record finite) and
`nash_mix`, the symmetric equilibrium of the matchup matrix."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, gammainccinv, gammaincinv

from analysis import stats

ELO = 400 / np.log(10)        # Elo points per unit of log-odds
PRIOR_SD_ELO = 1000.0         # weak prior: a strategy's strength is N(0, 1000 Elo); data swamp it within dozens of games
MIN_MODEL_GAMES = 100         # below this many decided games a model figure is "too few games" (analysis.edges)
PRIOR_SD_POSITION = 10.0      # positions are always identified; the prior only keeps the algebra well posed


@dataclass
class LuceFit:
    beta: np.ndarray          # strategy terms (log scale) then position terms (position 0 is the reference)
    cov: np.ndarray           # posterior covariance (inverse of the negative Hessian incl. the prior)
    info: np.ndarray          # data information per strategy (diagonal of the negative data Hessian)
    names: list               # strategy names, in beta's order
    positions: int            # number of positions (their terms: beta[len(names):], position 0 fixed at 0)
    games: np.ndarray         # decided games each strategy took part in (mirror games count once)
    design: np.ndarray | None = None   # per lineup row, seat and term: the model's design (grouped games)
    wins: np.ndarray | None = None     # per lineup row and seat: summed win shares


def unique_rows(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(key, axis=0, return_inverse=True), the same order: small codes packed into one integer per row
    first (mixed radix), as sorting a million integers is several times quicker than a million rows."""
    radix = key.max(axis=0) + 1 if key.size else None
    if radix is None or key.min() < 0 or np.prod(radix.astype(float)) >= 2.0 ** 62:
        rows, inverse = np.unique(key, axis=0, return_inverse=True)
        return rows, inverse.ravel()
    packed = key[:, 0].copy()
    for column in range(1, key.shape[1]):
        packed *= radix[column]
        packed += key[:, column]
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    return key[first], inverse.ravel()


def group_lineups(strategy: np.ndarray, position: np.ndarray, win_share: np.ndarray, weights=None):
    """Games with the same (strategy, position) per seat share one row: counts and summed win shares.
    With `weights`, each input row already stands for that many games and win_share holds their sums."""
    key = np.concatenate([strategy, position], axis=1).astype(np.int64)
    rows, inverse = unique_rows(key)
    counts = np.bincount(inverse, weights=weights, minlength=len(rows)).astype(float)
    wins = np.stack([np.bincount(inverse, weights=win_share[:, s], minlength=len(rows))
                     for s in range(win_share.shape[1])], axis=1)
    p = strategy.shape[1]
    return rows[:, :p], rows[:, p:], counts, wins


def fit_luce(strategy: np.ndarray, win_share: np.ndarray, names, position: np.ndarray | None = None,
             positions: int | None = None, weights=None) -> LuceFit:
    """Maximum a posteriori Luce model from (games, seats) arrays: strategy codes into `names`, win shares (rows
    summing to 1), positions (default: the seat); position terms only when `positions` > 1."""
    strategy = np.asarray(strategy, dtype=np.int64)
    n_games, p = strategy.shape
    position = np.tile(np.arange(p), (n_games, 1)) if position is None else np.asarray(position, dtype=np.int64)
    positions = positions or 1
    k, q = len(names), max(positions - 1, 0)
    s_rows, pos_rows, counts, wins = group_lineups(strategy, position if q else np.zeros_like(strategy),
                                                   np.asarray(win_share, dtype=float), weights)
    # design: (configs, seats, terms)
    X = np.zeros((len(counts), p, k + q))
    for seat in range(p):
        X[np.arange(len(counts)), seat, s_rows[:, seat]] += 1.0
        if q:
            has = pos_rows[:, seat] > 0
            X[np.nonzero(has)[0], seat, k + pos_rows[has, seat] - 1] = 1.0
    m = wins.sum(axis=1)
    prior = np.concatenate([np.full(k, (ELO / PRIOR_SD_ELO) ** 2), np.full(q, PRIOR_SD_POSITION ** -2)])

    def objective(beta):
        eta = X @ beta
        eta -= eta.max(axis=1, keepdims=True)
        logz = np.log(np.exp(eta).sum(axis=1))
        return float((wins * eta).sum() - (m * logz).sum() - 0.5 * (prior * beta * beta).sum())

    def derivatives(beta):
        pr = _softmax_rows(X, beta)
        grad = np.einsum("cst,cs->t", X, wins - m[:, None] * pr) - prior * beta
        xbar = np.einsum("cst,cs->ct", X, pr)
        second = np.einsum("c,cs,cst,csu->tu", m, pr, X, X) - np.einsum("c,ct,cu->tu", m, xbar, xbar)
        return grad, second  # second: the negative data Hessian

    beta = np.zeros(k + q)
    value = objective(beta)
    for _ in range(200):  # Newton with step halving: the objective is concave
        grad, data_info = derivatives(beta)
        step = np.linalg.solve(data_info + np.diag(prior), grad)
        t = 1.0
        while t > 1e-6:
            new = beta + t * step
            new_value = objective(new)
            if new_value >= value - 1e-12:
                break
            t /= 2
        beta, done = new, abs(new_value - value) < 1e-10 and np.abs(t * step).max() < 1e-8
        value = new_value
        if done:
            break
    _, data_info = derivatives(beta)
    cov = np.linalg.inv(data_info + np.diag(prior))
    played = np.zeros(k)
    for seat_codes, n in zip(s_rows, counts):
        played[np.unique(seat_codes)] += n
    return LuceFit(beta, cov, np.diag(data_info)[:k].copy(), list(names), positions, played, X, wins)


BOUND_LEVEL = 0.05   # a one-sided bound: the strength at which the data's all-or-nothing record has this chance
RARE_RECORD = 20     # fewer wins (or losses) than this against the others: the interval counts them exactly
RARE_SHARE = 0.1     # ... when they are at most this share of its games (rare outcomes: Poisson counts)


def strengths(fit: LuceFit) -> pd.DataFrame:
    """Elo strengths with 95% intervals, 0 the information-weighted average strategy; an all-or-nothing record gets
    its one-sided data bound (`bound`), a few wins or losses an exact count interval (the normal one is too tight)."""
    k = len(fit.names)
    w = fit.info / fit.info.sum() if fit.info.sum() > 0 else np.full(k, 1 / k)
    anchor = np.eye(k) - np.outer(np.ones(k), w)
    elo = anchor @ fit.beta[:k] * ELO
    se = np.sqrt(np.clip(np.diag(anchor @ fit.cov[:k, :k] @ anchor.T), 0, None)) * ELO
    table = pd.DataFrame({"elo": elo, "ci_low": elo - stats.Z95 * se, "ci_high": elo + stats.Z95 * se,
                          "n": fit.games.astype(int), "bound": None},
                         index=pd.Index(fit.names, name="strategy"))

    def anchored(s, b):  # the same anchor, with s's term at b
        return (b - w @ fit.beta[:k] + w[s] * (fit.beta[s] - b)) * ELO

    for s, name in enumerate(fit.names):
        side = unbounded_side(fit, s)
        if side is not None:
            value = anchored(s, strength_bound(fit, s, side))
            table.loc[name, ["elo", "ci_low" if side == "upper" else "ci_high", "bound"]] = [value, np.nan, side]
            table.loc[name, "ci_high" if side == "upper" else "ci_low"] = value
            continue
        rare = rare_record_interval(fit, s)
        if rare is not None:
            table.loc[name, ["elo", "ci_low", "ci_high"]] = [anchored(s, b) for b in rare]
    return table.sort_values("elo", ascending=False)


def _softmax_rows(X: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Each lineup row's chance per seat of winning, from the design and the terms."""
    eta = X @ beta
    eta -= eta.max(axis=1, keepdims=True)
    pr = np.exp(eta)
    return pr / pr.sum(axis=1, keepdims=True)


def _mixed_rows(fit: LuceFit, s: int):
    """Lineup rows where strategy s meets another strategy: (rows, seats of s per row as a mask)."""
    k = len(fit.names)
    mine = fit.design[:, :, s] > 0
    others = (fit.design[:, :, :k] > 0).any(axis=2) & ~mine
    rows = mine.any(axis=1) & others.any(axis=1)
    return rows, mine


def _record(fit: LuceFit, s: int) -> tuple[float, float]:
    """(s's summed win shares, games) in its lineups with other strategies."""
    rows, mine = _mixed_rows(fit, s)
    return float((fit.wins[rows] * mine[rows]).sum()), float(fit.wins[rows].sum())


def _win_chances(fit: LuceFit, s: int):
    """A function of b: per mixed lineup row, the chance that one of s's seats wins with s's term at b and the
    others' terms at their fitted values (fixed by their own games); and the rows' game counts."""
    rows, mine = _mixed_rows(fit, s)
    X, m, mine = fit.design[rows], fit.wins[rows].sum(axis=1), mine[rows]

    def chance(b):
        beta = fit.beta.copy()
        beta[s] = b
        return np.clip((_softmax_rows(X, beta) * mine).sum(axis=1), 1e-300, 1 - 1e-16)
    return chance, m


def _solve_increasing(f, target: float) -> float:
    """The log-strength b at which f(b), increasing in b, reaches target (bisection)."""
    lo, hi = -60.0, 60.0  # log-strength: +-26,000 Elo, far beyond any record
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return (lo + hi) / 2


def unbounded_side(fit: LuceFit, s: int) -> str | None:
    """"upper" when strategy s won nothing against other strategies (its strength has only an upper bound),
    "lower" when it won every such game, else None."""
    if fit.design is None:
        return None
    rows, _ = _mixed_rows(fit, s)
    if not rows.any():
        return None
    won, total = _record(fit, s)
    return "upper" if won == 0 else "lower" if won == total else None


def strength_bound(fit: LuceFit, s: int, side: str) -> float:
    """The log-strength of s at which its all-or-nothing record has probability BOUND_LEVEL, the others' terms
    held at their fits: an upper bound when it never won, a lower one when it always did."""
    chance, m = _win_chances(fit, s)
    if side == "upper":  # the chance of no win falls as b rises
        return _solve_increasing(lambda b: -float((m * np.log1p(-chance(b))).sum()), -np.log(BOUND_LEVEL))
    return _solve_increasing(lambda b: float((m * np.log(chance(b))).sum()), np.log(BOUND_LEVEL))


def rare_record_interval(fit: LuceFit, s: int) -> tuple[float, float, float] | None:
    """(estimate, low, high) log-strength of a strategy with few wins or losses against the others, else None: from
    the count's exact Poisson (Garwood) 95% interval, the others' terms fixed (a little conservative)."""
    if fit.design is None or not _mixed_rows(fit, s)[0].any():
        return None
    won, total = _record(fit, s)
    lost = total - won
    rare = min(won, lost)
    if rare <= 0 or rare >= RARE_RECORD or rare > RARE_SHARE * total:
        return None
    chance, m = _win_chances(fit, s)
    count = (lambda b: float((m * chance(b)).sum())) if won <= lost else \
        (lambda b: -float((m * (1 - chance(b))).sum()))  # losses fall as b rises: negated, to rise
    sign = 1.0 if won <= lost else -1.0
    alpha = (1 - 0.95) / 2
    means = sign * np.array([rare, gammaincinv(rare, alpha), gammainccinv(rare + 1, alpha)])
    est, a, b = (_solve_increasing(count, t) for t in means)
    return est, min(a, b), max(a, b)


def strength_metrics(table: pd.DataFrame) -> dict:
    """summary.json entries `strength[<strategy>]` (Elo); a strength the data bound on one side only carries
    `bound` ("upper": it is below `estimate`; "lower": above), and null for the interval's other end."""
    out = {}
    for name, r in table.iterrows():
        m = {"estimate": float(r.elo), "ci_low": None if pd.isna(r.ci_low) else float(r.ci_low),
             "ci_high": None if pd.isna(r.ci_high) else float(r.ci_high), "n": int(r.n)}
        if r.get("bound") in ("upper", "lower"):
            m["bound"] = r.bound
        out[f"strength[{name}]"] = m
    return out


def position_rates(fit: LuceFit, draws: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Win rate of each position when every seat plays equally well: softmax of the position terms, with 95%
    intervals from the terms' normal posterior (two positions: exactly expit of the term's interval)."""
    k, q = len(fit.names), fit.positions - 1
    delta = np.concatenate([[0.0], fit.beta[k:k + q]])
    cov = fit.cov[k:k + q, k:k + q]
    est = np.exp(delta - delta.max())
    est /= est.sum()
    if q == 1:
        se = float(np.sqrt(cov[0, 0]))
        lo, hi = expit(np.array([-delta[1] - stats.Z95 * se, -delta[1] + stats.Z95 * se]))  # position 0 vs 1
        low, high = np.array([lo, 1 - hi]), np.array([hi, 1 - lo])
    else:
        rng = np.random.default_rng(seed)
        sample = rng.multivariate_normal(delta[1:], cov, size=draws)
        sample = np.concatenate([np.zeros((draws, 1)), sample], axis=1)
        sample = np.exp(sample - sample.max(axis=1, keepdims=True))
        sample /= sample.sum(axis=1, keepdims=True)
        low, high = np.percentile(sample, [2.5, 97.5], axis=0)
    return pd.DataFrame({"rate": est, "ci_low": low, "ci_high": high}, index=pd.RangeIndex(fit.positions,
                                                                                         name="position"))


def cells(strategy, position, win_share, names) -> list:
    """A model estimate's sufficient statistics, as JSON: one [strategy names..., positions..., games,
    win sums...] row per lineup. Batches' cells concatenate (--summary-only)."""
    s_rows, pos_rows, counts, wins = group_lineups(strategy, position, win_share)
    return [[names[c] for c in s] + [int(x) for x in ps] + [float(n)] + [float(x) for x in w]
            for s, ps, n, w in zip(s_rows, pos_rows, counts, wins)]


def rate_from_cells(rows: list, position: int, positions: int) -> dict:
    """The equal-skill rate of `position` from merged `cells`."""
    p = (len(rows[0]) - 1) // 3
    names = sorted({r[s] for r in rows for s in range(p)})
    code = {n: i for i, n in enumerate(names)}
    strategy = np.array([[code[r[s]] for s in range(p)] for r in rows])
    pos = np.array([r[p:2 * p] for r in rows], dtype=np.int64)
    counts = np.array([r[2 * p] for r in rows], dtype=float)
    wins = np.array([r[2 * p + 1:] for r in rows], dtype=float)
    fit = fit_luce(strategy, wins, names, pos, positions, weights=counts)
    return model_rate(position_rates(fit), position, int(counts.sum()))


def model_rate(table: pd.DataFrame, position: int, n: int) -> dict:
    """One row of `position_rates` as a summary.json metric, marked as the model's estimate."""
    r = table.loc[position]
    out = {"estimate": float(r.rate), "ci_low": float(r.ci_low), "ci_high": float(r.ci_high), "n": int(n),
           "population": "model"}
    if n < MIN_MODEL_GAMES:  # a fit to a handful of games is mostly its prior: flagged, never plotted
        out["too_few_games"] = True
    return out


# ---- the meta-game ----
def nash_mix(payoff: np.ndarray) -> np.ndarray:
    """A symmetric equilibrium mix of a symmetric zero-sum game (payoff[i, j] = -payoff[j, i]): maximise v
    subject to x' payoff >= v for every column, x a distribution (linear program, HiGHS)."""
    a = np.asarray(payoff, dtype=float)
    k = a.shape[0]
    # A strategy beating every other one is the unique equilibrium, the e_i HiGHS returns too (tests/test_models.py):
    # answered without the program's millisecond a call (401 calls a report). A weakly dominant one may tie.
    beats = (a > 0) | np.eye(k, dtype=bool)
    dominant = np.flatnonzero(beats.all(axis=1))
    if len(dominant):
        x = np.zeros(k)
        x[dominant[0]] = 1.0
        return x
    return _nash_lp(a)


def _nash_lp(a: np.ndarray) -> np.ndarray:
    """nash_mix by the linear program, whatever the game."""
    from scipy.optimize import linprog  # here: a report whose meta-game has a dominant strategy never imports it
    k = a.shape[0]
    # variables x_1..x_k, v; minimise -v; constraints v - x' a[:, j] <= 0
    c = np.concatenate([np.zeros(k), [-1.0]])
    a_ub = np.concatenate([-a.T, np.ones((k, 1))], axis=1)
    a_eq = np.concatenate([np.ones((1, k)), [[0.0]]], axis=1)
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if not res.success:
        raise RuntimeError(f"Nash linear program failed: {res.message}")
    x = np.clip(res.x[:k], 0, None)
    return x / x.sum()


def equilibrium_ranges(payoff: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Each strategy's least and most weight over the set of symmetric equilibria {x: x' payoff >= 0} (the
    game's value is 0): two linear programs a strategy (HiGHS); equal ends everywhere: unique."""
    from scipy.optimize import linprog  # deferred like _nash_lp's
    a = np.asarray(payoff, dtype=float)
    k = a.shape[0]
    low, high = np.zeros(k), np.ones(k)
    for i in range(k):
        for sign, out in ((1.0, low), (-1.0, high)):
            c = np.zeros(k)
            c[i] = sign
            res = linprog(c, A_ub=-a.T, b_ub=np.full(k, tol), A_eq=np.ones((1, k)), b_eq=[1.0],
                          bounds=[(0, None)] * k, method="highs")
            if not res.success:
                raise RuntimeError(f"equilibrium range linear program failed: {res.message}")
            out[i] = float(np.clip(res.x[i], 0, 1))
    return low, high


UNIQUE_TOLERANCE = 1e-6  # weights a range narrower than this apart are one weight


def unmeasured_pairs(games: pd.DataFrame) -> list[tuple[str, str]]:
    """Pairs of different strategies that never met: their cell of the meta-game is unknown."""
    names = list(games.index)
    n = games.reindex(index=names, columns=names).fillna(0).to_numpy(dtype=float)
    return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))
            if n[i, j] + n[j, i] == 0]


def nash_table(wins: pd.DataFrame, games: pd.DataFrame, reps: int = 400, seed: int = 0) -> pd.DataFrame:
    """Equilibrium weights from head-to-head records (wins[i, j] in games[i, j] meetings) with 95% bootstrap
    intervals and each weight's range over the equilibrium set; every pair must have met (`unmeasured_pairs`)."""
    names = list(wins.index)
    missing = unmeasured_pairs(games)
    if missing:
        raise ValueError(f"the meta-game needs every pair to have met; never met: {missing}")
    w = wins.reindex(index=names, columns=names).fillna(0).to_numpy(dtype=float)
    n = games.reindex(index=names, columns=names).fillna(0).to_numpy(dtype=float)

    def payoff(win_matrix):
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(n > 0, win_matrix / n, 0.5)  # only the diagonal (mirrors) is unmeasured here
        a = rate - 0.5
        a = (a - a.T) / 2  # exactly zero-sum (the two orientations of a cell are the same games)
        np.fill_diagonal(a, 0.0)
        return a

    a = payoff(w)
    est = nash_mix(a)
    low_eq, high_eq = equilibrium_ranges(a)
    rng = np.random.default_rng(seed)
    upper = np.triu_indices(len(names), 1)
    sample = np.empty((reps, len(names)))
    for r in range(reps):
        sim = np.zeros_like(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(n[upper] > 0, w[upper] / n[upper], 0.5)
        sim[upper] = rng.binomial(n[upper].astype(np.int64), np.clip(rate, 0, 1))
        sim[upper[1], upper[0]] = n[upper] - sim[upper]
        sample[r] = nash_mix(payoff(sim))
    low, high = np.percentile(sample, [2.5, 97.5], axis=0)
    if (high_eq - low_eq).max() <= UNIQUE_TOLERANCE:  # unique: the solver's answer, as exact as before
        low_eq, high_eq = est.copy(), est.copy()
    return pd.DataFrame({"weight": est, "ci_low": np.minimum.reduce([low, est, low_eq]),
                         "ci_high": np.maximum.reduce([high, est, high_eq]), "range_low": low_eq,
                         "range_high": high_eq},
                        index=pd.Index(names, name="strategy")).sort_values("weight", ascending=False)


def nash_unique(table: pd.DataFrame) -> bool:
    return bool(((table["range_high"] - table["range_low"]) <= UNIQUE_TOLERANCE).all())


def nash_metrics(table: pd.DataFrame, n: int) -> dict:
    """`nash_weight[<strategy>]` (the mix the solver picks, a 95% interval that also spans the equilibrium set,
    and the set's own range `range_low`..`range_high`) and `nash_unique`."""
    out = {f"nash_weight[{name}]": {"estimate": float(r.weight), "ci_low": float(r.ci_low),
                                    "ci_high": float(r.ci_high), "n": int(n), "range_low": float(r.range_low),
                                    "range_high": float(r.range_high)} for name, r in table.iterrows()}
    out["nash_unique"] = nash_unique(table)
    return out


TOSS_UP_SPAN = 0.5  # an equilibrium weight whose 95% interval spans half of 0-100% or more: a toss-up


def nash_reading(table: pd.DataFrame, players: int, unique: bool = True, toss_up: str = "") -> str:
    """The meta-game's reading of the mix over every strategy; `toss_up`: the sentence of a toss-up when the caller
    has one (analysis.conclusions.field_toss_up: the rival and their head-to-head record)."""
    pairwise = "" if players == 2 else (f" With {players} players the game is reduced to head-to-head records "
                                        "(who finishes ahead of whom in the same game).")
    if not unique:  # a whole set of equilibria: each strategy's weight is a range, not a number
        spans = [f"{n} {r.range_low:.0%}-{r.range_high:.0%}" for n, r in table.iterrows() if r.range_high >= 0.01]
        never = [n for n, r in table.iterrows() if r.range_high < 0.01]
        return ("The equilibrium is not unique: every mix in a whole set is one, and over that set the weights "
                f"range as follows: {', '.join(spans)}." + (f" Never in any: {', '.join(never)}." if never else "")
                + pairwise)
    survive = table[table["weight"] >= 0.01]
    names = list(survive.index)
    top = table.iloc[0]
    if top.ci_high - top.ci_low >= TOSS_UP_SPAN and toss_up:
        return toss_up + pairwise
    if top.ci_high - top.ci_low >= TOSS_UP_SPAN:  # the bootstrap moves the mix around: no firm reading
        return (f"These games do not fix the equilibrium mix: at the estimate {table.index[0]} takes "
                f"{top.weight:.0%}, but its 95% bootstrap interval runs {top.ci_low:.0%}-{top.ci_high:.0%}, so "
                f"another sample of games could hand the mix to another strategy.{pairwise}")
    if len(names) == 1:
        return (f"Over every strategy of the run, {names[0]} is the only one in the equilibrium mix at its "
                f"estimate: against every other it does at least as well, so a player who knew the field would "
                f"play it (the interval in the table says how firmly the games fix that).{pairwise}")
    parts = ", ".join(f"{n} {r.weight:.0%}" for n, r in survive.iterrows())
    out = [n for n in table.index if n not in names]
    return (f"The equilibrium mix keeps {len(names)} strategies ({parts}): none beats every other, so the field "
            f"has real choices." + (f" Dropped: {', '.join(out)} (never worth playing against this field)."
                                     if out else "") + pairwise)
