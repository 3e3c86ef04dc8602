"""How the answers move with skill: do a report's seat edge and top lever survive stronger play? Each is read on
mirror games of hand-written play styles (`HAND`), again of evolved (`TUNED`) and of search (`SEARCH`) players, by
analysis.conclusions' own procedures, and a change is called only when the two sizes differ beyond noise (a test
of the difference). Evolved and search players are the skill reference, never play styles a designer tunes;
populations and verdicts: docs/evolve.md ("conclusions checked across skill"), docs/findings.md.
"""
from __future__ import annotations

import re

import numpy as np

from analysis import conclusions as C, edges, models, stats
from analysis.common import head_to_head
from analysis.markup import markup, table as html_table
from analysis.skill import search_names
from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from sim.registry import registered

HAND, TUNED, SEARCH, MIXED = "hand-written", "tuned", "search", "mixed"
STRONGER = (TUNED, SEARCH)
HOLDS, CHANGES, UNCLEAR, MISSING = "holds", "changes", "unclear", "missing"
EVOLVED_SUFFIX = "-evolved"  # the preset `evolve` writes (analysis.evolve_page.preset_name)
WORDS = {HAND: "hand-written play", TUNED: "tuned (evolved) play", SEARCH: "search-player play"}
HEADERS = {HAND: "hand-written play styles: their mirror games", TUNED: "tuned (evolved): its mirror games",
           SEARCH: "search players: their mirror games"}
CONCLUSIONS = {"edge": "the seat edge", "source": "the top lever"}
_DECISIVE = re.compile(r"decisive_rate(\[[^\[\]]+\](?:\[(?:certain|ambiguous)\])?)")


# ---- who is which skill ---------------------------------------------------------------------------------------
def evolvable_bases(game: str) -> set[str]:
    """The registry's players that play only through their presets: registered neither as a search player nor
    for `-s all` (`round_robin=False`), a parameter vector whose presets hold weights a search set (`weighted`)."""
    try:
        return {d.name for d in registered(game) if not d.search and not d.round_robin}
    except Exception:  # a game without strategies package: no evolved players
        return set()


def tuned_names(meta: dict) -> set[str]:
    """The run's evolved strategies: every preset of an evolvable base (`evolvable_bases`: `tuned` and any other
    preset of `weighted`, not `weighted` played with its own defaults) and `evolve`'s `<strategy>-evolved`."""
    bases = evolvable_bases(meta.get("game", ""))
    named = [(s.get("name", ""), s.get("base", s.get("name", ""))) for s in meta.get("strategies", [])]
    return {name for name, base in named if (base in bases and name != base) or name.endswith(EVOLVED_SUFFIX)}


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
    (rows of `strategy`), `keys` the mix's head-to-head keys, what(k) position k in words. Per population:
    `skill_seat[pop][k]` every position's rate (`skill_edge[pop]`: the one furthest from `fair` in the first
    population measured), `skill_decisive[pop][source]` over its games, `skill_lever[pop][source]` (with its
    `[certain]` and `[ambiguous]` parts) and `skill_lever_lead[pop]` over its mirror games, `skill_mix[pop][s]` over
    the field it joins."""
    if stats.is_aggregating() or not len(strategy):
        return {}
    level = populations(strategy, names, kind)
    mirror = edges.is_mirror(np.asarray(strategy))
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
            for k, m in enumerate(rates):
                out[f"skill_seat[{pop}][{k}]"] = {**m, "fair": fair, "what": what(k)}
        if compared:  # every game of the population (as before), and its mirror games (the section's lever)
            found = decisive(mask)
            for key, m in found.items():
                source = _DECISIVE.fullmatch(key)
                if source and m.get("estimate") is not None and "[" not in source.group(1)[1:]:
                    out[f"skill_decisive[{pop}]{source.group(1)}"] = m
            if (mask & mirror).any():
                mirrored = found if not (mask & ~mirror).any() else decisive(mask & mirror)
                for key, m in mirrored.items():
                    source = _DECISIVE.fullmatch(key)
                    if source and m.get("estimate") is not None:
                        out[f"skill_lever[{pop}]{source.group(1)}"] = m
                    elif key == "decisive_lead":
                        out[f"skill_lever_lead[{pop}]"] = m
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
    return C.finite(m)


def _seat_family(summary: dict, pop: str) -> list[dict]:
    """A population's seat figures as analysis.conclusions' family rows (`skill_seat`, else the one `skill_edge`
    of summaries written before it)."""
    pattern = re.compile(re.escape(f"skill_seat[{pop}][") + r"(\d+)\]")
    rows = sorted(((int(match.group(1)), key, m) for key, m in summary.items()
                   if (match := pattern.fullmatch(key)) and C.finite(m)), key=lambda r: r[0])
    if rows and len(rows) == rows[-1][0] + 1:
        return [{**m, "key": key, "words": m.get("what") or f"position {k}"} for k, key, m in rows]
    m = C.finite(summary.get(f"skill_edge[{pop}]"))
    return [{**m, "key": f"skill_edge[{pop}]", "words": m.get("what") or "the position"}] if m else []


def readings(summary: dict, labels: dict | None = None, unit: str = "games") -> dict[str, dict[str, dict | None]]:
    """{conclusion: {population: analysis.conclusions object or None}}: each population's seat edge and top lever,
    by the procedures the report's own conclusions use."""
    out = {c: {} for c in CONCLUSIONS}
    for pop in (HAND, *STRONGER):
        rows = _seat_family(summary, pop)
        fair = rows[0].get("fair", 0.5) if rows else 0.5
        edge = C.edge_of([{"rows": rows, "fair": fair}]) if rows else None
        if edge:
            edge.update(population=f"{WORDS[pop]}, mirror games ({edge['n']:,})", family=rows)
        out["edge"][pop] = edge
        lever = C.top_lever(summary, labels, unit, prefix=f"skill_lever[{pop}]", lead_key=f"skill_lever_lead[{pop}]")
        if lever:
            lever["population"] = f"{WORDS[pop]}, mirror {unit} ({lever['n']:,})"
        out["source"][pop] = lever
    return out


