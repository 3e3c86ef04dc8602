"""Conclusions checked across skill: do a report's headline conclusions (the position edge, the mix's leader, the
top decisive source) survive stronger play? Read in hand-written play (`HAND`), again among evolved (`TUNED`) and
search (`SEARCH`) players; populations and verdicts: docs/evolve.md ("conclusions checked across skill").
"""
from __future__ import annotations

import math
import re

import numpy as np

from analysis import edges, models, percent, stats
from analysis.common import head_to_head
from analysis.markup import table as html_table
from analysis.skill import search_names
from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from sim.registry import registered

HAND, TUNED, SEARCH, MIXED = "hand-written", "tuned", "search", "mixed"
STRONGER = (TUNED, SEARCH)
HOLDS, CHANGES, UNCLEAR, MISSING = "holds", "changes", "unclear", "missing"
EVOLVABLE = "weighted"  # the strategy `evolve` tunes into `tuned`: its presets are evolved weights
WORDS = {HAND: "hand-written heuristics", TUNED: "tuned mirror play", SEARCH: "search-player play"}
JOIN = {TUNED: "tuned players", SEARCH: "search players"}  # the mix: the field they join
HEADERS = {HAND: "hand-written heuristics", TUNED: "tuned: mirror games (the mix: the field with tuned)",
           SEARCH: "search players: search-only games (the mix: every game)"}
CONCLUSIONS = {"edge": "the edge", "leader": "the dominant strategy", "source": "the top decisive source"}
VERDICT_WORDS = {"edge": "a real edge", "handicap": "a real handicap", "none": "no edge we can detect"}
_DECISIVE = re.compile(r"decisive_rate\[([^\[\]]+)\]")


# ---- who is which skill ---------------------------------------------------------------------------------------
def tuned_names(meta: dict) -> set[str]:
    """The run's evolved strategies: the `tuned` preset, any other preset of `weighted` (weights set by a search
    or by hand, not `weighted`'s own defaults) and `evolve`'s `<strategy>-evolved` presets."""
    named = [(s.get("name", ""), s.get("base", s.get("name", ""))) for s in meta.get("strategies", [])]
    return {name for name, base in named
            if name == "tuned" or (base == EVOLVABLE and name != EVOLVABLE) or name.endswith("-evolved")}


def kinds(meta: dict) -> dict[str, str]:
    """Every strategy of the run: HAND, TUNED or SEARCH (a search player's preset is SEARCH, whatever its name)."""
    search, tuned = search_names(meta), tuned_names(meta)  # search_names: the registry's flags, read in skill.py
    return {s["name"]: SEARCH if s["name"] in search else TUNED if s["name"] in tuned else HAND
            for s in meta.get("strategies", [])}


def _seat_levels(strategy: np.ndarray, names, kind: dict) -> np.ndarray:
    """Per game and seat (strategy codes into `names`): the level the seat plays at."""
    codes = np.asarray(strategy, dtype=np.int64)
    by_code = np.array([kind.get(str(n), HAND) for n in names] or [HAND], dtype=object)
    return by_code[codes] if codes.size else np.empty(codes.shape, dtype=object)


def populations(strategy: np.ndarray, names, kind: dict) -> np.ndarray:
    """Per game (rows of strategy codes into `names`): the level every seat plays at, or MIXED."""
    seat = _seat_levels(strategy, names, kind)
    out = np.full(len(seat), MIXED, dtype=object)
    for level in (HAND, TUNED, SEARCH):
        out[(seat == level).all(axis=1)] = level
    return out


def mix_fields(strategy: np.ndarray, names, kind: dict) -> dict[str, np.ndarray]:
    """The games each population's equilibrium mix is taken over (see the module's docstring): HAND alone, HAND
    and TUNED seats (when a tuned seat played with a hand-written one), every game (when a search player did)."""
    seat = _seat_levels(strategy, names, kind)
    hand = (seat == HAND).all(axis=1)
    field = ((seat == HAND) | (seat == TUNED)).all(axis=1)
    # the hand-written mix: hand-written seats against each other in every game of the field (`nash_weights`
    # keeps their pairs only); games of hand-written seats alone would miss the pairs that, in a rotation of more
    # than two seats, only ever meet at a table with a tuned seat (Mughal 4p: `-s all`)
    out = {HAND: field}
    if (field & ~hand & (seat == HAND).any(axis=1)).any():
        out[TUNED] = field
    if (seat == SEARCH).any() and not (seat == SEARCH).all():
        out[SEARCH] = np.ones(len(seat), dtype=bool)
    return out


