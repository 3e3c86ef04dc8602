"""Sensitivity screening (`balance-sim sensitivity`): which configuration numbers move a figure most, by Morris
elementary effects or Sobol indices (SALib), every point from the same seed. The estimators need whole blocks of
points (Morris: k + 1, Sobol: k + 2), so a block with a point the game refuses is replaced before any game."""
from __future__ import annotations

import copy
import functools
import json
import math
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from SALib.analyze import sobol as sobol_analyze
from SALib.sample import morris as morris_sample, sobol as sobol_sample

from sim import effects
from sim.config import _suggest, set_value
from sim.errors import ConfigError, UserError

METHODS = ("morris", "sobol")
NOT_KNOBS = {"strategies", "report"}  # strategy presets and report settings are not rules of the game
DEFAULT_SPREAD = 0.3
DEFAULT_GAMES = 2000
MIN_GAMES = 200          # fewer games per point and a rate's noise swamps most effects
DEFAULT_BLOCKS = {"morris": 10, "sobol": 32}  # Morris: 10-20 trajectories is the usual screening size
BLOCK_WORDS = {"morris": "trajectories", "sobol": "Sobol blocks"}  # the plural name of a block of design points
MIN_BLOCKS = 4           # a bootstrap interval over fewer blocks means nothing
MAX_SOBOL_KNOBS = 12     # Sobol costs (k + 2) points a block: for a short list; Morris screens the rest
SPARE_BLOCKS = 4         # sample this many times the blocks needed, to replace blocks with refused points
MAX_SAMPLED = 40         # ... and at most this many times, however many are refused
RESAMPLES = 1000
# Sizes, bounded before anything is sampled or played (docs/sensitivity.md, "Budget and sizing"):
MAX_GAMES_PER_POINT = 5_000_000  # a point's games are played and summarised in memory, as a sweep variant's
MAX_POINTS = 20_000      # design points (blocks x points a block); SALib samples SPARE_BLOCKS times as many rows
MAX_LEVELS = 100         # Morris grid levels: 4 is usual, more than a knob has distinct values adds nothing
GAME_BLOCKS = 20         # blocks of game ids a point's games are resampled in (each costs one summary of its games)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


@dataclass(frozen=True)
class Factor:
    """One knob: a numeric key set to a value in [low, high], or a whole list (a token stack) scaled by a factor in
    [low, high]; whole numbers rounded (which keeps a scaled stack's order)."""
    key: str
    default: object          # the configuration's value: a number, or the list a factor scales
    low: float
    high: float
    integer: bool

    @property
    def scales_list(self) -> bool:
        return isinstance(self.default, list)

    def value(self, x: float):
        if self.scales_list:
            return [_round_half_up(v * x) if self.integer else round(v * x, 9) for v in self.default]
        return _round_half_up(x) if self.integer else round(float(x), 9)

    @property
    def whole_values(self) -> int:
        """How many whole values a few-valued knob takes (each played, one unit at a time); 0 for other knobs."""
        return effects.few_values(self.integer, self.scales_list, self.value(self.low), self.value(self.high))

    def played(self, x: float) -> float:
        """The knob's value as played: the number itself, or for a stack the scale its rounded tokens sum to."""
        value = self.value(x)
        if not self.scales_list:
            return float(value)
        total = sum(self.default)
        return sum(value) / total if total else float(x)

    def position(self, x: float) -> float:
        """Where the value as played lies in the knob's range: 0 at the low end, 1 at the high end."""
        low, high = self.played(self.low), self.played(self.high)
        return (self.played(x) - low) / (high - low) if high != low else 0.0

    def describe_range(self) -> str:
        if self.scales_list:
            return f"x{self.low:.3g}..x{self.high:.3g}"
        return f"{self.value(self.low):g}..{self.value(self.high):g}"


