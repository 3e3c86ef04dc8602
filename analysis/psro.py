"""Self-play by a growing population (PSRO: Lanctot et al. 2017): best response to the pool's equilibrium mix ->
add it to the pool -> measure it against every member -> the new mix, until a best response no longer beats the
mix. Here, above the simulation core: the meta-game's equilibrium is the report's (`analysis.models.nash_mix`),
and each best response is any `best_response(pool, mix, round)` (`evolve`'s search in `psro_rounds`; tests plant
a matrix game)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.models import nash_mix


@dataclass
class Population:
    """The pool, its head-to-head win shares (`shares[i, j]`: member i's share against j) and each round's record."""
    members: list
    shares: np.ndarray
    rounds: list = field(default_factory=list)

    def mix(self) -> np.ndarray:
        """The symmetric equilibrium of the zero-sum meta-game shares[i, j] - shares[j, i]."""
        return nash_mix(self.shares - self.shares.T)


SUPPORT = 0.01  # members under 1% of the mix are left out of a best response's pool, as `exploit` leaves them


def support(members: list, mix, floor: float = SUPPORT) -> tuple[list, np.ndarray]:
    """The members a best response trains against and their weights: those with at least `floor` of the mix,
    renormalised. `evolve` plays every pool member equally often whatever its weight, so a member of weight ~0
    would take its share of the budget and teach nothing (a Mohur pool of tuned and four heuristics, the mix all
    tuned, spent 4/5 of each round's games on heuristics that weigh nothing)."""
    mix = np.asarray(mix, dtype=float)
    keep = mix >= floor
    if not keep.any():  # cannot happen with a mix summing to 1 over fewer than 100 members; kept for any floor
        keep = mix == mix.max()
    return [m for m, k in zip(members, keep) if k], mix[keep] / mix[keep].sum()


def grow(pop: Population, new, row, col, fair: float) -> None:
    """`new` joins the pool with its shares against each member (`row`) and theirs against it (`col`); its share
    against itself is the fair one (1/players: one seat against copies of itself)."""
    k = len(pop.members)
    grown = np.full((k + 1, k + 1), fair)
    grown[:k, :k], grown[k, :k], grown[:k, k] = pop.shares, row, col
    pop.members.append(new)
    pop.shares = grown


def psro(first, best_response, versus, rounds: int, stop_gain: float = 0.0) -> Population:
    """Up to `rounds` best responses, starting from the pool [first]. `versus(a, members)`: (a's win shares against
    each member, each member's against a); a round whose best response beats the mix by no more than `stop_gain`
    (its share against the mix minus the mix's own against itself) ends the loop after it is recorded."""
    return psro_from(Population([first], np.full((1, 1), 0.5)), best_response, versus, rounds, stop_gain)


def psro_from(pop: Population, best_response, versus, rounds: int, stop_gain: float = 0.0,
              fair: float = 0.5, save=None) -> Population:
    """`psro` from a measured population; `fair`, a member's share against itself (1/players). A population that
    holds rounds already (a resumed loop) goes on after them, or not at all if its last round had stopped it;
    `save(pop)` after each round."""
    if pop.rounds and pop.rounds[-1]["gain"] <= stop_gain:
        return pop
    for r in range(len(pop.rounds), rounds):
        mix = pop.mix()
        new = best_response(list(pop.members), mix, r)
        row, col = (np.asarray(x, dtype=float) for x in versus(new, list(pop.members)))
        gain = float(mix @ row - mix @ pop.shares @ mix)
        grow(pop, new, row, col, fair)
        pop.rounds.append({"round": r, "mix_before": mix.tolist(), "gain": gain, "mix_after": pop.mix().tolist()})
        if save is not None:
            save(pop)
        if gain <= stop_gain:
            break
    return pop


def state_of(pop: Population) -> dict:
    """The loop as plain JSON (no pickle): each member's name, base and parameter vector, the share table, the
    rounds. `restore` checks it back."""
    return {"members": [{"name": c.name, "base": c.base, "base_id": int(c.base_id), "params": [float(x) for x in
                                                                                                c.params]}
                        for c in pop.members], "shares": pop.shares.tolist(), "rounds": pop.rounds}


def _close(a, b, tol: float) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol))


def restore(state, start: list, fair: float, stop_gain: float, rebuild) -> Population:
    """The population a saved state describes, or ValueError saying what does not hold. It must begin with the
    starting pool as given (`start`, the same names and parameters); its shares lie in [0, 1] with the fair share
    on the diagonal; each round must follow from the table as it then stood: its mix before is the equilibrium of
    the table without its member, its gain that member's share against the mix minus the mix's against itself,
    its mix after the equilibrium with it; no round but the last gained no more than `stop_gain` (the loop would
    have stopped). `rebuild(i, member)`: round i's best response from its saved entry (ValueError if it is not
    one the search could have made)."""
    if not isinstance(state, dict) or not all(isinstance(state.get(k), list) for k in ("members", "shares", "rounds")):
        raise ValueError("not a saved PSRO loop (members, shares and rounds expected)")
    members, rounds = state["members"], state["rounds"]
    k, s = len(start), len(members)
    if s != k + len(rounds) or not all(isinstance(m, dict) for m in members):
        raise ValueError(f"{s} members for a starting pool of {k} and {len(rounds)} rounds")
    for c, m in zip(start, members):
        if (m.get("name"), m.get("base_id"), m.get("params")) != (c.name, c.base_id, [float(x) for x in c.params]):
            raise ValueError(f"its starting pool differs from the command's at {m.get('name')!r}")
    try:
        shares = np.array(state["shares"], dtype=float)
    except (TypeError, ValueError):
        raise ValueError("its share table is not a table of numbers") from None
    if shares.shape != (s, s) or not np.all(np.isfinite(shares)) or shares.min() < 0 or shares.max() > 1 \
            or not _close(np.diag(shares), np.full(s, fair), 1e-12):
        raise ValueError(f"its share table is not {s} by {s} shares from 0 to 1 with {fair:g} on the diagonal")
    for i, rec in enumerate(rounds):
        m = k + i
        if not isinstance(rec, dict) or rec.get("round") != i or not isinstance(rec.get("gain"), (int, float)):
            raise ValueError(f"round {i + 1} is not a round record")
        before, after = nash_mix(shares[:m, :m] - shares[:m, :m].T), nash_mix(shares[:m + 1, :m + 1]
                                                                              - shares[:m + 1, :m + 1].T)
        gain = float(before @ shares[m, :m] - before @ shares[:m, :m] @ before)
        if not (_close(rec.get("mix_before"), before, 1e-6) and _close(rec.get("mix_after"), after, 1e-6)
                and abs(rec["gain"] - gain) <= 1e-9):
            raise ValueError(f"round {i + 1}'s mix or gain does not follow from the share table")
        if i < len(rounds) - 1 and rec["gain"] <= stop_gain:
            raise ValueError(f"round {i + 1} gained no more than --stop-gain, yet the loop went on")
    pop = Population(list(start) + [rebuild(i, m) for i, m in enumerate(members[k:])], shares, list(rounds))
    return pop