def nash_weights(strategy: np.ndarray, keys: list[np.ndarray], names, mask: np.ndarray,
                 only: set | None = None) -> dict[str, dict]:
    """{strategy: equilibrium weight metric} over the games in `mask` (head-to-head records on `keys`, as the
    report's meta-game), among the strategies in `only` (default all); {} when fewer than two strategies met or a
    pair never met."""
    if mask.sum() == 0:
        return {}
    wins, meet = head_to_head(strategy[mask], [k[mask] for k in keys], list(names))
    played = [n for n in names if (only is None or n in only) and meet.loc[n, list(only or names)].sum() > 0]
    if len(played) < 2 or models.unmeasured_pairs(meet.loc[played, played]):
        return {}
    table = models.nash_table(wins.loc[played, played], meet.loc[played, played])
    metrics = models.nash_metrics(table, int(mask.sum()))
    return {k[len("nash_weight["):-1]: m for k, m in metrics.items() if k.startswith("nash_weight[")}


def summary_metrics(strategy: np.ndarray, names, kind: dict, edge, decisive, keys: list[np.ndarray], what,
                    fair: float) -> dict:
    """The comparison's summary.json keys (none in --summary-only runs): edge(mask) and decisive(mask) over games
    (rows of `strategy`), `keys` the mix's head-to-head keys, what(k) position k in words; the edge's position is
    the one furthest from `fair` in the first population measured, the same in every population."""
    if stats.is_aggregating() or not len(strategy):
        return {}
    level = populations(strategy, names, kind)
    # nothing stronger to compare with: only the hand-written edge (cheap), which marks the baseline as present,
    # so the report can say what is missing without paying for the mix and the decisive sources again
    compared = bool(np.isin(level, STRONGER).any())
    out, chosen = {}, None
    for pop in (HAND, TUNED, SEARCH):
        mask = level == pop
        if not mask.any():
            continue
        rates = [m for m in (edge(mask) or []) if m and m.get("estimate") is not None]
        if rates:
            chosen = chosen if chosen is not None else int(np.argmax([abs(m["estimate"] - fair) for m in rates]))
            if chosen < len(rates):
                out[f"skill_edge[{pop}]"] = {**rates[chosen], "fair": fair, "what": what(chosen)}
        for key, m in (decisive(mask) if compared else {}).items():
            source = _DECISIVE.fullmatch(key)
            if source and m.get("estimate") is not None:
                out[f"skill_decisive[{pop}][{source.group(1)}]"] = m
    hand_names = {n for n in names if kind.get(str(n), HAND) == HAND}
    for pop, mask in (mix_fields(strategy, names, kind) if compared else {}).items():
        for name, m in nash_weights(strategy, keys, names, mask, hand_names if pop == HAND else None).items():
            out[f"skill_mix[{pop}][{name}]"] = m
    return out


def players_metrics(players, meta: dict, ids, strategy, win, names, keys, position, what, decisive) -> dict:
    """`summary_metrics` of a players-table game (`common.wide_players`' arrays): the edge of `position` (per
    game and seat) and `decisive(players, config, seats)` over each population's games."""
    p = strategy.shape[1]

    def edge(mask):
        return edges.position_edges(strategy[mask], position[mask], win[mask], names, p)["rates"]

    def decided(mask):
        return decisive(players[players["game"].isin(ids[mask])], meta.get("config") or {}, p)

    return summary_metrics(strategy, names, kinds(meta), edge, decided, keys, what, 1 / p)


# ---- reading and comparing ------------------------------------------------------------------------------------
def finite_metric(m) -> dict | None:
    """A summary figure whose estimate and interval are finite numbers, else None (absent or damaged)."""
    if not isinstance(m, dict):
        return None
    values = [m.get(f) for f in ("estimate", "ci_low", "ci_high")]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) for v in values):
        return None
    return m


def _family(summary: dict, prefix: str, pop: str) -> dict[str, dict]:
    pattern = re.compile(re.escape(f"{prefix}[{pop}][") + r"([^\[\]]+)\]")
    return {match.group(1): m for key, m in summary.items() if (match := pattern.fullmatch(key)) and finite_metric(m)}


def edge_verdict(m: dict) -> str:
    fair = m.get("fair", 0.5)
    return "edge" if m["ci_low"] > fair else "handicap" if m["ci_high"] < fair else "none"


