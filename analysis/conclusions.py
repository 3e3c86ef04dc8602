"""Conclusions: one object per question a designer asks of a run, computed once from its summary by one tested
procedure, and said by `render` on every page that states it (Findings, report sections, compare, summary.json's
`conclusions`). Each: {id, verdict, estimate, ci_low, ci_high, n, population, figure, section, ...details}, the
verdict one of REAL, NOISE, TOSS_UP, TOO_FEW; docs/findings.md lists them.

Error control (docs/findings.md, "conclusions"): a seat gap is real only when a test across the seats rejects
fair seats (chi-square goodness of fit on mirror games' wins, Holm over the seat families a game has: starter,
seat, position), the seat named by Holm; the top lever leads the next only when their paired difference on the
same games excludes 0; an equilibrium weight whose interval spans most of 0-100% is a toss-up.
"""
from __future__ import annotations

import math
import re

from analysis import stats, percent
from analysis.models import MIN_MODEL_GAMES, TOSS_UP_SPAN

REAL, NOISE, TOSS_UP, TOO_FEW = "real", "within noise", "toss-up", "too few games"
ALPHA = 0.05
MIN_EXPECTED = 5  # a chi-square needs about 5 expected wins a seat; fewer: "too few games"
DOMINANT_WEIGHT = 0.99  # an equilibrium weight this close to 1: one style takes the whole mix
HAND, TUNED, SEARCH = "hand-written", "tuned", "search"  # analysis.across_skill's populations (strategy_kinds)


def finite(m) -> dict | None:
    """A summary figure whose estimate and interval are finite numbers, else None (absent or damaged)."""
    if not isinstance(m, dict):
        return None
    values = [m.get(f) for f in ("estimate", "ci_low", "ci_high")]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) for v in values):
        return None
    return m


def indexed(summary: dict, prefix: str) -> dict[str, dict]:
    """`prefix[<name>]` figures with exactly one bracket (not `[mirror=...]` or `[certain]` variants)."""
    pattern = re.compile(re.escape(prefix) + r"\[([^\[\]]+)\]")
    return {match.group(1): summary[key] for key in summary
            if (match := pattern.fullmatch(key)) and finite(summary[key])}


def pct(x: float) -> str:
    return percent.pct(x)  # as many decimals as a small share needs to show (3 of 68,885: 0.004%)


def ci_text(m: dict) -> str:
    return percent.ci(m)


def p_text(p: float) -> str:
    if p != p:
        return "p n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}"


def make(cid: str, verdict: str, figure: str, section: str, population: str, m: dict | None, **details) -> dict:
    out = {"id": cid, "verdict": verdict, "figure": figure, "section": section, "population": population}
    out.update({k: (m or {}).get(k) for k in ("estimate", "ci_low", "ci_high", "n")})
    out.update(details)
    return out


# ---- the seat, position or starter edge ----------------------------------------------------------------------
TWO_SEAT = {  # Mohur's figures: each a rate whose fair value is 50%
    "first_player_round_win_rate": "the trader who starts a round wins it",
    "first_player_match_win_rate": "the trader who starts the match wins it",
    "seat0_match_win_rate": "seat 0 wins the match",
}
ORDINAL = {1: "the player after the round-1 first player", 2: "the player two seats after",
           3: "the player three seats after"}
MODEL = stats.MODEL


def position_words(prefix: str, k: int) -> str:
    if prefix == "seat_win_rate":
        return f"the player in seat {k}"
    if k == 0:
        return "the round-1 first player"
    return ORDINAL.get(k, f"the player {k} seats after the round-1 first player")


def _seat_families(summary: dict) -> list[dict]:
    out = []
    for key, words in TWO_SEAT.items():
        m = finite(summary.get(key))
        if m:
            out.append({"rows": [{**m, "key": key, "words": words}], "fair": 0.5})
    for prefix in ("position_win_rate", "seat_win_rate"):
        rows = indexed(summary, prefix)
        if len(rows) >= 2 and all(k.isdigit() for k in rows):
            out.append({"rows": [{**m, "key": f"{prefix}[{k}]", "words": position_words(prefix, int(k))}
                                 for k, m in sorted(rows.items(), key=lambda kv: int(kv[0]))],
                        "fair": 1 / len(rows)})
    return out


def _too_few(family: dict) -> bool:
    rows = family["rows"]
    if any(r.get("population") == MODEL for r in rows):
        return any((r.get("n") or 0) < MIN_MODEL_GAMES for r in rows)
    return min(int(r.get("n") or 0) for r in rows) * min(family["fair"], 1 - family["fair"]) < MIN_EXPECTED


def seat_edge(summary: dict) -> dict | None:
    """The seat (or position, or starting player) conclusion of a run (`edge_of` on the summary's families)."""
    return edge_of(_seat_families(summary))  # `edge_of` as wrapped below: with its sentence


