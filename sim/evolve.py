"""`balance-sim evolve`: tune a strategy's declared parameters with CMA-ES (`cma`) in the unit cube, on common
random numbers, with a re-played incumbent and growing games (docs/evolve.md); a resume replays ask/tell from the
saved JSON exactly. `Evolution` takes any `evaluate` (tests plant an optimum); `Arena` plays the games."""
from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim import inputs
from sim.errors import UserError, stopped_part_way
from sim.game import get_game
from sim.lock import exclusive
from sim.registry import StrategyChoice, StrategyDef, choices, registered
from sim.runner import Plan, batch_seed, execute, fan_out, lineups, run_one_batch

STATE = "evolve-state.json"
STATE_FORMAT = 2  # 2: with a SHA-256 of the rest (`digest`), as saved batches carry one; 1 (none) is still read
SEARCH, VALIDATE, FIELD, PSRO = 1, 2, 3, 4  # seed streams: the search's deals, the held-out validation's, exploit's
# field, and a PSRO population's (analysis.psro: each round's search and its members' head-to-head games)
START_GAMES = 20  # games per pool member per candidate in the first generation (rounded up to whole rotations)
SIGMA0 = 0.3  # initial step size in the unit cube (`--step`): a fraction of each parameter's range
GROWTH_SPREAD = 2.0  # games double when the fitness spread of a generation is within this many standard errors
REPLACE_Z = 1.0  # a challenger is re-tested when it beats the incumbent by more than this many paired SEs ...
CONFIRM_Z = 1.645  # ... and replaces it only if it does by this many on fresh deals (one-sided 5% when equal)
CONFIRM_KEY = 2**20  # the re-test of generation g plays the deals of key CONFIRM_KEY + g: no generation's


def stream_seed(root: int, stream: int, *key: int) -> int:
    """A 63-bit seed for one (stream, generation, member): plans of the same key share deals, others never."""
    words = np.random.SeedSequence(root, spawn_key=(stream, *key)).generate_state(2, dtype=np.uint32)
    return int((int(words[0]) << 31) ^ int(words[1])) & (2**63 - 1)


@dataclass(frozen=True)
class Space:
    """The searched parameters of one strategy: names, declared bounds, whole-number flags."""
    names: tuple
    low: np.ndarray
    high: np.ndarray
    whole: tuple

    def values(self, unit) -> dict:
        """Parameter values of a point of the unit cube (clipped; whole numbers rounded)."""
        x = np.clip(np.asarray(unit, dtype=float), 0.0, 1.0)
        raw = self.low + x * (self.high - self.low)
        return {n: float(round(v)) if w else float(v) for n, v, w in zip(self.names, raw, self.whole)}

    def unit(self, values: dict) -> np.ndarray:
        span = np.where(self.high > self.low, self.high - self.low, 1.0)
        return np.clip((np.array([values[n] for n in self.names], dtype=float) - self.low) / span, 0.0, 1.0)


def search_space(d: StrategyDef, only: list[str] | None = None) -> Space:
    """Every declared parameter of `d` (or the `only` subset); one without bounds is refused by name."""
    names = list(only) if only else list(d.params)
    if not names:
        raise UserError(f"--strategy {d.name}: it has no parameters to evolve")
    for name in names:
        if name not in d.params:
            raise UserError(f"--param {name}: not a parameter of '{d.name}'; allowed: {', '.join(d.params)}")
        if name not in d.bounds:
            bounded = [p for p in d.params if p in d.bounds]
            raise UserError(f"parameter '{name}' of '{d.name}' declares no bounds, so evolve cannot search it; "
                            + (f"pick bounded ones with --param ({', '.join(bounded)})" if bounded else
                               "declare bounds in its @strategy(..., bounds=...)"))
    lo = np.array([float(d.bounds[n][0]) for n in names])
    hi = np.array([float(d.bounds[n][1]) for n in names])
    return Space(tuple(names), lo, hi, tuple(bool(d.bounds[n][2]) for n in names))