def _top(family: dict[str, dict]) -> dict | None:
    """The leader of a family (mix weights, decisive rates): its name, metric, the runner-up, and whether the
    leader's interval is clear of the runner-up's (definite)."""
    if not family:
        return None
    ranked = sorted(family.items(), key=lambda kv: -kv[1]["estimate"])
    name, m = ranked[0]
    second = ranked[1] if len(ranked) > 1 else (None, None)
    definite = second[1] is None or m["ci_low"] > second[1]["ci_high"]
    return {"name": name, "metric": m, "second": second[0], "second_metric": second[1], "definite": definite}


def readings(summary: dict) -> dict[str, dict[str, dict | None]]:
    """{conclusion: {population: reading or None}} from a summary's skill_* keys."""
    out = {c: {} for c in CONCLUSIONS}
    for pop in (HAND, *STRONGER):
        m = finite_metric(summary.get(f"skill_edge[{pop}]"))
        out["edge"][pop] = {"metric": m, "verdict": edge_verdict(m)} if m else None
        out["leader"][pop] = _top(_family(summary, "skill_mix", pop))
        out["source"][pop] = _top(_family(summary, "skill_decisive", pop))
    return out


def _half_se(m: dict) -> float:
    return (m["ci_high"] - m["ci_low"]) / (2 * stats.Z95)


def edges_apart(a: dict, b: dict) -> bool:
    """Whether two populations' edge estimates differ by more than their combined 95% margin (different games:
    independent estimates, each margin read off its interval, combined in quadrature)."""
    ma, mb = a["metric"], b["metric"]
    return abs(ma["estimate"] - mb["estimate"]) > stats.Z95 * math.hypot(_half_se(ma), _half_se(mb))


def compare(summary: dict) -> list[dict]:
    """One row per (conclusion, stronger population): {conclusion, population, status, base, other}; MISSING
    where either reading is (a population without games, or no hand-written reading)."""
    read = readings(summary)
    rows = []
    for conclusion in CONCLUSIONS:
        base = read[conclusion][HAND]
        for pop in STRONGER:
            other = read[conclusion][pop]
            if base is None or other is None:
                status = MISSING
            elif conclusion == "edge":
                status = (HOLDS if base["verdict"] == other["verdict"] else
                          CHANGES if edges_apart(base, other) else UNCLEAR)
            else:  # a leader or a source: definite in both, then the same one or not
                status = (UNCLEAR if not (base["definite"] and other["definite"]) else
                          HOLDS if base["name"] == other["name"] else CHANGES)
            rows.append({"conclusion": conclusion, "population": pop, "status": status, "base": base, "other": other})
    return rows


def present(summary: dict, pop: str) -> bool:
    return any(key.startswith(f"skill_{what}[{pop}]") for key in summary for what in ("edge", "mix", "decisive"))


# ---- words ----------------------------------------------------------------------------------------------------
def pct(x: float) -> str:
    return percent.pct(x)


def ci_text(m: dict) -> str:
    return percent.ci(m)


def describe(conclusion: str, reading: dict | None, labels: dict | None = None) -> str:
    """One population's reading in words (a table cell)."""
    if reading is None:
        return "n/a"
    if conclusion == "edge":
        m = reading["metric"]
        return (f"{m.get('what', 'the position')}: {pct(m['estimate'])} ({ci_text(m)}, fair {pct(m.get('fair', .5))}, "
                f"n={m.get('n', 0):,}): {VERDICT_WORDS[reading['verdict']]}")
    name = (labels or {}).get(reading["name"], reading["name"]) if conclusion == "source" else reading["name"]
    m = reading["metric"]
    text = f"{name} {pct(m['estimate'])} ({ci_text(m)})"
    if reading["second"] is not None:
        second = reading["second"]
        second = (labels or {}).get(second, second) if conclusion == "source" else second
        text += (f"; next {second} {pct(reading['second_metric']['estimate'])}"
                 + ("" if reading["definite"] else ", not told apart"))
    return text


def _where(row: dict) -> str:
    pop = row["population"]
    return f"once {JOIN[pop]} join the field" if row["conclusion"] == "leader" else f"in {WORDS[pop]}"


def _base_where(row: dict) -> str:
    return "among hand-written heuristics" if row["conclusion"] == "leader" else "with hand-written heuristics"