def _apart(a: dict, b: dict) -> float:
    """p-value that two independent estimates (each a metric with a 95% interval) are equal: a z test."""
    return stats.same_shares_p([a], [b])


def compare(summary: dict, labels: dict | None = None, unit: str = "games") -> list[dict]:
    """One row per (conclusion, stronger population): {conclusion, population, status, base, other, p, p_holm}.
    Holds only when both say the same and their sizes agree (the test of the difference, `p`, at 5%); changes
    when the sizes differ after Holm over every comparison of the run (`p_holm`: two to four tests, so one of them
    at p = 0.03 is what fair play gives by chance), and for the seat edge only when a level shows an edge to move
    (two readings within noise of fair seats differ by noise, not by an edge); or when each names a different
    lever, both told apart. Unclear otherwise; missing where either reading is."""
    read = readings(summary, labels, unit)
    rows = []
    for conclusion in CONCLUSIONS:
        base = read[conclusion][HAND]
        for pop in STRONGER:
            other = read[conclusion][pop]
            p = float("nan")
            if base is not None and other is not None:
                if conclusion == "edge":
                    p = stats.same_shares_p(base["family"], other["family"]) \
                        if len(base["family"]) == len(other["family"]) else float("nan")
                elif base["source"] == other["source"]:
                    p = _apart(base, other)
            rows.append({"conclusion": conclusion, "population": pop, "base": base, "other": other, "p": p})
    for row, adjusted in zip(rows, stats.holm([r["p"] for r in rows])):
        row["p_holm"], row["tests"] = adjusted, sum(r["p"] == r["p"] for r in rows)
        row["status"] = _status(row)
    return rows


def _status(row: dict) -> str:
    base, other, p, p_holm = row["base"], row["other"], row["p"], row["p_holm"]
    if base is None or other is None:
        return MISSING
    if row["conclusion"] == "edge":
        if p_holm < C.ALPHA and C.REAL in (base["verdict"], other["verdict"]):
            return CHANGES
        return HOLDS if p >= C.ALPHA and base["verdict"] == other["verdict"] != C.TOO_FEW else UNCLEAR
    if base["verdict"] == C.REAL and other["verdict"] == C.REAL and base["source"] != other["source"]:
        return CHANGES
    if base["source"] == other["source"]:
        return CHANGES if p_holm < C.ALPHA else HOLDS if p >= C.ALPHA and base["verdict"] == other["verdict"] == \
            C.REAL else UNCLEAR
    return UNCLEAR


def moved(row: dict) -> tuple[str, dict, dict] | None:
    """The seat figure a seat-edge row compares, the same position at both levels: (its words, hand-written,
    stronger), the position whose share differs most where the row changes, else the hand-written edge's own;
    None for a lever row or families that do not match."""
    base, other = row["base"], row["other"]
    if row["conclusion"] != "edge" or base is None or other is None:
        return None
    a, b = base.get("family") or [], other.get("family") or []
    if not a or len(a) != len(b):
        return None
    if row["status"] == CHANGES:
        k = max(range(len(a)), key=lambda i: abs(b[i]["estimate"] - a[i]["estimate"]))
    else:
        k = next((i for i, m in enumerate(a) if m.get("key") == base["figure"]), 0)  # its leading seat
    return a[k]["words"], a[k], b[k]