def edge_of(families: list[dict]) -> dict | None:
    """The edge conclusion over seat families ({rows: metrics with key and words, fair}): each family's omnibus
    p, Holm-adjusted over the families; the conclusion is the real family with the largest gap from fair, else
    the family with the largest gap (said as noise)."""
    if not families:
        return None
    for f in families:
        f["p"], f["test"] = stats.fair_shares_p(f["rows"], f["fair"])
        f["gap"] = max(abs(r["estimate"] - f["fair"]) for r in f["rows"])
    for f, p in zip(families, stats.holm([f["p"] for f in families])):
        f["p_adjusted"] = p
        f["too_few"] = _too_few(f)
        f["real"] = not f["too_few"] and p == p and p < ALPHA
    real = [f for f in families if f["real"]]
    chosen = max(real or [f for f in families if not f["too_few"]] or families, key=lambda f: f["gap"])
    rows, fair = chosen["rows"], chosen["fair"]
    seat_p = stats.holm([stats.p_fair(r, fair) for r in rows]) if len(rows) > 1 else [chosen["p_adjusted"]]
    ranked = sorted(range(len(rows)), key=lambda i: -rows[i]["estimate"])
    top, low = rows[ranked[0]], rows[ranked[-1]]
    verdict = REAL if chosen["real"] else TOO_FEW if chosen["too_few"] else NOISE
    pop = top.get("population") or "every game"
    population = (f"mirror games, n={top['n']:,}" if pop == "mirror" else
                  f"a model at equal skill, n={top['n']:,}" if pop == MODEL else f"every game, n={top['n']:,}")
    standing = [rows[i]["words"] for i in ranked if seat_p[i] == seat_p[i] and seat_p[i] < ALPHA]
    every = [{"key": f["rows"][0]["key"], "words": f["rows"][0]["words"], **_metric_of(f["rows"][0]), "p": f["p"],
              "p_adjusted": f["p_adjusted"], "verdict": REAL if f["real"] else TOO_FEW if f["too_few"] else NOISE}
             for f in families if len(f["rows"]) == 1]  # the two-seat figures, each said by render_figure
    lead = top if len(rows) > 1 else rows[0]
    return make("seat_edge", verdict, lead["key"], "seats", population, lead, fair=fair,
                 words=lead["words"], low_words=low["words"], low=_metric_of(low), top=_metric_of(top),
                 seats=len(rows) if len(rows) > 1 else 2, single=len(rows) == 1, spread=top["estimate"] - low["estimate"],
                 p=chosen["p"], p_adjusted=chosen["p_adjusted"], test=chosen["test"], families=len(families),
                 standing_out=standing, equal_skill=bool(pop in ("mirror", MODEL)), two_seat=every)


def tested_families(summary: dict) -> dict[str, dict]:
    """Every seat family of the summary with the verdict `seat_edge` gives it (`real`, `fair`, `p_adjusted`:
    the omnibus test, Holm over the families), by each of its figures' keys: the edges analysis.strata splits,
    so no page locates an edge the seat section calls noise, nor calls one the Findings state "not real"."""
    families = _seat_families(summary)
    if families:
        edge_of(families)  # sets each family's `real`
    return {r["key"]: f for f in families for r in f["rows"]}


def _metric_of(m: dict) -> dict:
    return {k: m.get(k) for k in ("estimate", "ci_low", "ci_high", "n")}


def render_figure(c: dict, key: str) -> str:
    """One two-seat figure of the seat conclusion (Mohur's round starter, match starter, seat 0), with the
    verdict the conclusion's error control gives it ("" when the conclusion does not hold that figure)."""
    f = next((f for f in c.get("two_seat", []) if f["key"] == key), None)
    if f is None:
        return ""
    words = f["words"][:1].upper() + f["words"][1:]
    kind = "edge" if f["estimate"] > 0.5 else "handicap"
    verdict = {REAL: f"a real {kind}", NOISE: "no edge we can detect", TOO_FEW: "too few games to tell"}[f["verdict"]]
    holm_p = f", {p_text(f['p_adjusted'])} after Holm" if c["families"] > 1 else ""
    return f"{words} {pct(f['estimate'])} of the time ({ci_text(f)}, {p_text(f['p'])}{holm_p}): {verdict}."


def said(summary: dict, cid: str) -> str:
    """The sentence of the summary's conclusion `cid` ("" when it has none): how a report section states it."""
    c = conclusion_of(summary, cid)
    return c["text"] if c else ""


def sentence_on(items: list[dict] | None, figure: str) -> str:
    """What a run's conclusions say about one of its figures: the sentence of the conclusion whose figure it is
    (a two-seat figure of the seat conclusion by render_figure), "" when none speaks of it. How sweep and tune
    state a figure that is a conclusion's."""
    for c in items or []:
        if isinstance(c, dict) and c.get("figure") == figure and c.get("text"):
            return c["text"]
    for c in items or []:
        if isinstance(c, dict) and c.get("id") == "seat_edge" and any(
                f.get("key") == figure for f in c.get("two_seat") or []):
            return render_figure(c, figure)
    return ""


