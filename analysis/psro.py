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
              fair: float = 0.5) -> Population:
    """`psro` from a measured population; `fair`, a member's share against itself (1/players)."""
    for r in range(rounds):
        mix = pop.mix()
        new = best_response(list(pop.members), mix, r)
        row, col = (np.asarray(x, dtype=float) for x in versus(new, list(pop.members)))
        gain = float(mix @ row - mix @ pop.shares @ mix)
        grow(pop, new, row, col, fair)
        pop.rounds.append({"round": r, "mix_before": mix.tolist(), "gain": gain, "mix_after": pop.mix().tolist()})
        if gain <= stop_gain:
            break
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


def game_psro(prepared, rounds: int, games: int, stop_gain: float = 0.0, progress=None) -> Population:
    """PSRO in a game: the pool starts as `prepared`'s (evolve's `--against`, measured head to head), each round
    evolves `prepared`'s strategy against the pool weighted by its mix (its members of at least `SUPPORT` of
    it; `evolve`'s search from `warm_start`, its own deals per round) into the preset `<strategy>-psro<round>`,
    measured against every member on `games` fresh deals a pair."""
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
    first, *rest = base.pool
    pop = Population([first], np.full((1, 1), fair))
    for m in rest:  # the starting pool's own head-to-head table
        grow(pop, m, *versus(m, pop.members), fair)
    return psro_from(pop, best_response, versus, rounds, stop_gain, fair)