def _row_sentence(row: dict, labels: dict | None) -> str:
    what = CONCLUSIONS[row["conclusion"]]
    if row["status"] == MISSING:
        why = ("no such games" if row["other"] is None and row["base"] is not None else
               "no equilibrium mix among hand-written heuristics: fewer than two of them played, or two never "
               "met" if row["conclusion"] == "leader" else
               "no reading among hand-written heuristics")
        return f"{what}: no comparison {_where(row)} ({why})"
    return _phrase(row, labels) + {HOLDS: ": it holds", CHANGES: ": it changes"}.get(
        row["status"], ": the intervals do not settle it")


def missing_words(summary: dict) -> str:
    """What the run lacks to check its conclusions, in words ("" when it has tuned games)."""
    if not present(summary, HAND):
        return ("This run has no games between hand-written heuristics only, so there is no baseline to check "
                "against stronger play.")
    if present(summary, TUNED):
        return ""
    return ("This run has no tuned mirror games (every seat the evolved `tuned`), so its conclusions are measured "
            "among hand-written heuristics only and say nothing yet about stronger play: `-s all` plays `tuned` "
            "where the game's defaults have it.")


def section(summary: dict, labels: dict | None = None) -> dict:
    """The report section "Conclusions across skill": a table of the three conclusions by population and, in
    words, which hold and which change (labels: the decisive sources' plain names)."""
    rows = compare(summary)
    read = readings(summary)
    pops = [HAND] + [p for p in STRONGER if present(summary, p)]
    if len(pops) == 1:
        return {"title": "Conclusions across skill", "text": missing_words(summary)}
    body = []
    for conclusion, what in CONCLUSIONS.items():
        verdicts = "; ".join(f"{WORDS[r['population']]}: {r['status']}" for r in rows
                             if r["conclusion"] == conclusion and r["population"] in pops[1:])
        body.append([what, *(describe(conclusion, read[conclusion][p], labels) for p in pops),
                     verdicts or "no stronger play"])
    table = html_table(["conclusion", *(HEADERS[p] for p in pops), "across skill"], body)
    text = ("Are the headline conclusions properties of the game or of our weak bots? Each is read among "
            "hand-written heuristics and again where every seat plays stronger; the dominant strategy is the "
            "leader of the equilibrium mix of the field those players join. 'Holds' only when both intervals say "
            "the same; 'changes' only when they say different things.")
    said = [_row_sentence(r, labels) for r in rows if r["population"] in pops[1:]]
    if said:
        text += " " + " ".join(s[:1].upper() + s[1:] + "." for s in said)
    lacking = missing_words(summary)
    if lacking:
        text += " " + lacking
    if SEARCH not in pops and present(summary, TUNED):
        text += search_words(summary.get("game"), summary.get("players"))
    return {"title": "Conclusions across skill", "text": text, "html": table}


def search_command(game, players) -> str | None:
    """A `run` command that gives this game search-only games, from the registry and the game's presets: its
    cheapest search player (`expert-fast` where there is one) with a heuristic, round-robin for two players;
    with more players search players are the whole table (the only way every seat searches). None without one."""
    try:
        defs = registered(game)
        presets = load_defaults(get_game(game).package).get("strategies", {})
    except (KeyError, UserError, FileNotFoundError, ModuleNotFoundError, TypeError):
        return None
    search = {d.name for d in defs if d.search}
    names = sorted(search | {n for n, p in presets.items() if isinstance(p, dict) and p.get("base") in search})
    if not names:
        return None
    player = "expert-fast" if "expert-fast" in names else names[0]
    if players == 2:
        heuristics = [d.name for d in defs if not d.search and d.round_robin and d.name != "random"]
        hand = "greedy" if "greedy" in heuristics else heuristics[0] if heuristics else None
        return f"balance-sim run {game} -n 400 -s {player},{hand} --round-robin -j 2" if hand else None
    return f"balance-sim run {game} -p {players} -n 400 -s {player} -j 2"


def search_words(game, players) -> str:
    """The section's closing advice when a run has no search-only games ("" when the game has no search player)."""
    command = search_command(game, players) if isinstance(players, int) else None
    if command is None:
        return ""
    if players == 2:
        return f" No search-player games: `{command}` plays them, to check against search play too."
    return (f" No search-player games: with {players} players every seat searches only in a run of search players "
            f"alone, `{command}`; set its report's edge and decisive sources beside these.")