def conclusion_of(summary: dict, cid: str) -> dict | None:
    return next((c for c in summary.get("conclusions") or [] if isinstance(c, dict) and c.get("id") == cid), None)


def points_between(a: float, b: float) -> str:
    """a - b in points as the two shares read where the sentence prints them (40.6% and 24.9%: "15.7", not the
    15.6 of the unrounded figures), so a reader recomputes the number from the sentence."""
    places = percent.decimals(a, b)
    return f"{round(a * 100, places) - round(b * 100, places):.{places}f}"


def render_seat(c: dict) -> str:
    fair, at = c["fair"], " at equal skill" if c["equal_skill"] else ""
    test = f"{c['test']}, {p_text(c['p'])}" + (f"; Holm over {c['families']} seat figures, {p_text(c['p_adjusted'])}"
                                                if c["families"] > 1 else "")
    if c["single"]:  # one two-seat rate
        words = c["words"][:1].upper() + c["words"][1:]
        gap = (c["estimate"] - fair) * 100
        if c["verdict"] == REAL:
            kind = "edge" if gap > 0 else "handicap"
            size = points_between(max(c["estimate"], fair), min(c["estimate"], fair))
            return (f"{words} {pct(c['estimate'])} of the time{at} ({ci_text(c)}; {test}; {c['population']}): a "
                    f"real {size}-point {kind} over a fair 50%.")
        if c["verdict"] == TOO_FEW:
            return f"Too few games to tell a seat edge: {c['words']} {pct(c['estimate'])} ({ci_text(c)})."
        return (f"No seat edge we can detect: {c['words']} {pct(c['estimate'])} of the time{at} ({ci_text(c)}; "
                f"{test}; {c['population']}).")
    top, low = c["top"], c["low"]
    if c["verdict"] == REAL:
        named = (f"; Holm names {', '.join(c['standing_out'])}" if c["standing_out"] else
                 "; no single seat stands out after Holm")
        return (f"Seating matters: {c['words']} wins {pct(top['estimate'])}{at} ({ci_text(top)}) and "
                f"{c['low_words']} {pct(low['estimate'])} ({ci_text(low)}), against a fair share of {pct(fair)}: a "
                f"{points_between(top['estimate'], low['estimate'])}-point spread ({test}{named}; {c['population']}).")
    if c["verdict"] == TOO_FEW:
        return (f"Too few games to tell a seat edge: {c['seats']} seats need about {MIN_EXPECTED / fair:.0f} "
                f"games each to test, and this run has {c['n']:,}.")
    return (f"No seat edge we can detect: seats win {pct(low['estimate'])} to {pct(top['estimate'])}{at} against "
            f"a fair share of {pct(fair)}, a spread fair seats give by chance ({test}; {c['population']}).")


# ---- a leader over a rival: named, or a toss-up (the play style's mix, tune's candidates) ----------------------
def spans_most(m: dict) -> bool:
    """A share whose 95% interval spans most of 0-100% (TOSS_UP_SPAN or more): the games do not fix it."""
    return m["ci_high"] - m["ci_low"] >= TOSS_UP_SPAN


def apart(lead: dict, rival: dict, lower_is_better: bool = False) -> bool:
    """The leader's 95% interval clear of the rival's on the leader's side: the two are told apart."""
    return lead["ci_high"] < rival["ci_low"] if lower_is_better else lead["ci_low"] > rival["ci_high"]


def weight_rival(summary: dict, weights: dict[str, dict], leader: str) -> tuple[str | None, dict | None]:
    """The style a toss-up over `leader`'s equilibrium weight is between (the other whose weight could reach
    furthest) and their head-to-head figure (`leader`'s share, None where they never met)."""
    rival = max((s for s in weights if s != leader), key=lambda s: weights[s]["ci_high"], default=None)
    return rival, (_h2h(summary, leader, rival) if rival else None)


def weight_words(name: str, m: dict, mix: str) -> str:
    """"X takes 100% of <mix>, but its 95% interval runs 0%-100%": why an equilibrium weight is a toss-up."""
    return (f"{name} takes {m['estimate']:.0%} of {mix}, but its 95% interval runs {m['ci_low']:.0%}-"
            f"{m['ci_high']:.0%}")


def render_toss_up(a: str, b: str, among: str, why: str, h2h: dict | None = None, faces: tuple | None = None) -> str:
    """The one way a toss-up is said: "Toss-up between A and B<among>: <why>[; head to head X beats Y ...]." (X, Y:
    `faces`, the two styles whose games `h2h` counts, A and B by default)."""
    x, y = faces or (a, b)
    face = f"; head to head {x} beats {y} {pct(h2h['estimate'])} ({ci_text(h2h)})" if h2h else ""
    return f"Toss-up between {a} and {b}{among}: {why}{face}."


# ---- the dominant play style ---------------------------------------------------------------------------------
def styles(summary: dict) -> set[str] | None:
    """The hand-written play styles of the run (summary's `strategy_kinds`), None when the summary predates it
    (every strategy then counts as one)."""
    kinds = summary.get("strategy_kinds")
    if not isinstance(kinds, dict):
        return None
    return {name for name, kind in kinds.items() if kind == HAND}