def get_value(raw: dict, key: str):
    """The value at a dotted key; list elements are numbered from 1, as in --set (tokens.diamond.1 = the top)."""
    node, parts = raw, key.split(".")
    for depth, part in enumerate(parts):
        here = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            if not part.isdigit() or not 1 <= int(part) <= len(node):
                raise ConfigError(here, part, f"expected an index from 1 to {len(node)}")
            node = node[int(part) - 1]
        elif isinstance(node, dict):
            if part not in node:
                raise ConfigError(here, None, "unknown key; " + _suggest(part, node))
            node = node[part]
        else:
            raise ConfigError(here, part, "this key holds a value, not a table")
    return node


def numeric_keys(raw, prefix: str = "") -> list[str]:
    """Every numeric key of a configuration, lists element by element (presets and report settings left out)."""
    keys = []
    items = raw.items() if isinstance(raw, dict) else ((str(i + 1), v) for i, v in enumerate(raw))
    for name, value in items:
        if not prefix and name in NOT_KNOBS:
            continue
        key = f"{prefix}{name}"
        if _is_number(value):
            keys.append(key)
        elif isinstance(value, (dict, list)):
            keys += numeric_keys(value, key + ".")
    return keys


def assign_config(base: dict, assign: dict) -> dict:
    """The base configuration with each knob set (keys checked when the knobs were made: no TOML parsing)."""
    cfg = copy.deepcopy(base)
    for key, value in assign.items():
        set_value(cfg, key, value)
    return cfg


def parse_param(text: str) -> tuple[str, tuple[float, float] | None]:
    """KEY or KEY=LO:HI (for a whole list, LO:HI is the factor it is scaled by)."""
    key, sep, rest = text.partition("=")
    key = key.strip()
    if not key:
        raise UserError(f"--param {text!r}: expected KEY or KEY=LO:HI, e.g. rules.coin_token=3:7")
    if not sep:
        return key, None
    lo, colon, hi = rest.partition(":")
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        low = high = math.nan
    if not colon or not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise UserError(f"--param {text!r}: expected KEY=LO:HI with finite numbers LO < HI, e.g. "
                        "rules.coin_token=3:7")
    return key, (low, high)


def checker(spec, players: int, base: dict):
    """`check(assign)`: None where the game accepts a set of knob values, else why not (remembered per set)."""

    @functools.cache
    def refusal(label: str) -> str | None:
        try:
            spec.validate(assign_config(base, json.loads(label)), players)
        except ConfigError as exc:
            return f"{exc.key}: {exc.allowed}"
        return None

    return lambda assign: refusal(json.dumps(assign, sort_keys=True))


def make_factor(key: str, base: dict, check, given: tuple[float, float] | None = None,
                spread: float = DEFAULT_SPREAD) -> Factor | str:
    """A knob for `key`: its given range, or +-spread narrowed to what the game accepts; or why not, a str."""
    value = get_value(base, key)
    if isinstance(value, list):
        if not value or not all(_is_number(v) for v in value):
            return f"{key}: not a list of numbers"
        integer, default_x = all(isinstance(v, int) for v in value), 1.0
        lo, hi = given or (1 - spread, 1 + spread)
    elif _is_number(value):
        integer, default_x = isinstance(value, int), value
        if given:
            lo, hi = given
        elif integer:
            step = max(1, _round_half_up(abs(value) * spread))  # symmetric; small numbers: one step either way
            lo, hi = value - step, value + step
        elif value == 0:
            return f"{key}: its default is 0, so it has no scale; give a range with --param {key}=LO:HI"
        else:
            lo, hi = sorted((value * (1 - spread), value * (1 + spread)))
    else:
        return f"{key}: not a number (got {value!r})"
    factor = Factor(key, value, lo, hi, integer)
    if given:
        return factor
    lo, hi = (_nearest_valid(end, default_x, lambda x: check({key: factor.value(x)}) is None,
                             integer and not factor.scales_list) for end in (lo, hi))
    if factor.value(lo) == factor.value(hi):
        return f"{key}: no value but the default passes the game's validation within +-{spread:.0%}"
    return Factor(key, factor.default, lo, hi, integer)