def _short(conclusion: str, reading: dict, labels: dict | None, ci: bool = False) -> str:
    m = reading["metric"]
    interval = f" ({ci_text(m)})" if ci else ""
    if conclusion == "edge":
        return pct(m["estimate"]) + interval
    name = (labels or {}).get(reading["name"], reading["name"]) if conclusion == "source" else reading["name"]
    if not ci:  # the Findings' short form: the name alone
        return name
    if conclusion == "leader":
        text = f"{name} at {m['estimate']:.0%} of the mix{interval}"
    else:
        text = f"{name}, {pct(m['estimate'])}{interval}"
    if not reading["definite"]:
        second = reading["second"]
        second = (labels or {}).get(second, second) if conclusion == "source" else second
        text += f", not told apart from {second}"
    return text


def _phrase(row: dict, labels: dict | None) -> str:
    what = CONCLUSIONS[row["conclusion"]]
    a, b = (_short(row["conclusion"], row[k], labels, ci=True) for k in ("base", "other"))
    if row["conclusion"] == "edge":
        m = row["base"]["metric"]
        what = f"{what} ({m.get('what', 'the position')}, fair {pct(m.get('fair', .5))})"
        a += f", {VERDICT_WORDS[row['base']['verdict']]}"
        b += f", {VERDICT_WORDS[row['other']['verdict']]}"
        if row["status"] == HOLDS and edges_apart(row["base"], row["other"]):
            b += " (the same verdict, at a size that differs by more than the intervals allow)"
    return f"{what}: {_base_where(row)} {a}; {_where(row)} {b}"


def finding(summary: dict, labels: dict | None = None) -> dict | None:
    """analysis.findings' sentence on it: which conclusions change and which hold with stronger play, or that
    the run cannot check them. None when there is nothing to say (no hand-written games)."""
    if not present(summary, HAND):
        return None
    rows = [r for r in compare(summary) if r["status"] != MISSING]
    if not rows:
        return {"id": "across_skill", "rank": 20, "text": missing_words(summary),
                "figure": "skill_edge[hand-written]", "section": "skill"}
    changed = [r for r in rows if r["status"] == CHANGES]
    held = [r for r in rows if r["status"] == HOLDS]
    unclear = [r for r in rows if r["status"] == UNCLEAR]

    def listed(part, detail):
        """By conclusion, each with its populations: by name, or with the readings (detail)."""
        out = []
        for conclusion in CONCLUSIONS:
            mine = [r for r in part if r["conclusion"] == conclusion]
            if not mine:
                continue
            if detail:  # the hand-written reading once, then each stronger population's
                first = mine[0]
                parts = [f"{_short(conclusion, first['base'], labels)} {_base_where(first)}"]
                parts += [f"{_short(conclusion, r['other'], labels)} {_where(r)}" for r in mine]
                out.append(f"{CONCLUSIONS[conclusion]} ({', '.join(parts)})")
            else:
                out.append(f"{CONCLUSIONS[conclusion]} ({', '.join(WORDS[r['population']] for r in mine)})")
        return "; ".join(out)

    if changed:  # short enough for the Findings box: the changes in detail, the rest by name
        text, rank = f"Stronger play changes {listed(changed, True)}", 70
        if held:
            text += f"; it leaves {listed(held, False)} unchanged"
    elif held:
        text, rank = f"Stronger play leaves {listed(held, True)} unchanged", 52
    else:
        text, rank = "With stronger play, these games settle none of the headline conclusions either way", 40
    if unclear and (changed or held):
        text += f"; not settled: {listed(unclear, False)}"
    text += "."
    first = (changed or held or unclear)[0]
    pop, other = first["population"], first["other"]
    figure = {"edge": f"skill_edge[{pop}]", "leader": f"skill_mix[{pop}][{other.get('name')}]",
              "source": f"skill_decisive[{pop}][{other.get('name')}]"}[first["conclusion"]]
    out = {"id": "across_skill", "rank": rank, "text": text, "figure": figure, "section": "skill"}
    out.update({k: other["metric"].get(k) for k in ("estimate", "ci_low", "ci_high")})
    return out


def closing_sections(summary: dict, labels: dict, *sections) -> list[dict]:
    """A game report's last sections: those given that apply (not None), then the conclusions across skill where the
    summary has them."""
    out = [s for s in sections if s is not None]
    if present(summary, HAND):
        out.append(section(summary, labels))
    return out