def _h2h(summary: dict, a: str, b: str) -> dict | None:
    m = finite(summary.get(f"head_to_head[{a} vs {b}]"))
    if m:
        return m
    m = finite(summary.get(f"head_to_head[{b} vs {a}]"))
    return {**m, "estimate": 1 - m["estimate"], "ci_low": 1 - m["ci_high"], "ci_high": 1 - m["ci_low"]} if m else None


def play_style(summary: dict) -> dict | None:
    """Which hand-written play style is strongest, and whether it dominates the hand-written mix. Evolved and
    search players are the skill reference (analysis.across_skill), never contestants here."""
    hand = styles(summary)
    keep = (lambda s: s in hand) if hand is not None else (lambda s: True)
    strengths = {s: m for s, m in indexed(summary, "strength").items() if keep(s)}
    weights = {s: m for s, m in indexed(summary, f"skill_mix[{HAND}]").items()} if hand is not None else {}
    if not weights and (hand is None or set(indexed(summary, "nash_weight")) <= hand):
        weights = indexed(summary, "nash_weight")
    weights = {s: m for s, m in weights.items() if keep(s)}
    unique = summary.get("nash_unique") is not False
    others = sorted(set(summary.get("strategy_kinds") or {}) - (hand or set()))
    base = {"others": others}
    if len(strengths) >= 2:
        ranked = sorted(strengths.items(), key=lambda kv: -kv[1]["estimate"])
        (best, m), (second, m2) = ranked[0], ranked[1]
        mix = sorted(((s, w) for s, w in weights.items() if w["estimate"] >= 0.01), key=lambda kv: -kv[1]["estimate"])
        top_w = weights.get(mix[0][0]) if mix else None
        details = dict(leader=best, second=second, second_metric=_metric_of(m2), kind="strength",
                       mix=[(s, _metric_of(w)) for s, w in mix], unique=unique, **base)
        population = "every game, strengths of the hand-written styles" + (
            " (their equilibrium mix: games between hand-written styles only)" if weights else "")
        if top_w and spans_most(top_w) and unique:
            leader = mix[0][0]
            rival, h2h = weight_rival(summary, weights, leader)
            return make("play_style", TOSS_UP, f"skill_mix[{HAND}][{leader}]" if f"skill_mix[{HAND}][{leader}]"
                         in summary else f"nash_weight[{leader}]", "meta", population, top_w,
                         **{**details, "leader": leader, "second": rival, "h2h": h2h})
        if m["ci_low"] <= m2["ci_high"]:
            return make("play_style", NOISE, f"strength[{best}]", "strategies", population, m, **details)
        dominant = bool(top_w and mix[0][0] == best and top_w["estimate"] >= DOMINANT_WEIGHT and unique)
        return make("play_style", REAL, f"strength[{best}]", "strategies", population, m, dominant=dominant,
                     **details)
    field = bool(indexed(summary, "win_rate_vs_field"))
    rates = {s: m for s, m in (indexed(summary, "win_rate_vs_field") or indexed(summary, "win_rate")).items()
             if keep(s)}
    if len(rates) < 2:  # --summary-only runs have no strengths
        return None
    ranked = sorted(rates.items(), key=lambda kv: -kv[1]["estimate"])
    (best, m), (second, m2) = ranked[0], ranked[1]
    key = f"{'win_rate_vs_field' if field else 'win_rate'}[{best}]"
    population = "against the field" if field else "of its games, against the lineup this run played"
    return make("play_style", NOISE if m["ci_low"] <= m2["ci_high"] else REAL, key, "strategies", population, m,
                 leader=best, second=second, second_metric=_metric_of(m2), kind="rate", mix=[], unique=unique,
                 **base)


def _elo(m: dict) -> str:
    return f"{m['estimate']:+.0f} Elo, 95% CI {m['ci_low']:+.0f} to {m['ci_high']:+.0f}"