def rotation(players: int, games: int) -> int:
    """`games` rounded up to whole seat rotations (every seat taken equally often by the candidate)."""
    return max(players, -(-games // players) * players)


@dataclass
class Settings:
    budget: int  # games the search may play (validation not counted)
    seed: int
    players: int
    popsize: int | None = None  # cma's default (4 + 3 ln d) when None
    start_games: int = START_GAMES
    step: float = SIGMA0  # cma's initial step, a fraction of each range: smaller keeps a good start's neighbourhood


@dataclass
class Incumbent:
    unit: list
    sums: list = field(default_factory=list)  # per member: sum of win shares, sum of squares, games
    since: int = 0  # generation it became incumbent

    def add(self, shares: np.ndarray) -> None:
        rows = [[float(s.sum()), float((s * s).sum()), int(s.size)] for s in shares]
        self.sums = rows if not self.sums else [[a + b for a, b in zip(x, y)] for x, y in zip(self.sums, rows)]

    def estimate(self, weights: np.ndarray) -> tuple[float, float, int]:
        """(weighted mean win share over every game it played as incumbent, its standard error, games)."""
        s = np.array(self.sums, dtype=float)
        means = s[:, 0] / s[:, 2]
        var = np.maximum(s[:, 1] / s[:, 2] - means**2, 0.0) * s[:, 2] / np.maximum(s[:, 2] - 1, 1)
        return float(weights @ means), float(math.sqrt(weights**2 @ (var / s[:, 2]))), int(s[:, 2].sum())


def fitness(shares: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate of shares[candidate, member, game]: weighted mean win share and its standard error."""
    means = shares.mean(axis=2)
    n = shares.shape[2]
    var = shares.var(axis=2, ddof=1) if n > 1 else np.zeros_like(means)
    return means @ weights, np.sqrt((var / n) @ weights**2)


class Evolution:
    """CMA-ES in the unit cube; `history`: the JSON-able generation records `save`/`resume` keep."""

    def __init__(self, space: Space, start: dict, weights, settings: Settings):
        import cma  # here: workers import this module for candidate_shares and never need cma (seconds to import)
        self.space, self.settings = space, settings
        self.weights = np.asarray(weights, dtype=float) / np.sum(weights)
        self.start_unit = space.unit(start)
        self.rng = np.random.default_rng(0)  # cma's normals, re-seeded per generation (`_ask`)
        opts = {"bounds": [0.0, 1.0], "randn": lambda *shape: self.rng.standard_normal(shape),
                "verbose": -9, "verb_log": 0, "verb_disp": 0, "tolflatfitness": 10**9, "tolfun": 0,
                "tolfunhist": 0, "tolx": 1e-4}
        if settings.popsize:
            opts["popsize"] = settings.popsize
        if len(space.names) == 1:  # cma 4.5 fails capping the step size (maxstd) of a bounded 1-D search
            opts["maxstd"] = 10.0  # no cap: samples beyond the bounds are folded back into them anyway
        self.es = cma.CMAEvolutionStrategy(list(self.start_unit), settings.step, opts)
        self.history: list[dict] = []
        self.incumbent = Incumbent(list(map(float, self.start_unit)))
        self.games = rotation(settings.players, settings.start_games)
        self.spent = 0
        self.stopped = ""

    @property
    def popsize(self) -> int:
        return int(self.es.popsize)

    def cost(self, games: int) -> int:
        return (self.popsize + 1) * len(self.weights) * games

    def _ask(self, gen: int) -> tuple[list, list]:
        """cma's samples of generation `gen` (told back as these very arrays), and as plain lists."""
        self.rng = np.random.default_rng(stream_seed(self.settings.seed, SEARCH, gen, 2**31 - 1))
        arrays = self.es.ask()
        return arrays, [list(map(float, x)) for x in arrays]

    def next_games(self) -> int:
        """Games per member for the next generation, fitted into what is left of the budget (0: stop)."""
        left = self.settings.budget - self.spent
        per = left // ((self.popsize + 1) * len(self.weights))
        fit = per // self.settings.players * self.settings.players
        return min(self.games, fit)

    def step(self, evaluate) -> dict | None:
        """Play one generation; None (and `stopped` says why) when the budget or cma says stop. A challenger that
        beats the incumbent on the generation's deals is re-tested against it on fresh deals (`evaluate`'s key
        CONFIRM_KEY + gen) and replaces it only if it wins there too: the best of many equal candidates wins a
        generation's deals by luck, and the fresh deals do not share that luck."""
        if self.es.stop():
            self.stopped = "cma: " + ", ".join(sorted(self.es.stop()))
            return None
        games = self.next_games()
        if games < self.settings.players:
            self.stopped = "budget spent"
            return None
        gen = len(self.history)
        arrays, asked = self._ask(gen)
        points = asked + [self.incumbent.unit]
        shares = np.asarray(evaluate(gen, [self.space.values(x) for x in points], games), dtype=float)
        best, diff, diff_se = self._challenge(shares)
        again = None
        if diff > REPLACE_Z * diff_se and diff > 0:
            again = np.asarray(evaluate(CONFIRM_KEY + gen, [self.space.values(x) for x in (asked[best],
                                                                                      self.incumbent.unit)], games))
        return self._record(gen, arrays, asked, shares, games, again)

    def _challenge(self, shares: np.ndarray, first: int | None = None) -> tuple[int, float, float]:
        """(the best candidate, or `first`; its paired gain over the incumbent, the last row; its standard error)."""
        fit, _ = fitness(shares, self.weights)
        best = int(np.argmax(fit[:-1])) if first is None else first
        per_game = (shares[best] - shares[-1]) * self.weights[:, None] * len(self.weights)
        diff = float(per_game.mean())  # paired: the same deals
        diff_se = float(per_game.std(ddof=1) / math.sqrt(per_game.size)) if per_game.size > 1 else math.inf
        return best, diff, diff_se

    def _record(self, gen: int, arrays: list, asked: list, shares: np.ndarray, games: int, again=None) -> dict:
        fit, se = fitness(shares, self.weights)
        cand_fit = fit[:-1]
        self.es.tell(arrays, list(-cand_fit))  # cma minimises
        best, diff, diff_se = self._challenge(shares)
        self.incumbent.add(shares[-1])
        confirm_diff = confirm_se = None
        replaced = False
        if again is not None:
            _, confirm_diff, confirm_se = self._challenge(again, 0)
            replaced = bool(confirm_diff > CONFIRM_Z * confirm_se and confirm_diff > 0)
            self.spent += again.size
        if replaced:  # its estimate starts from the fresh deals only: the generation's carry its lucky pick
            self.incumbent = Incumbent(asked[best], since=gen + 1)
            self.incumbent.add(again[0])
        elif again is not None:
            self.incumbent.add(again[1])
        inc_fit, inc_se, inc_games = self.incumbent.estimate(self.weights)
        spread = float(np.std(cand_fit, ddof=1)) if len(cand_fit) > 1 else 0.0
        grew = spread < GROWTH_SPREAD * float(np.median(se[:-1]))
        self.spent += shares.size
        record = {"generation": gen, "games_per_member": games, "spent": self.spent,
                  "sigma": float(self.es.sigma), "mean": self.mean(),
                  "candidates": asked, "fitness": list(map(float, cand_fit)), "se": list(map(float, se[:-1])),
                  "incumbent_here": float(fit[-1]), "incumbent_se_here": float(se[-1]),
                  "challenger": best, "diff": float(diff), "diff_se": diff_se, "retested": again is not None,
                  "retest_diff": confirm_diff, "retest_se": confirm_se, "replaced": replaced,
                  "incumbent": list(self.incumbent.unit), "incumbent_sums": self.incumbent.sums,
                  "incumbent_since": self.incumbent.since, "incumbent_fitness": inc_fit,
                  "incumbent_se": inc_se, "incumbent_games": inc_games, "spread": spread, "grew": bool(grew)}
        if grew:
            self.games *= 2
        self.history.append(record)
        return record

    def replay(self, records: list[dict]) -> None:
        """Rebuild the search from saved generation records, refusing one that does not replay exactly."""
        for gen, rec in enumerate(records):
            arrays, asked = self._ask(gen)
            if not isinstance(rec, dict) or rec.get("generation") != gen or asked != rec.get("candidates") \
                    or not _sound(rec, len(asked), len(self.weights), self.space) \
                    or not self._follows(rec, asked):
                raise UserError(f"the saved search does not replay at generation {gen} (saved with another "
                                "version of cma or edited); delete the .partial folder to start again")
            self.es.tell(arrays, [-f for f in rec["fitness"]])
            self.incumbent = Incumbent(rec["incumbent"], rec["incumbent_sums"], rec["incumbent_since"])
            self.spent = rec["spent"]
            self.games = rec["games_per_member"] * (2 if rec["grew"] else 1)
            self.history.append(rec)

    def _follows(self, rec: dict, asked: list) -> bool:
        """A record is what `_record` would have written after the ones before it: its win shares and fitness in
        0 to 1, its challenger the fittest candidate, its incumbent the one before or that challenger (so inside
        the unit cube), the incumbent's fitness what its saved sums give, the games spent adding up."""
        fit, sums = rec["fitness"], rec["incumbent_sums"]
        if not all(0 <= f <= 1 for f in fit + [rec["incumbent_here"], rec["incumbent_fitness"]]) \
                or not all(s >= 0 for s in rec["se"] + [rec["incumbent_se"]]):
            return False
        if not all(0 <= a <= n and 0 <= b <= a + 1e-9 for a, b, n in sums):  # shares in 0..1: s^2 <= s
            return False
        challenger = rec.get("challenger")
        if isinstance(challenger, bool) or challenger != int(np.argmax(fit)):
            return False
        want = (asked[challenger], rec["generation"] + 1) if rec["replaced"] else (self.incumbent.unit,
                                                                                   self.incumbent.since)
        if list(map(float, rec["incumbent"])) != list(map(float, want[0])) or rec["incumbent_since"] != want[1]:
            return False
        estimate = Incumbent(rec["incumbent"], sums, rec["incumbent_since"]).estimate(self.weights)
        if not (math.isclose(estimate[0], rec["incumbent_fitness"], rel_tol=1e-9, abs_tol=1e-12)
                and math.isclose(estimate[1], rec["incumbent_se"], rel_tol=1e-9, abs_tol=1e-12)
                and estimate[2] == rec.get("incumbent_games")):
            return False
        played = len(asked) + 1 + (2 if rec.get("retested") else 0)  # a re-test plays challenger and incumbent again
        return rec["spent"] == self.spent + played * len(self.weights) * rec["games_per_member"]

    def mean(self) -> list:
        """cma's current mean, in the unit cube (its boundary handling's view of it)."""
        return list(map(float, np.clip(self.es.boundary_handler.transform(self.es.mean), 0.0, 1.0)))

    def winner(self) -> dict:
        return self.space.values(self.incumbent.unit)


def _numbers(values, count: int) -> bool:
    return (isinstance(values, list) and len(values) == count and
            all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values))


def _sound(rec: dict, popsize: int, members: int, space: Space) -> bool:
    """A saved generation record (untrusted) holds what replay and the pages read, of the right types."""
    whole = [("spent", int), ("games_per_member", int), ("incumbent_since", int), ("grew", bool),
             ("replaced", bool)]
    if not all(isinstance(rec.get(k), t) for k, t in whole):
        return False
    sums = rec.get("incumbent_sums")
    return (_numbers(rec.get("fitness"), popsize) and _numbers(rec.get("se"), popsize)
            and _numbers([rec.get("incumbent_here"), rec.get("incumbent_se_here")], 2)
            and _numbers(rec.get("incumbent"), len(space.names)) and _numbers(rec.get("mean"), len(space.names))
            and all(_numbers([rec.get(k)], 1) for k in ("sigma", "incumbent_fitness", "incumbent_se"))
            and isinstance(sums, list) and len(sums) == members
            and all(_numbers(row, 3) and row[2] >= 1 for row in sums))


def _sound_validation(val, members: int) -> bool:
    if not isinstance(val, dict) or isinstance(val.get("games"), bool) or not isinstance(val.get("games"), int):
        return False
    n = val["games"]
    return n >= 1 and (all(isinstance(val.get(k), list) and len(val[k]) == members
                           and all(_numbers(r, n) and all(0 <= x <= 1 for x in r) for r in val[k])
                           for k in ("winner", "start"))
                       and _numbers(val.get("head_to_head"), n) and all(0 <= x <= 1 for x in val["head_to_head"]))


def run(evolution: Evolution, evaluate, save=None, progress=None) -> Evolution:
    """Generations until the budget is spent; `save(history)` after each (for resume)."""
    while (rec := evolution.step(evaluate)) is not None:
        if save is not None:
            save(evolution.history)
        if progress is not None:
            progress(rec)
    return evolution


# ---- playing the games ----
def candidate_shares(game: str, cfg, plan, b: int, seed: int) -> np.ndarray:
    """Batch b of `plan`: the win share of choice 0 (the candidate) in each game (shipped to workers)."""
    spec = get_game(game)
    tables = run_one_batch(game, cfg, plan, b, seed, False)
    main = tables["games"]
    start, stop = plan.batch_bounds(b)
    seats = lineups(plan, start, stop)
    shares = np.stack([np.asarray(main[f"win_share_{p}"], dtype=float) for p in range(plan.players)], axis=1)
    order = np.argsort(np.asarray(main[spec.id_column]), kind="stable")
    return shares[order][seats == 0]  # choice 0 sits once per game


@dataclass
class Arena:
    """Candidates of one base strategy against a pool, through the runner (sim.runner.fan_out)."""
    spec: object
    cfg: object
    players: int
    base: StrategyChoice
    pool: tuple  # StrategyChoice per member
    seed: int
    jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    batch_size: int = 1000
    plans: list = field(default_factory=list)  # the plans of the last call (tests read their seeds)
    show_progress: bool = False  # a bar of each generation's games on stderr (the command line, not -q)

    def choice(self, values: dict) -> StrategyChoice:
        """The base with `values` over its own parameters (a search player's policy vectors kept as they are)."""
        d = registered(self.spec.name)[self.base.base_id]
        vec = list(self.base.params)
        for name, value in values.items():
            vec[list(d.params).index(name)] = float(value)
        return StrategyChoice(self.base.name, self.base.base, self.base.base_id, tuple(vec))

    def play(self, stream: int, gen: int, lineup: list[StrategyChoice], games: int, members=None) -> np.ndarray:
        """shares[candidate, member, game]: each of `lineup` in one seat against a member in every other."""
        members = self.pool if members is None else members
        calls, self.plans = [], []
        for cand in lineup:
            for j, member in enumerate(members):
                plan = Plan(self.spec.name, self.players, games, stream_seed(self.seed, stream, gen, j),
                            (cand,) + (member,) * (self.players - 1), min(self.batch_size, games), False)
                self.plans.append(plan)
                calls += [(candidate_shares, (self.spec.name, self.cfg, plan, b, batch_seed(plan.seed, b)))
                          for b in range(plan.n_batches)]
        slow = any(registered(self.spec.name)[c.base_id].search for c in (*lineup, *members))
        sizes = [plan.batch_games(b) for plan in self.plans for b in range(plan.n_batches)]
        with self._progress(gen if stream == SEARCH else None, sum(sizes)) as bar:
            parts = fan_out(calls, jobs=self.jobs, backend=self.backend, scheduler=self.scheduler, isolate=slow,
                            done=lambda i: bar.update(sizes[i]))
        out, k = [], 0
        for plan in self.plans:
            out.append(np.concatenate(parts[k:k + plan.n_batches]))
            k += plan.n_batches
        return np.array(out).reshape(len(lineup), len(members), games)

    def _progress(self, gen: int | None, total: int):
        """A progress bar on stderr of a generation's (or the validation's) games, when `show_progress`."""
        from tqdm import tqdm  # deferred: the workers that import this module draw nothing
        return tqdm(total=total, unit="game", disable=not self.show_progress, dynamic_ncols=True, file=sys.stderr,
                    desc=f"generation {gen}" if gen is not None else "validation", mininterval=0.5, leave=False)

    def evaluate(self, gen: int, candidates: list[dict], games: int) -> np.ndarray:
        return self.play(SEARCH, gen, [self.choice(v) for v in candidates], games)

    def validate(self, winner: dict, start: dict, games: int) -> dict:
        """On fresh deals: winner and start against each member, and the winner against its start."""
        games = rotation(self.players, games)
        both = self.play(VALIDATE, 0, [self.choice(winner), self.choice(start)], games)
        h2h = self.play(VALIDATE, 1, [self.choice(winner)], games, members=(self.choice(start),))
        return {"games": games, "winner": both[0].tolist(), "start": both[1].tolist(), "head_to_head": h2h[0, 0].tolist()}


# ---- the state kept for --resume ----
def _state_digest(state: dict) -> str:
    body = {k: v for k, v in state.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def save_state(folder: Path, state: dict) -> None:
    tmp = Path(folder) / f".{STATE}.tmp"
    state = {"format": STATE_FORMAT, **state}
    tmp.write_text(json.dumps({**state, "digest": _state_digest(state)}))
    os.replace(tmp, Path(folder) / STATE)


def load_state(folder: Path) -> dict:
    """The saved search of an interrupted evolve (JSON only, every field checked by `replay`), or {}."""
    path = Path(folder) / STATE
    if not os.path.lexists(path):
        return {}
    try:
        state = json.loads(inputs.read_regular(path))  # a FIFO or a link: refused, not read
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        raise UserError(f"{path}: unreadable saved search; delete {Path(folder)} to start again") from None
    if not isinstance(state, dict) or state.get("format") not in (1, STATE_FORMAT) \
            or not isinstance(state.get("history"), list):
        raise UserError(f"{path}: not a saved search of this version; delete {Path(folder)} to start again")
    if state["format"] == STATE_FORMAT and state.get("digest") != _state_digest(state):
        raise UserError(f"{path}: the saved search was altered after it was written (its checksum differs); "
                        f"delete {Path(folder)} to start again")
    return state


# ---- one evolve from its settings to its folder ----
@dataclass
class Prepared:
    """Everything a setup (the JSON-able dict that `evolve`/`exploit` record in meta.json) resolves to."""
    spec: object
    arena: Arena
    space: Space
    start: dict  # the starting point: the strategy's (or preset's) values of the searched parameters
    weights: np.ndarray
    settings: Settings


SETUP_FIELDS = {"kind": str, "game": str, "players": int, "strategy": str, "against": list, "params": list,
                "budget": int, "seed": int, "validation_games": int, "batch_size": int, "config": dict}


def check_step(step) -> None:
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0.001 <= step <= 1:
        raise UserError(f"--step {step!r}: the initial step as a fraction of each parameter's range; allowed: "
                        "0.001 to 1")


def check_setup(setup) -> None:
    """A setup read back from meta.json is untrusted: every field of the right type and range before use."""
    if not isinstance(setup, dict):
        raise UserError("the saved setup is not a table; delete the .partial folder to start again")
    for key, kind in SETUP_FIELDS.items():
        value = setup.get(key)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise UserError(f"the saved setup's '{key}' is {value!r}, expected {kind.__name__}; delete the "
                            ".partial folder to start again")
    if not all(isinstance(x, str) for x in setup["against"] + setup["params"]):
        raise UserError("the saved setup's 'against' and 'params' must be names; delete the .partial folder")
    weights = setup.get("weights")
    if weights is not None and not (isinstance(weights, list) and all(
            isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) for w in weights)):
        raise UserError(f"the saved setup's 'weights' is {weights!r}, expected numbers")
    popsize = setup.get("popsize")
    if popsize is not None and (isinstance(popsize, bool) or not isinstance(popsize, int) or not 2 <= popsize <= 1000):
        raise UserError(f"--popsize {popsize}: must be a whole number from 2 to 1,000")
    check_step(setup.get("step", SIGMA0))
    inputs.seed(setup["seed"])
    inputs.batch_size(setup["batch_size"])
    inputs.positive("--budget", setup["budget"])
    inputs.positive("--validation-games", setup["validation_games"])


def prepare(setup: dict, jobs: int = 1, backend: str = "loky", scheduler: str | None = None) -> Prepared:
    """Check and resolve a setup (from the flags, or read back for --resume), every refusal before any game."""
    check_setup(setup)
    spec = get_game(setup["game"])
    players = spec.check_players(setup["players"])
    cfg = spec.validate(setup["config"], players)
    base = choices(spec.name, cfg.presets, [setup["strategy"]])[0]
    d = registered(spec.name)[base.base_id]
    if d.search and not setup.get("params"):
        raise UserError(f"--strategy {setup['strategy']}: a search player; evolve its numeric parameters with "
                        f"--param (bounded ones: {', '.join(p for p in d.params if p in d.bounds) or 'none'})")
    space = search_space(d, setup.get("params"))
    current = dict(zip(d.params, base.params))
    start = {n: current[n] for n in space.names}
    for name in space.names:
        lo, hi, whole = d.bounds[name]
        if not lo <= start[name] <= hi:
            raise UserError(f"--strategy {setup['strategy']}: its {name} = {start[name]:g} lies outside the declared "
                            f"bounds {lo:g} to {hi:g}; evolve starts from inside them")
    pool = tuple(choices(spec.name, cfg.presets, list(setup["against"])))
    weights = np.asarray(setup.get("weights") or [1.0] * len(pool), dtype=float)
    if len(weights) != len(pool) or (weights < 0).any() or weights.sum() <= 0:
        raise UserError("evolve: the pool weights must be one non-negative number per pool member, not all 0")
    arena = Arena(spec, cfg, players, base, pool, setup["seed"], jobs, backend, scheduler, setup["batch_size"])
    settings = Settings(setup["budget"], setup["seed"], players, setup.get("popsize"),
                        step=float(setup.get("step", SIGMA0)))
    return Prepared(spec, arena, space, start, weights, settings)


def check_budget(prepared: Prepared) -> None:
    """A budget that cannot pay for one generation of the smallest size is refused before anything is played."""
    ev = Evolution(prepared.space, prepared.start, prepared.weights, prepared.settings)
    least = ev.cost(prepared.settings.players)
    if prepared.settings.budget < least:
        raise UserError(f"--budget {prepared.settings.budget:,}: one generation ({ev.popsize} candidates and the "
                        f"incumbent, {len(prepared.weights)} pool member(s), {prepared.settings.players} games each) "
                        f"needs at least {least:,} games")


def evolve_to_folder(setup: dict, prepared: Prepared, out: Path, publish, *, command: str = "evolve",
                     quiet: bool = False, progress=None) -> tuple[Path, list[str]]:
    """Search, validate and `publish(staging, result)` in `<out>.partial`; `--resume` continues it."""
    from sim import results  # here: it imports pandas, which the workers importing this module do not need
    ident = results.identity(setup)
    prepared.arena.show_progress = not quiet
    with exclusive(out):
        results.check_output(out, command)
        meta = {"game": setup["game"], "evolve": setup, "command": command, "identity": ident}
        staging = results.begin(out, meta, quiet)
        if not quiet:  # what the time goes on, said before the first game (a search player's game takes seconds)
            checked = rotation(prepared.settings.players, setup["validation_games"]) * (2 * len(prepared.arena.pool) + 1)
            print(f"{command}: a search of at most {setup['budget']:,} games, then {checked:,} games validating the "
                  f"winner on fresh deals (--validation-games {setup['validation_games']:,} per comparison)",
                  file=sys.stderr)
        state = load_state(staging)
        ev = Evolution(prepared.space, prepared.start, prepared.weights, prepared.settings)

        def kept() -> str:
            return f"{len(ev.history)} generation(s) are saved in {staging}"

        again = f"'balance-sim {command} --resume {out}' or " if command == "evolve" else ""
        with stopped_part_way(kept, f"continue with {again}the same command"):
            ev.replay(state.get("history", []))
            run(ev, prepared.arena.evaluate, save=lambda h: save_state(staging, {"history": h}), progress=progress)
            if not ev.stopped:
                ev.stopped = str(state.get("stopped", "budget spent"))[:200]
            validation = state.get("validation")
            if not _sound_validation(validation, len(prepared.arena.pool)):  # absent or damaged: played (again)
                validation = prepared.arena.validate(ev.winner(), prepared.start, setup["validation_games"])
                save_state(staging, {"history": ev.history, "validation": validation, "stopped": ev.stopped})
            result = {"setup": setup, "space": {"names": list(prepared.space.names),
                                                "low": prepared.space.low.tolist(),
                                                "high": prepared.space.high.tolist(),
                                                "whole": list(prepared.space.whole)},
                      "base": prepared.arena.base.base, "start": prepared.start, "winner": ev.winner(),
                      "pool": [c.name for c in prepared.arena.pool], "weights": (prepared.weights /
                                                                              prepared.weights.sum()).tolist(),
                      "history": ev.history, "validation": validation, "stopped": ev.stopped,
                      "popsize": ev.popsize, "spent": ev.spent}
            lines = publish(staging, result)
            results.write_meta(staging, {**meta, "partial": False})
            results.finish(staging, out)
    return out, lines


def play_field(spec, cfg, players: int, field: tuple, games: int, seed: int, jobs: int = 1,
               backend: str = "loky", scheduler=None):
    """The games table of a round-robin of the field on its own deals (`exploit` weighs the field by its mix)."""
    plan = Plan(spec.name, players, games, stream_seed(seed, FIELD, 0), tuple(field), min(2000, games), True)
    tables, _ = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler, progress=False)
    return tables["games"]