def _test_text(row: dict) -> str:
    if row["p"] != row["p"]:
        return ""
    holm = f"; Holm over {row['tests']} comparisons, {C.p_text(row['p_holm'])}" if row["tests"] > 1 else ""
    return f", difference {C.p_text(row['p'])}{holm}"


def present(summary: dict, pop: str) -> bool:
    return any(key.startswith(f"skill_{what}[{pop}]") for key in summary
               for what in ("edge", "seat", "mix", "decisive", "lever"))


# ---- the conclusion and its words -------------------------------------------------------------------------------
pct, ci_text = C.pct, C.ci_text


def missing_words(summary: dict) -> str:
    """What the run lacks to check its conclusions, in words ("" when it has tuned games)."""
    if not present(summary, HAND):
        return ("This run has no games between hand-written play styles only, so there is no baseline to check "
                "against stronger play.")
    if present(summary, TUNED):
        return ""
    return ("This run has no tuned mirror games (every seat the evolved `tuned`), so its conclusions are measured "
            "among hand-written play styles only and say nothing yet about stronger play: `-s all` plays `tuned` "
            "where the game's defaults have it.")


def conclusion(summary: dict, labels: dict | None = None, unit: str = "games") -> dict | None:
    """The conclusion "how the answers move with skill" (analysis.conclusions' form, id `skill`): REAL when
    stronger play moves the seat edge or the top lever beyond noise, NOISE when it moves neither (each holds or
    is not settled), TOO_FEW when the run has no stronger play to check; None without hand-written games."""
    if not present(summary, HAND):
        return None
    rows = [r for r in compare(summary, labels, unit) if r["status"] != MISSING]
    if not rows:
        out = C.make("skill", C.TOO_FEW, "skill_edge[hand-written]", "skill", "hand-written mirror games only", None,
                     rows=[], missing=missing_words(summary))
        out["text"] = render(out)
        return out
    changed = [r for r in rows if r["status"] == CHANGES]
    first = (changed or rows)[0]
    out = C.make("skill", C.REAL if changed else C.NOISE, first["other"]["figure"], "skill",
                 "mirror games at each level of skill", first["other"], rows=rows, missing="")
    out["text"] = render(out)
    return out


def _says(c: dict) -> str:
    """A population's reading, short (a table cell, a clause): the verdict, the size, the interval."""
    if c is None:
        return "n/a (no such games)"
    if c["id"] == "seat_edge":
        top = c["top"] if not c["single"] else c
        return (f"{c['words']} {pct(top['estimate'])} ({ci_text(top)}, fair {pct(c['fair'])}, {C.p_text(c['p'])}): "
                f"{c['verdict']}")
    size = c["certain"] if c["split"] else c
    text = f"{c['label']} {pct(size['estimate'])}{' surely' if c['split'] else ''} ({ci_text(size)})"
    if c["next"] is not None:
        text += ("; next " if c["verdict"] == C.REAL else "; not told apart from ") + c["next_label"]
    return text


def render_row(row: dict) -> str:
    what = CONCLUSIONS[row["conclusion"]]
    where = WORDS[row["population"]]
    if row["status"] == MISSING:
        why = "no such games" if row["other"] is None and row["base"] is not None else "no hand-written reading"
        return f"{what}: no comparison in {where} ({why})"
    verdict = {HOLDS: "it holds, at sizes that agree", CHANGES: "it changes, beyond noise",
               UNCLEAR: "the games do not settle it"}[row["status"]]
    same = moved(row)
    seat = (f"; {same[0]} {pct(same[1]['estimate'])} ({ci_text(same[1])}) in hand-written play, "
            f"{pct(same[2]['estimate'])} ({ci_text(same[2])}) in {where}"
            if same and not row["base"]["single"] else "")
    return (f"{what}: in hand-written play {_says(row['base'])}; in {where} {_says(row['other'])}{seat} "
            f"({verdict}{_test_text(row)})")


def _brief(c: dict, ci: bool, named: str = "") -> str:
    """A population's reading in a few words (the Findings' sentence): the seat or lever (unless it is `named`
    already) and its size."""
    if c["id"] == "seat_edge":
        m, name = (c if c["single"] else c["top"]), c["words"]
    else:
        m, name = (c["certain"] if c["split"] else c), c["label"]
    return ("" if name == named else name + " ") + pct(m["estimate"]) + (f" ({ci_text(m)})" if ci else "")


def _name(c: dict) -> str:
    return c["words"] if c["id"] == "seat_edge" else c["label"]