def render_style(c: dict) -> str:
    a, b, m2 = c["leader"], c["second"], c["second_metric"]
    ours = f" (our evolved and search players, {', '.join(c['others'])}, left out)" if c["others"] else ""
    if c["verdict"] == TOSS_UP:
        return render_toss_up(a, b, f" among the hand-written play styles{ours}",
                              weight_words(a, c, "their equilibrium mix"), c.get("h2h"))
    if c["kind"] == "rate":
        if c["verdict"] == NOISE:
            return (f"No single strongest play style{ours}: {a} wins {pct(c['estimate'])} ({ci_text(c)}) and {b} "
                    f"{pct(m2['estimate'])} ({ci_text(m2)}) {c['population']}; they cannot be told apart.")
        return (f"{a} wins most often of the play styles{ours}: {pct(c['estimate'])} {c['population']} "
                f"({ci_text(c)}); {b} next at {pct(m2['estimate'])}.")
    if c["verdict"] == NOISE:
        return (f"No single strongest play style{ours}: {a} ({_elo(c)}) and {b} ({_elo(m2)}) cannot be told apart "
                "with these games.")
    if c.get("dominant"):
        w = dict(c["mix"])[a]
        return (f"{a} dominates the hand-written play styles{ours}: strongest at {_elo(c)} ({b} next at "
                f"{m2['estimate']:+.0f}), and it takes {w['estimate']:.0%} of their equilibrium mix "
                f"({ci_text(w)}), so no other style is worth playing against them.")
    text = f"{a} is the strongest play style{ours} ({_elo(c)}), {c['estimate'] - m2['estimate']:.0f} Elo ahead of {b}"
    if len(c["mix"]) >= 2 and c["unique"]:
        text += ", but none dominates: their equilibrium mix keeps " + ", ".join(
            f"{s} {w['estimate']:.0%}" for s, w in c["mix"]) + "."
    elif not c["unique"]:
        text += "; the equilibrium mix is not unique, so no single style can be called dominant."
    else:
        text += "."
    return text


def field_toss_up(summary: dict) -> str:
    """The meta-game's mix over every strategy of the run (`nash_weight`, our evolved and search players
    included) said as the toss-up it is when its leader's interval spans most of 0-100%, with the rival and their
    head-to-head record, as `play_style` says one: "" when it is not a toss-up, the mix is not unique, or every
    strategy is a hand-written style (the play-style sentence then says it)."""
    weights = indexed(summary, "nash_weight")
    hand = styles(summary)
    others = sorted(set(summary.get("strategy_kinds") or {}) - (hand or set()))
    if len(weights) < 2 or summary.get("nash_unique") is False or hand is None or not others:
        return ""
    leader, top = max(weights.items(), key=lambda kv: kv[1]["estimate"])
    if top["ci_high"] - top["ci_low"] < TOSS_UP_SPAN:
        return ""
    rival = max((s for s in weights if s != leader), key=lambda s: weights[s]["ci_high"])
    h2h = _h2h(summary, leader, rival)
    face = f"; head to head {leader} beats {rival} {pct(h2h['estimate'])} ({ci_text(h2h)})" if h2h else ""
    return (f"Over every strategy of the run, {', '.join(others)} included, the equilibrium mix is a toss-up "
            f"between {leader} and {rival}: {leader} takes {top['estimate']:.0%} at the estimate, but its 95% "
            f"bootstrap interval runs {top['ci_low']:.0%}-{top['ci_high']:.0%}{face}.")


# ---- the top lever -------------------------------------------------------------------------------------------
def source_label(source: str, labels: dict | None = None) -> str:
    """A decisive source's plain name: the game's own label when given, else its key spelled out."""
    if labels and source in labels:
        label = labels[source]  # "diamond tokens" reads "the diamond tokens" in a sentence; "Jahan's bonus" as is
        return label if not label[:1].islower() or label.startswith("the ") else "the " + label
    for prefix, fmt in (("goods_", "the {} tokens"), ("emperor_", "{}'s bonus"), ("orders_", "{} orders"),
                        ("action_", "the {}'s action"), ("ability_", "{}'s ability")):
        if source.startswith(prefix):
            name = source[len(prefix):].replace("_", " ")
            return fmt.format(name.title() if prefix == "emperor_" else name)
    return "the " + source.replace("_", " ")


def lever_order(summary: dict, prefix: str = "decisive_rate") -> list[tuple[str, dict, dict]]:
    """[(source, rate, certain part)] in the order the data support: by the games a source surely decides (its
    `[certain]` part where a rate is split, Mohur's matches), then by its rate."""
    rates = indexed(summary, prefix)
    out = []
    for s, m in rates.items():
        certain = finite(summary.get(f"{prefix}[{s}][certain]")) or m
        out.append((s, m, certain))
    return sorted(out, key=lambda row: (-row[2]["estimate"], -row[1]["estimate"]))


def top_lever(summary: dict, labels: dict | None = None, unit: str = "games", prefix: str = "decisive_rate",
              lead_key: str = "decisive_lead") -> dict | None:
    """The source whose points decide most games, named over the next one only when their paired difference on
    the same games (`decisive_lead`: the first's certain change minus the second's possible change, game by game)
    excludes 0; without that figure (older or --summary-only runs), only when their intervals are apart."""
    ranked = lever_order(summary, prefix)
    if not ranked:
        return None
    source, m, certain = ranked[0]
    split = certain is not m
    ambiguous = finite(summary.get(f"{prefix}[{source}][ambiguous]"))
    details = dict(source=source, label=source_label(source, labels), unit=unit, split=split,
                   certain=_metric_of(certain), ambiguous=_metric_of(ambiguous) if ambiguous else None)
    figure = f"{prefix}[{source}]"
    population = f"every {unit[:-1] if unit.endswith('s') else unit} of the run ({m['n']:,})"
    if len(ranked) == 1:
        return make("top_lever", REAL if certain["ci_low"] > 0 else NOISE, figure, "decisive", population, m,
                     **details, next=None)
    other, m2, certain2 = ranked[1]
    lead = finite(summary.get(lead_key))
    paired = bool(lead and lead.get("first") == source and lead.get("second") == other)
    if paired:
        apart = lead["ci_low"] > 0
    else:  # disjoint intervals: apart under any correlation between the two
        amb2 = finite(summary.get(f"{prefix}[{other}][ambiguous]"))
        apart = certain["ci_low"] > certain2["ci_high"] + (amb2["ci_high"] if amb2 else 0.0)
    return make("top_lever", REAL if apart else NOISE, figure, "decisive", population, m, **details,
                 next=other, next_label=source_label(other, labels), next_metric=_metric_of(m2),
                 next_certain=_metric_of(certain2), lead=_metric_of(lead) if paired else None)