def _nearest_valid(end: float, default: float, ok, integer: bool) -> float:
    """The value nearest `end`, towards the default, that the game accepts (bisection: validity monotone)."""
    if ok(end):
        return end
    bad, good = end, default
    for _ in range(40):
        if (integer and abs(good - bad) <= 1) or abs(good - bad) <= 1e-6 * max(1.0, abs(default)):
            break
        mid = (bad + good) / 2
        mid = (math.floor(mid) if good > bad else math.ceil(mid)) if integer else mid
        if mid in (bad, good):
            break
        bad, good = (bad, mid) if ok(mid) else (mid, good)
    return good


def keep_lists_ordered(factors: list[Factor], check) -> tuple[list[Factor], list[str]]:
    """Neighbours of one list whose ranges could cross where the game refuses it split the overlap."""
    knobs = {f.key: f for f in factors}
    for f in factors:
        head, _, index = f.key.rpartition(".")
        following = f"{head}.{int(index) + 1}" if index.isdigit() else None
        if f.scales_list or following not in knobs:
            continue
        a, b = knobs[f.key], knobs[following]
        mid = (a.default + b.default) / 2
        if a.integer and b.integer:  # a shared whole bound: a >= m >= b keeps a non-strict order
            mid = _round_half_up(mid)
        if a.value(a.low) < b.value(b.high) and check({a.key: a.value(a.low), b.key: b.value(b.high)}):
            a, b = replace(a, low=max(a.low, mid)), replace(b, high=min(b.high, mid))  # must not rise above a
        if a.value(a.high) > b.value(b.low) and check({a.key: a.value(a.high), b.key: b.value(b.low)}):
            a, b = replace(a, high=min(a.high, mid)), replace(b, low=max(b.low, mid))  # must not fall below a
        knobs[a.key], knobs[b.key] = a, b
    kept = [f for f in knobs.values() if f.value(f.low) != f.value(f.high)]
    held = [f"{f.key}: held at {f.default} by its neighbours, which must stay in order (scale the whole list "
            f"with --param {f.key.rpartition('.')[0]} instead)" for f in knobs.values() if f not in kept]
    return kept, held


def make_knobs(spec, players: int, base: dict, params: list[str], spread: float = DEFAULT_SPREAD):
    """(knobs, keys left out with the reason, checker) of the --param keys, or of every numeric key."""
    check = checker(spec, players, base)
    wanted = dict(parse_param(p) for p in params) if params else {k: None for k in numeric_keys(base)}
    given, default, left_out = [], [], []
    for key, span in wanted.items():
        made = make_factor(key, base, check, span, spread)
        if isinstance(made, str):
            if params:
                raise UserError(f"--param {made}")
            left_out.append(made)
        else:
            (given if span else default).append(made)
    default, held = keep_lists_ordered(default, check)
    if held and params:
        raise UserError(f"--param {held[0]}")
    return sorted(given + default, key=lambda f: list(wanted).index(f.key)), left_out + held, check


def problem(factors: list[Factor]) -> dict:
    return {"num_vars": len(factors), "names": [f.key for f in factors],
            "bounds": [[f.low, f.high] for f in factors]}


def block_size(method: str, k: int) -> int:
    return k + 1 if method == "morris" else k + 2