def brief_row(row: dict) -> str:
    """A row in a few words: a seat edge by one position at both levels (`moved`), a lever by each level's own."""
    where, test = WORDS[row["population"]], _test_text(row)
    same = moved(row)
    if same:
        words, a, b = same
        return (f"{CONCLUSIONS[row['conclusion']]} ({words} {pct(a['estimate'])} in hand-written play, "
                f"{pct(b['estimate'])} ({ci_text(b)}) in {where}{test})")
    return (f"{CONCLUSIONS[row['conclusion']]} ({_brief(row['base'], False)} in hand-written play, "
            f"{_brief(row['other'], True, _name(row['base']))} in {where}{test})")


def render(c: dict) -> str:
    """The conclusion's sentence, short enough for the Findings (the section says each row in full)."""
    if c["verdict"] == C.TOO_FEW:
        return c["missing"]
    rows = c["rows"]

    def listed(status):
        return "; ".join(f"{CONCLUSIONS[r['conclusion']]} in {WORDS[r['population']]}" for r in rows
                         if r["status"] == status)

    changed = [r for r in rows if r["status"] == CHANGES]
    if changed:
        text = "Stronger play moves " + "; ".join(brief_row(r) for r in changed)
        if listed(HOLDS):
            text += f"; it leaves {listed(HOLDS)} unchanged"
    elif listed(HOLDS):
        text = "Stronger play leaves " + "; ".join(brief_row(r) for r in rows if r["status"] == HOLDS) + " unchanged"
    else:
        text = "With stronger play, these games settle neither the seat edge nor the top lever either way"
    if listed(UNCLEAR) and (changed or listed(HOLDS)):
        text += f"; not settled: {listed(UNCLEAR)}"
    return text + "."


def section(summary: dict, labels: dict | None = None, unit: str = "games", gap_note: str = "") -> dict:
    """The report section "How the answers move with skill": the seat edge and the top lever on mirror games at
    each level of skill, the sentence of the `skill` conclusion, and the skill gap (search players against the
    hand-written styles); one per report, in place of the former "Skill" and "across skill" sections."""
    c = conclusion(summary, labels, unit)
    read = readings(summary, labels, unit)
    pops = [HAND] + [p for p in STRONGER if present(summary, p)]
    title = "How the answers move with skill"
    intro = ("Are the seat edge and the top lever properties of the game or of weak play? Each is measured on "
             "mirror games (every seat the same player) of the hand-written play styles and again of our evolved "
             "and search players, which are the skill reference, not styles to rebalance. 'Holds' needs the same "
             "verdict and sizes that agree (a test of the difference); 'changes' needs sizes that differ beyond "
             "noise. ")
    gaps = {k[len("skill_gap["):-1]: m for k, m in summary.items() if k.startswith("skill_gap[") and C.finite(m)}
    gap_table = html_table(
        ["skill gap: search player against a hand-written style", f"its win rate{f' ({gap_note})' if gap_note else ''}"],
        [[pair, f"{pct(m['estimate'])} ({ci_text(m)}, n={m.get('n') or 0:,})"] for pair, m in sorted(gaps.items())])
    if c is None or c["verdict"] == C.TOO_FEW:  # nothing to compare at equal skill: the skill gap still reads
        out = {"title": title, "text": intro + (c["missing"] if c else missing_words(summary))}
        return {**out, "html": gap_table} if gaps else out
    text = intro + render(c) + "".join(" " + render_row(r)[:1].upper() + render_row(r)[1:] + "."
                                         for r in c["rows"])  # each row in full, with both intervals
    if SEARCH not in pops:
        text += search_words(summary.get("game"), summary.get("players")) or (
            " No search-player games: name a search player with -s to check against search play too.")
    body = []
    for key, what in CONCLUSIONS.items():
        verdicts = "; ".join(f"{WORDS[r['population']]}: {r['status']}" for r in c["rows"] if r["conclusion"] == key)
        body.append([what, *(_says(read[key][p]) for p in pops), verdicts or "missing"])
    table = html_table(["conclusion", *(HEADERS[p] for p in pops), "across skill"], body)
    if gaps:
        table = markup(table, gap_table)
    return {"title": title, "text": text, "html": table}


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


def closing_sections(summary: dict, labels: dict, *sections, unit: str = "games", gap_note: str = "") -> list[dict]:
    """A game report's last sections: those given that apply (not None), then "How the answers move with skill"
    where the summary has hand-written games."""
    out = [s for s in sections if s is not None]
    if present(summary, HAND) or any(k.startswith("skill_gap[") for k in summary):  # a skill gap reads alone too
        out.append(section(summary, labels, unit, gap_note))
    return out
