"""Variants of a configuration, as `sweep` and `tune` play them: targets, ranges, the grid, a variant's config and
meta, the staging folder. All from the same root seed: differences are the parameter's effect, not noise."""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from sim import results
from sim.config import build, parse_value, set_value
from sim.errors import UserError, stopped_part_way
from sim.inputs import read_regular
from sim.lock import exclusive
from sim.report_folder import check_summary
from sim.meta import MAX_META_BYTES


MAX_VALUES = 10_000  # values one --param may take (--range or --values): larger grids are refused before any work
MAX_VARIANTS = 1_000  # variants (grid cells) a sweep plays; tune samples at most --max-candidates of any grid
MAX_IN_MEMORY_GAMES = 5_000_000  # games of one variant or candidate held in memory (about 330 bytes each)


@dataclass(frozen=True)
class Target:
    metric: str
    low: float
    high: float

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    def distance(self, value: float | None) -> float:
        """0 inside the band, else how far outside it, in units of the band's half-width (or 1% if zero)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return math.inf
        scale = max((self.high - self.low) / 2, 0.01 * max(abs(self.centre), 1e-9), 1e-9)
        return max(0.0, self.low - value, value - self.high) / scale

    def verdict(self, m: dict) -> str:
        """meets: the whole 95% interval is inside the band; plausible: the estimate is; misses otherwise."""
        est, lo, hi = m.get("estimate"), m.get("ci_low"), m.get("ci_high")
        if est is None:
            return "misses"
        if lo is not None and hi is not None and self.low <= lo and hi <= self.high:
            return "meets"
        return "plausible" if self.low <= est <= self.high else "misses"

    def describe(self) -> str:
        return f"{self.metric} in [{self.low:g}, {self.high:g}]"


TARGET_FORMS = ("METRIC=VALUE[:TOLERANCE] (finite numbers, TOLERANCE at least 0) or METRIC=LOW..HIGH (finite, "
                "LOW <= HIGH), e.g. first_player_match_win_rate=0.5:0.01 or turns_per_round=25..35")


def parse_target(text: str) -> Target:
    """METRIC=VALUE[:TOLERANCE] or METRIC=LOW..HIGH (finite; a band either way round is one nobody asked for)."""
    metric, sep, rest = text.partition("=")
    if not sep or not metric.strip():
        raise UserError(f"--target {text!r}: expected {TARGET_FORMS}")
    try:
        if ".." in rest:
            lo, hi = (float(x) for x in rest.split(".."))
            ok = math.isfinite(lo) and math.isfinite(hi) and lo <= hi
        else:
            value, _, tol = rest.partition(":")
            v, t = float(value), float(tol or 0)
            ok = math.isfinite(v) and math.isfinite(t) and t >= 0
            lo, hi = v - t, v + t
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"--target {text!r}: expected {TARGET_FORMS}")
    return Target(metric.strip(), lo, hi)





def parse_range(text: str) -> list:
    """START:STOP:STEP, inclusive of STOP when the steps land on it (3:9:1 -> 3, ..., 9), at most MAX_VALUES."""
    parts = text.split(":")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        nums = []
    if (len(nums) not in (2, 3) or not all(math.isfinite(n) for n in nums) or (len(nums) == 3 and nums[2] <= 0)
            or nums[1] < nums[0]):
        raise UserError(f"--range {text!r}: expected START:STOP[:STEP], finite numbers with START <= STOP and "
                        "STEP > 0, e.g. 3:9:1")
    step = nums[2] if len(nums) == 3 else 1.0
    span = (nums[1] - nums[0]) / step  # in floats, as the values are made
    count = (int(math.floor(span + 1e-9)) + 1 if math.isfinite(span) else  # overflowed: counted exactly instead
             math.floor((Fraction(nums[1]) - Fraction(nums[0])) / Fraction(step)) + 1)
    if count > MAX_VALUES:
        size = f"{count:,}" if count < 10**15 else f"about 10^{len(str(count)) - 1}"
        raise UserError(f"--range {text!r}: {size} values; at most {MAX_VALUES:,} per parameter")
    values = [nums[0] + i * step for i in range(count)]
    integral = all(float(p).is_integer() for p in nums)
    return [int(round(v)) if integral else round(v, 10) for v in values]


def variant_label(assign: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in assign.items())


def variant_config(package: str, config_file, sets, assign: dict) -> dict:
    cfg = build(package, config_file, tuple(sets))
    for key, value in assign.items():
        cfg = set_value(cfg, key, value)
    return cfg


def check_values(params: list[tuple[str, list]]) -> None:
    for key, values in params:
        if len(values) > MAX_VALUES:
            raise UserError(f"--param {key}: {len(values):,} values; at most {MAX_VALUES:,} per parameter")


def grid(params: list[tuple[str, list]], limit: int = MAX_VARIANTS, what: str = "sweep") -> list[dict]:
    check_values(params)
    if (size := math.prod(len(v) for _, v in params)) > limit:
        raise UserError(f"{what}: {size:,} variants (" + " x ".join(f"{len(v):,} {k}" for k, v in params)
                        + f"); at most {limit:,}: give fewer values")
    keys = [k for k, _ in params]
    return [dict(zip(keys, combo)) for combo in itertools.product(*[v for _, v in params])]


def resolve_baseline(params: list[tuple[str, list]], variants: list[dict], specs: list[str]) -> int:
    """--baseline: `#I` (variant I of sweep.csv), VALUE (one parameter) or KEY=VALUE ... (a grid cell); default 0."""
    if not specs:
        return 0
    labels = "; ".join(f"#{i} {variant_label(v)}" for i, v in enumerate(variants))
    if len(specs) == 1 and specs[0].startswith("#"):
        text = specs[0][1:]
        if text.isdigit() and int(text) < len(variants):
            return int(text)
        raise UserError(f"--baseline {specs[0]}: no such variant; allowed: {labels}")
    wanted = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep:
            if len(params) != 1 or len(specs) != 1:
                raise UserError(f"--baseline {spec}: with several parameters give KEY=VALUE for each, or #I; "
                                f"allowed: {labels}")
            key, value = params[0][0], spec
        if key not in dict(params):
            raise UserError(f"--baseline {spec}: {key} is not swept; swept: {', '.join(k for k, _ in params)}")
        wanted[key] = parse_value(value)
    matches = [i for i, v in enumerate(variants) if all(v[k] == wanted[k] for k in wanted)]
    if len(matches) != 1:
        raise UserError(f"--baseline {' '.join(specs)}: " + ("matches no variant" if not matches else
                        "matches several variants; name every parameter") + f"; allowed: {labels}")
    return matches[0]


def grid_cell(params: list[tuple[str, list]], index: int) -> dict:
    """Cell `index` of the grid in itertools.product order (C order), without building the grid."""
    at = np.unravel_index(index, [len(values) for _, values in params])
    return {key: values[i] for (key, values), i in zip(params, at)}


def games_check(games: int, what: str) -> None:
    if games > MAX_IN_MEMORY_GAMES:
        raise UserError(f"{what}: {games:,} games of one variant would be held in memory; at most "
                        f"{MAX_IN_MEMORY_GAMES:,} (use 'balance-sim run --summary-only' for larger runs)")


def scalar(value):
    return value if isinstance(value, (int, float, str, bool)) else json.dumps(value)


def variant_meta(spec, players, plan, cfg, extra=None) -> dict:
    return {"game": spec.name, "players": players, "games": plan.n_games, "seed": plan.seed,
            "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in plan.choices],
            "round_robin": plan.round_robin, "batch_size": plan.batch_size, "config": cfg.raw, **(extra or {})}


def file_digests(folder: Path) -> dict[str, str]:
    """SHA-256 of each table and summary.json of a variant folder (regular files only), as meta.json records
    them: a reused variant is the one written, as a saved batch is (`sim.batches`)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(folder).iterdir())
            if (p.suffix == ".parquet" or p.name == "summary.json") and p.is_file() and not p.is_symlink()}