def size_design(method: str, k: int, n_games: int | None, budget: int | None) -> tuple[int, int]:
    """(blocks, games per point) within the budget: with -n, as many blocks as it pays for; alone, the default
    blocks and the games left a point (never under MIN_GAMES while fewer blocks would do)."""
    size = block_size(method, k)
    blocks = DEFAULT_BLOCKS[method]
    if budget is None:
        return blocks, n_games or DEFAULT_GAMES
    if n_games:
        blocks = budget // (n_games * size)
    else:
        n_games = budget // (blocks * size)
        if n_games < MIN_GAMES:
            blocks = max(MIN_BLOCKS, budget // (MIN_GAMES * size))
            n_games = budget // (blocks * size)
    if blocks < MIN_BLOCKS or n_games < 1:
        need = MIN_BLOCKS * size * max(n_games or 1, 1)
        raise UserError(f"--budget {budget}: too small for {MIN_BLOCKS} {BLOCK_WORDS[method]} of {size} points "
                        f"({k} knobs){f' x {n_games} games' if n_games else ''}; give at least {need} games, "
                        "fewer knobs or a smaller -n")
    if blocks * size > MAX_POINTS:
        raise UserError(f"--budget {budget:,}: pays for {blocks:,} {BLOCK_WORDS[method]} of {size} points "
                        f"({blocks * size:,} design points); at most {MAX_POINTS:,} design points: give a smaller "
                        "--budget or a larger -n")
    if n_games > MAX_GAMES_PER_POINT:
        raise UserError(f"--budget {budget:,}: leaves {n_games:,} games a design point, held in memory; at most "
                        f"{MAX_GAMES_PER_POINT:,}: give a smaller --budget, or -n with it for more "
                        f"{BLOCK_WORDS[method]}")
    return blocks, n_games


@dataclass
class Design:
    method: str
    factors: list[Factor]
    X: np.ndarray            # SALib's sample, valid blocks only, in the order they are played
    levels: int
    sampled_blocks: int      # blocks looked at (kept and discarded)
    skipped: Counter = field(default_factory=Counter)  # refused design points by reason

    @property
    def size(self) -> int:
        return block_size(self.method, len(self.factors))

    @property
    def blocks(self) -> int:
        return len(self.X) // self.size

    def assignment(self, row) -> dict:
        return {f.key: f.value(x) for f, x in zip(self.factors, row)}


def build_design(factors: list[Factor], method: str, blocks: int, seed: int, check, levels: int = 4) -> Design:
    """SALib's design: its first `blocks` blocks whose every point the game accepts, resampled as needed."""
    prob, size = problem(factors), block_size(method, len(factors))
    design = Design(method, factors, np.zeros((0, len(factors))), levels, 0, Counter())
    kept = []
    for attempt in range(MAX_SAMPLED // SPARE_BLOCKS):
        if method == "morris":
            X = morris_sample.sample(prob, blocks * SPARE_BLOCKS, num_levels=levels, seed=seed + attempt)
            few = [(i, f.value(f.low), f.whole_values) for i, f in enumerate(factors) if f.whole_values]
            X = effects.align_whole_levels(X, size, few, seed + attempt)
        else:  # Sobol sequences balance best in powers of two
            X = sobol_sample.sample(prob, 2 ** math.ceil(math.log2(blocks * SPARE_BLOCKS)),
                                    calc_second_order=False, seed=seed + attempt)
        for b in range(len(X) // size):
            if len(kept) == blocks:
                break
            rows = X[b * size:(b + 1) * size]
            design.sampled_blocks += 1
            refused = [reason for reason in (check(design.assignment(row)) for row in rows) if reason]
            if refused:
                design.skipped.update(refused)
            else:
                kept.append(rows)
        if len(kept) == blocks:
            break
    design.X = np.concatenate(kept) if kept else design.X
    if design.blocks < MIN_BLOCKS:
        reason = design.skipped.most_common(1)[0][0] if design.skipped else "none sampled"
        raise UserError(f"only {design.blocks} of {design.sampled_blocks} sampled {BLOCK_WORDS[method]} have "
                        f"every point accepted by the game (need {MIN_BLOCKS}); most often refused: {reason}. "
                        "Narrow the ranges with --param KEY=LO:HI")
    return design


def analyse(design: Design, values: dict[str, np.ndarray], seed: int, noise: dict[str, float] | None = None,
            blocks: dict[str, np.ndarray] | None = None, se: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """One row per metric and knob, ranked, with 95% bootstrap intervals: Morris by sim.effects (games resampled
    through `blocks`, else the points' `se`), Sobol by SALib; a metric missing somewhere uses the blocks it has."""
    prob, size = problem(design.factors), design.size
    morris = design.method == "morris"
    # the estimate, its interval's half-width, then Morris mu and sigma, or Sobol S1 and its half-width
    keys = ("mu_star", "mu_star_conf", "mu", "sigma") if morris else ("ST", "ST_conf", "S1", "S1_conf")
    few = [f.whole_values for f in design.factors]
    rows = []
    for metric, y in values.items():
        y = np.asarray(y, dtype=float)
        whole = [b for b in range(len(y) // size) if np.isfinite(y[b * size:(b + 1) * size]).all()]
        idx = np.concatenate([np.arange(b * size, (b + 1) * size) for b in whole]) if whole else np.arange(0)
        Y = y[idx]
        status = "too few points" if len(whole) < 2 else "constant" if np.ptp(Y) == 0 else "ok"
        extra = {}
        if status != "ok":
            est = np.zeros((len(keys), len(design.factors)))
            low, high = est[0], est[0]
            level = np.zeros(len(design.factors))
            extra = {"effect_across_range": est[0], "effect_ci_low": est[0], "effect_ci_high": est[0]}
        elif morris:
            X = design.X[idx]
            position = np.array([[f.position(x) for f, x in zip(design.factors, row)] for row in X])
            found = effects.analyse_metric(
                effects.Effects(X, size, position, few), Y,
                None if blocks is None or blocks.get(metric) is None else blocks[metric][idx],
                None if se is None or se.get(metric) is None else np.asarray(se[metric], dtype=float)[idx], seed)
            point, lo, hi = found["estimate"].T, found["low"].T, found["high"].T   # (4, knobs)
            # resampled games add noise to |effect|: mu*'s interval is widened to hold the estimate
            low, high = np.clip(np.fmin(lo[0], point[0]), 0, None), np.fmax(hi[0], point[0])  # mu* >= 0
            est = [point[0], (high - low) / 2, point[1], point[2]]
            level = found["noise"]
            extra = {"effect_across_range": point[3], "effect_ci_low": lo[3], "effect_ci_high": hi[3]}
        else:
            r = sobol_analyze.analyze(prob, Y, calc_second_order=False, num_resamples=RESAMPLES, conf_level=0.95,
                                      seed=seed)
            est = [np.asarray(r[k]) for k in keys]
            low, high = np.maximum(0.0, est[0] - est[1]), est[0] + est[1]
        if morris and noise and metric in noise:
            level = np.full(len(design.factors), noise[metric])
        for i, f in enumerate(design.factors):
            score, conf, third, fourth = (float(e[i]) for e in est)
            row = {"metric": metric, "blocks": len(whole), "knob": f.key, "range": f.describe_range(), "low": f.low,
                   "high": f.high, "whole_numbers": f.integer, "scales_list": f.scales_list, keys[0]: score,
                   keys[1]: conf, f"{keys[0]}_low": float(low[i]), f"{keys[0]}_high": float(high[i]),
                   keys[2]: third, keys[3]: fourth}
            if morris:
                row.update({name: float(v[i]) for name, v in extra.items()})
                row["values_played"] = f.whole_values or None
                row["noise"] = float(level[i])
            rows.append({**row, "status": status})
    table = pd.DataFrame(rows)
    if len(table):
        table["rank"] = table.groupby("metric")[keys[0]].rank(ascending=False, method="min").astype(int)
        table = table.sort_values(["metric", "rank", "knob"], kind="stable").reset_index(drop=True)
    return table


def noise_level(se: float, levels: int) -> float:
    """mu* that noise alone gives a knob with no effect, its two points independent: 2 se / (sqrt(pi) delta),
    delta Morris's step on the unit scale (common random numbers push a real knob's noise below this)."""
    delta = levels / (2 * (levels - 1))
    return 2 * se / (math.sqrt(math.pi) * delta)


def metric_names(summary: dict) -> list[str]:
    return [k for k, v in summary.items() if isinstance(v, dict) and "estimate" in v]


DEFAULT_FAMILIES = ("win_rate[", "decisive_rate[")  # per strategy and per source of a decisive edge


def default_metrics(summary: dict) -> list[str]:
    """Every plain headline figure of the summary, and the per-strategy and per-source families."""
    return [m for m in metric_names(summary) if "[" not in m or m.startswith(DEFAULT_FAMILIES)]


def resolve_metric(name: str, summary: dict) -> str | None:
    """A figure of the summary; `family.member` also names `family[member]` (decisive_rate.coin_token)."""
    names, (family, dot, member) = metric_names(summary), name.partition(".")
    return name if name in names else f"{family}[{member}]" if dot and f"{family}[{member}]" in names else None