def _plural(label: str) -> bool:
    """'the gold tokens' and 'the suit majorities' take a plural verb; 'Jahan's bonus' does not."""
    last = label.split()[-1] if label.split() else ""
    return last.endswith("s") and not last.endswith(("us", "ss", "'s"))


def render_lever(c: dict) -> str:
    unit, label = c["unit"], c["label"]
    its = "their" if _plural(label) else "its"
    if c["split"]:
        cm = c["certain"]
        amb = (c["ambiguous"] or {}).get("estimate") or 0.0
        size = (f"without {its} points the winner surely changes in {pct(cm['estimate'])} of {unit} "
                f"({ci_text(cm)}), {pct(amb)} more are left unfinished ({pct(c['estimate'])} counting them half)")
    else:
        size = f"without {its} points the winner changes in {pct(c['estimate'])} of {unit} ({ci_text(c)})"
    if c["next"] is None:
        return f"The strongest lever on who wins is {label}: {size}."
    n2 = c["next_certain"] if c["split"] else c["next_metric"]
    lead = c.get("lead")
    if lead and c["split"]:  # what the first surely decides, less what the next decides or may (unfinished)
        ahead = lead["estimate"] >= 0
        lo, hi = sorted((abs(lead["ci_low"]), abs(lead["ci_high"]))) if lead["ci_low"] * lead["ci_high"] > 0 \
            else (None, None)
        ci = (f"95% CI {lo * 100:.1f}-{hi * 100:.1f}" if lo is not None else
              f"95% CI {lead['ci_low'] * 100:+.1f} to {lead['ci_high'] * 100:+.1f}")
        one = unit[:-2] if unit.endswith("ches") else unit[:-1] if unit.endswith("s") else unit
        verb = ("lead" if ahead else "trail") + ("" if _plural(label) else "s")
        diff = (f"; even with every unfinished {one} counted for {c['next_label']}, paired on the same {unit}, "
                f"{label} {verb} {'it' if not _plural(c['next_label']) else 'them'} by "
                f"{abs(lead['estimate']) * 100:.1f} points ({ci})")
    else:
        diff = (f"; paired on the same {unit}, {lead['estimate'] * 100:+.1f} points more than {c['next_label']} "
                f"(95% CI {lead['ci_low'] * 100:+.1f} to {lead['ci_high'] * 100:+.1f})" if lead else "")
    if c["verdict"] == REAL:
        return (f"The strongest lever on who wins is {label}: {size}; next {c['next_label']} at "
                f"{pct(n2['estimate'])}{' surely' if c['split'] else ''}{diff}.")
    return (f"{label[:1].upper() + label[1:]} and {c['next_label']}, not told apart, are the strongest levers on "
            f"who wins: {size}; {c['next_label']} {pct(n2['estimate'])}"
            f"{' surely' if c['split'] else ''}{diff}.")


# ---- length and the rates a rule or the box should keep at zero ---------------------------------------------
def game_length(summary: dict, seconds_per_turn: float | None = None, pace: str | None = None) -> dict | None:
    """How long a game or match lasts, in minutes where a pace is configured, else in rounds or steps."""
    rounds = finite(summary.get("rounds_per_match")) or finite(summary.get("rounds_per_game"))
    turns = finite(summary.get("turns_per_round"))
    extra = dict(rounds=_metric_of(rounds) if rounds else None, turns=_metric_of(turns) if turns else None,
                 pace=pace if pace else f"at {seconds_per_turn:g} seconds a turn" if seconds_per_turn else "")
    for key, unit in (("minutes_per_match", "match"), ("minutes_per_game", "game")):
        m = finite(summary.get(key))
        if m:
            return make("length", REAL if (m.get("n") or 0) >= 2 else TOO_FEW, key, "length",
                         f"every {unit} of the run ({m.get('n') or 0:,})", m, kind="minutes", unit=unit, **extra)
    m = finite(summary.get("picks_per_game"))
    if m and not finite(summary.get("rounds_per_game")):
        return make("length", REAL, "picks_per_game", "length", f"every game of the run ({m.get('n') or 0:,})",
                     m, kind="steps", unit="game", **extra)
    key = "rounds_per_game" if finite(summary.get("rounds_per_game")) else "rounds_per_match"
    m = finite(summary.get(key))
    if m:
        return make("length", REAL, key, "length", f"every game of the run ({m.get('n') or 0:,})", m,
                     kind="rounds", unit="game", **extra)
    return None