def warm_start(members: list, mix, base, names, start: dict) -> dict:
    """Where a round's search begins: the values of the mix's heaviest member of the strategy's own family (the
    same base strategy; `names` its parameters in the registry's order), or the strategy's own start when the mix
    weighs none of them. CMA-ES is a local search: from the fixed start, a round against a pool led by an evolved
    member searched around a point that member already beats (Mohur, seed 3802: round 3 kept tuned's weights,
    which won 48.2% against the mix's only member)."""
    family = [(w, i) for i, (c, w) in enumerate(zip(members, mix)) if c.base_id == base.base_id and w > 0]
    if not family:
        return dict(start)
    values = dict(zip(names, members[max(family)[1]].params))
    return {name: values[name] for name in start}


def game_psro(prepared, rounds: int, games: int, stop_gain: float = 0.0, progress=None, saved=None,
              save=None) -> Population:
    """PSRO in a game: the pool starts as `prepared`'s (evolve's `--against`, measured head to head), each round
    evolves `prepared`'s strategy against the pool weighted by its mix (its members of at least `SUPPORT` of
    it; `evolve`'s search from `warm_start`, its own deals per round) into the preset `<strategy>-psro<round>`,
    measured against every member on `games` fresh deals a pair. `saved`: a state of `state_of` to go on from
    (checked by `restore`); `save(state)` once the starting table is measured and after each round."""
    from dataclasses import replace  # here: only a game's loop renames choices
    from sim import evolve as E  # here: the toy tests need no game's simulation core
    from sim.registry import registered  # here: likewise
    base = prepared.arena
    names = registered(base.spec.name)[base.base.base_id].params

    def best_response(members, mix, r):
        pool, weights = support(members, mix)
        arena = replace(base, pool=tuple(pool), seed=E.stream_seed(base.seed, E.PSRO, r, 0))
        settings = replace(prepared.settings, seed=E.stream_seed(prepared.settings.seed, E.PSRO, r, 1))
        start = warm_start(members, mix, base.base, names, prepared.start)
        ev = E.run(E.Evolution(prepared.space, start, weights, settings), arena.evaluate)
        if progress is not None:
            progress(f"round {r + 1}: best response {ev.winner()} after {ev.spent:,} games")
        return replace(arena.choice(ev.winner()), name=f"{base.base.name}-psro{r + 1}")

    def versus(a, members):
        arena = replace(base, pool=tuple(members))
        k = len(members)
        n = E.rotation(base.players, games)
        row = arena.play(E.PSRO, 10_000 + 1000 * k, [a], n)[0].mean(axis=1)
        col = np.array([arena.play(E.PSRO, 10_000 + 1000 * k + 1 + j, [m], n, members=(a,))[0, 0].mean()
                        for j, m in enumerate(members)])
        return row, col

    # a member against copies of itself wins 1/players: with 4 players the mix's share against itself is 0.25, and
    # a diagonal of 0.5 made every gain about -0.25 (the loop stopped after round 1 whatever it found)
    fair = 1.0 / base.players

    def rebuild(i, m):
        """Round i's saved best response: the strategy with its searched values, inside their bounds, and every
        other parameter the start's (what `best_response` makes), under the name it would get."""
        values = dict(zip(names, m.get("params") or []))
        if m.get("name") != f"{base.base.name}-psro{i + 1}" or len(values) != len(names) or any(
                not isinstance(values[n], (int, float)) or not lo <= values[n] <= hi
                for n, lo, hi in zip(prepared.space.names, prepared.space.low, prepared.space.high)):
            raise ValueError(f"member {m.get('name')!r} is not a best response of round {i + 1}")
        c = replace(base.choice({n: values[n] for n in prepared.space.names}), name=m["name"])
        if [float(x) for x in c.params] != m["params"]:
            raise ValueError(f"member {m['name']!r} changes parameters the search does not")
        return c

    keep = (lambda pop: save(state_of(pop))) if save is not None else None
    if saved:
        pop = restore(saved, list(base.pool), fair, stop_gain, rebuild)
    else:
        first, *rest = base.pool
        pop = Population([first], np.full((1, 1), fair))
        for m in rest:  # the starting pool's own head-to-head table
            grow(pop, m, *versus(m, pop.members), fair)
        if keep is not None:
            keep(pop)
    return psro_from(pop, best_response, versus, rounds, stop_gain, fair, keep)