def finished_variant(folder: Path, played_under: str):
    """(meta, summary, tables) of a sound variant folder finished under `played_under`, or None (played again):
    every table and summary.json as written (their checksums in meta.json), so an edited figure is never used."""
    kept = results._meta_of(folder)
    if kept is None or kept.get("partial") is not False or kept.get("identity") != played_under:
        return None
    try:
        if not isinstance(kept.get("digests"), dict) or kept["digests"] != file_digests(folder):
            return None
    except OSError:
        return None
    try:
        summary = json.loads(read_regular(folder / "summary.json", MAX_META_BYTES))  # a FIFO: not read
        if not isinstance(summary, dict) or kept.get("tables") != results.table_rows(folder):
            return None
        check_summary(folder / "summary.json", summary)  # a figure that is not a number: played again

        return kept, summary, results.read_tables(folder)
    except (OSError, ValueError, RecursionError, UserError):
        return None


@contextlib.contextmanager
def staged(kind: str, out: Path, meta: dict, quiet: bool):
    """The locked staging folder of a sweep or tune; interrupted, the same command continues it."""
    with exclusive(out):
        results.check_output(out, kind)
        staging = results.begin(out, {**meta, "partial": True}, quiet)
        with stopped_part_way(lambda: f"what finished is kept in {staging}",
                              f"run the same 'balance-sim {kind}' command again to continue"):
            yield staging


PROBE_GAMES = 4  # games played in memory to learn a game's figure names before a sweep or tune starts


def loss(summary: dict, targets: list[Target]) -> tuple[float, float]:
    """(distance outside the bands, summed; closeness to the bands' centres) -- lower is better."""
    outside = sum(t.distance(summary.get(t.metric, {}).get("estimate")) for t in targets)
    centre = sum(abs((summary.get(t.metric, {}).get("estimate") or 0) - t.centre) /
                 max(t.high - t.low, 1e-9) for t in targets)
    return outside, centre


def halving_shares(n_candidates: int, rounds: int, per_round: int, batch_size: int) -> list[int]:
    """The games each survivor of successive halving plays round by round (whole batches) until one is left."""
    survivors, shares = n_candidates, []
    for r in range(rounds):
        shares.append((per_round // survivors) // batch_size * batch_size)
        if survivors == 1:
            break
        survivors = math.ceil(survivors / 2) if r < rounds - 1 else survivors
    return shares