def render_length(c: dict) -> str:
    if c["kind"] == "minutes":
        spread = (f" (95% CI {c['ci_low']:.1f}-{c['ci_high']:.1f})" if c["ci_high"] > c["ci_low"]
                  else " (every game the same length)")
        text = f"A {c['unit']} lasts about {c['estimate']:.1f} minutes{spread}"
        if c["rounds"] and c["turns"]:
            text += f": {c['rounds']['estimate']:.2f} rounds of {c['turns']['estimate']:.1f} turns"
        elif c["rounds"]:
            text += f": {c['rounds']['estimate']:.2f} rounds"
        return text + (f", {c['pace']}" if c["pace"] else "") + "."
    if c["kind"] == "steps":
        return (f"A game is {c['estimate']:.0f} action steps for every player; no playing time per step is "
                "configured (set report.seconds_per_pick), so there is no figure in minutes.")
    return (f"A game lasts {c['estimate']:.2f} rounds on average (95% CI {c['ci_low']:.2f}-{c['ci_high']:.2f}); "
            "no playing time is configured, so there is no figure in minutes.")


FLAG_RATES = {  # key -> (what is counted, what it means)
    "round_cap_rate": ("games", "stop at the simulator's round cap instead of ending by the rules: their results "
                                "are artificial"),
    "safety_end_rate": ("rounds", "end on a safety rule (stalled or at the turn cap) instead of by the rules"),
    "coins_short_rate": ("games", "would need more coins than the box holds"),
}


def flag_rate(summary: dict, key: str) -> dict | None:
    """A rate that a rule or the box should keep at zero: REAL when it happened at all (a count, not an
    estimate), NOISE when it never did (the interval then bounds how rare it is)."""
    m = finite(summary.get(key))
    if not m or key not in FLAG_RATES:
        return None
    what, means = FLAG_RATES[key]
    count = round(m["estimate"] * (m.get("n") or 0))
    return make(key, REAL if m["estimate"] > 0 else NOISE, key, "supply" if key == "coins_short_rate" else "flags",
                 f"every {what[:-1]} of the run ({m.get('n') or 0:,})", m, count=count, what=what, means=means)


def render_flag(c: dict) -> str:
    n, count = c["n"] or 0, c["count"]
    if c["verdict"] == REAL:
        share = pct(c["estimate"]) if c["estimate"] >= 0.001 else "under 0.1%"
        return (f"{count:,} of {n:,} {c['what']} ({share}, {ci_text(c)}) {c['means']}.")
    return f"None of {n:,} {c['what']} {c['means'].split(':')[0]} (at most {pct(c['ci_high'])}, 95% bound)."


# ---- tune: the candidate closest to the targets, or a toss-up between two ----------------------------------
WEIGHT = re.compile(r"(?:nash_weight|skill_mix\[[^\[\]]+\])\[([^\[\]]+)\]")  # an equilibrium weight's key


def _off_centre(t: dict) -> tuple[float, float, float]:
    """A target figure's distance from its band's centre in half-widths of the band (sim.variants.Target's
    scale; 1 is the band's edge): at the estimate, and the least and most over its 95% interval."""
    low, high = t["band"]
    centre = (low + high) / 2
    scale = max((high - low) / 2, 0.01 * max(abs(centre), 1e-9), 1e-9)
    m = finite(t)
    if not m:
        est = t.get("estimate")
        if not isinstance(est, (int, float)) or isinstance(est, bool) or not math.isfinite(est):
            return math.inf, math.inf, math.inf
        m = {"estimate": est, "ci_low": est, "ci_high": est}
    ends = [abs(m[k] - centre) / scale for k in ("ci_low", "ci_high")]
    least = 0.0 if m["ci_low"] <= centre <= m["ci_high"] else min(ends)
    return abs(m["estimate"] - centre) / scale, least, max(ends)


def objective(targets: dict[str, dict]) -> dict:
    """A candidate's distance from the targets: each target figure's distance from its band's centre (in
    half-widths), summed, with the sums of its least and most over each figure's 95% interval as the interval."""
    parts = [_off_centre(t) for t in targets.values()]
    return {k: float(sum(p[i] for p in parts)) for i, k in enumerate(("estimate", "ci_low", "ci_high"))}


def best_candidate(ranking: list[dict], summary: dict | None = None) -> dict | None:
    """tune's answer: the leading candidate (`ranking[0]`, each entry {label, games, targets: {metric: {estimate,
    ci_low, ci_high, band, verdict}}}) named over the next only when their distances from the targets
    (`objective`) are told apart and no targeted equilibrium weight of the leader spans most of 0-100%; else a
    toss-up between the two, with the weight's head-to-head figure from the leader's `summary` where it has one."""
    if not ranking:
        return None
    lead = ranking[0]
    verdicts = [t.get("verdict") for t in lead["targets"].values()]
    word = ("best" if all(v == "meets" for v in verdicts) or all(v in ("meets", "plausible") for v in verdicts)
            else "closest")
    o = objective(lead["targets"])
    spread = None  # the leader's targeted weight that the games do not fix
    for metric, t in lead["targets"].items():
        match = WEIGHT.fullmatch(metric)
        if match and finite(t) and spans_most(t):
            spread = {"metric": metric, "style": match.group(1), **_metric_of(t)}
            break
    if spread and summary:
        family = spread["metric"][: -len(spread["style"]) - 2]  # nash_weight[x] -> nash_weight
        rival, h2h = weight_rival(summary, indexed(summary, family), spread["style"])
        spread.update(rival=rival, h2h=h2h)
    details = dict(leader=lead["label"], leader_games=lead.get("games"), word=word, weight=spread,
                   targets=list(lead["targets"]))
    population = "each candidate's own games, every target figure with its 95% interval"
    if len(ranking) == 1:
        return make("best_candidate", TOSS_UP if spread else REAL, "ranking", "candidates", population, o,
                     **details, second=None)
    other = ranking[1]
    o2 = objective(other["targets"])
    told = all(math.isfinite(v) for v in (*o.values(), *o2.values())) and apart(o, o2, lower_is_better=True)
    return make("best_candidate", REAL if told and not spread else TOSS_UP, "ranking", "candidates", population, o,
                 **details, second=other["label"], second_games=other.get("games"), second_metric=_metric_of(o2))


def _distance(m: dict) -> str:
    return f"{m['estimate']:.2f} (95% CI {m['ci_low']:.2f}-{m['ci_high']:.2f})"


def render_candidate(c: dict) -> str:
    a, b, w = c["leader"], c["second"], c.get("weight")
    unit = "in half-widths of each band, summed over the targets; 1 is a band's edge"
    spread = ""
    if w:
        mix = "the equilibrium mix" if w["metric"].startswith("nash_weight") else "its equilibrium mix"
        spread = f"in {a}'s games " + weight_words(w["style"], w, mix)
    faces = (w["style"], w["rival"]) if w and w.get("rival") and w.get("h2h") else None
    h2h = w.get("h2h") if faces else None
    if b is None:
        if c["verdict"] == TOSS_UP:
            return f"The only candidate, {a}, fixes no mix: {spread}" + (
                f"; head to head {faces[0]} beats {faces[1]} {pct(h2h['estimate'])} ({ci_text(h2h)})" if h2h else "") + "."
        return f"The only candidate is {a}: {_distance(c)} off the targets' centres ({unit})."
    m2 = c["second_metric"]
    if c["verdict"] == REAL:
        return (f"{c['word'].capitalize()} candidate {a}: {_distance(c)} off the targets' centres, clear of the next "
                f"candidate, {b}, at {_distance(m2)} ({unit}).")
    why = (f"how far each sits off the targets' centres, {_distance(c)} and {_distance(m2)} ({unit}), overlaps, so "
           "these games cannot tell which is closer")
    if spread:
        why = (f"{spread}, so how far it sits off the targets' centres is not fixed: {_distance(c)}, against "
               f"{_distance(m2)} for {b} ({unit})")
    return render_toss_up(a, b, f" for the {c['word']} candidate", why, h2h, faces)


RENDER = {"seat_edge": render_seat, "play_style": render_style, "top_lever": render_lever, "length": render_length,
          "best_candidate": render_candidate,
          **{key: render_flag for key in FLAG_RATES}}


def render(c: dict) -> str:
    """The one sentence every page says for conclusion `c` (how answers move with skill, built on these:
    analysis.across_skill.render)."""
    return RENDER[c["id"]](c)


def _with_text(build):
    """A builder whose conclusion carries its sentence (`text`, from `render`): what every page prints."""
    def built(*args, **kwargs):
        c = build(*args, **kwargs)
        if c:
            c["text"] = render(c)
        return c
    built.__doc__, built.__name__ = build.__doc__, build.__name__
    return built


edge_of, seat_edge, play_style, top_lever, game_length, flag_rate, best_candidate = (
    _with_text(f) for f in (edge_of, seat_edge, play_style, top_lever, game_length, flag_rate, best_candidate))


def conclusions(summary: dict, labels: dict | None = None, unit: str = "games", seconds_per_turn=None,
                pace: str | None = None) -> list[dict]:
    """Every conclusion of this module the summary supports, each with its sentence (`text`); with the skill
    conclusion built on them: analysis.findings.every_conclusion."""
    found = [seat_edge(summary), play_style(summary), top_lever(summary, labels, unit),
             game_length(summary, seconds_per_turn, pace), *(flag_rate(summary, k) for k in FLAG_RATES),
]
    return [c for c in found if c]


def by_id(items: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in items}
