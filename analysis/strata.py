"""Where an imbalance lives: each real seat or starter edge split by the game's setup variables (drawn before
play: a market condition, the round number) and set against its event variables (taken in play: an emperor's
bonus, the coin token), and what the player who takes each bonus wins. Every game declares its variables in its
analysis module (`strata_frames(tables, meta)`, a list of `Frame`); this module tests them and writes one
conclusion dict per question ({id, verdict, estimate, ci_low, ci_high, n, population, text, ...}).

Method (docs/findings.md, "Where the edge lives"), on mirror games only (every seat the same strategy, the
population of the summary's edge figures): an edge is split only when the report's seat conclusion calls it real
(analysis.conclusions.tested_families: the omnibus test across positions, Holm over the seat families). A setup
variable carries the edge when a chi-square test of independence of the winning position and the stratum rejects
(Holm across the edge's variables); the stratum named is the one farthest from the fair share, and it carries the
whole edge when the other strata pooled show none (goodness-of-fit at 5%). An event variable cannot be split the
same way (its taker wins more whatever the seat), so the test there is whether the edged positions take it more
often than their share (goodness-of-fit across positions, in the same Holm family).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from analysis import conclusions, stats
from analysis.decisive import slug
from analysis.markup import Markup, markup, table, tag
from analysis.style import ACCENT, NEUTRAL, new_panels, save

ALPHA = 0.05
MIN_UNITS = 30  # a stratum with fewer mirror games (or rounds) is shown, not tested
MIN_TAKERS = 30  # a conditional win rate on fewer takers: "too few games"
POPULATION = "mirror games"


@dataclass(frozen=True)
class Edge:
    """A seat or starter edge: `keys` its summary figures (one per position, or one two-seat key whose fair value
    is 50%), `position` (units, seats) the position each seat holds, `labels` each position's short name."""
    key: str
    what: str
    keys: tuple[str, ...]
    labels: tuple[str, ...]
    position: np.ndarray

    def words(self, k: int) -> str:
        """Position k in a sentence: the seat finding's own words where the edge is one of its figures (one
        position, one name on a page), else its short label (the tables' and charts')."""
        if len(self.keys) > 1 and self.key in ("position_win_rate", "seat_win_rate"):
            return conclusions.position_words(self.key, k)
        return self.labels[k]


@dataclass(frozen=True)
class Setup:
    """A variable drawn before play: `levels` one label per unit, `words(level)` the stratum in a sentence."""
    key: str
    name: str
    levels: np.ndarray
    phrase: str = "{}"  # a level in a sentence: "the {} market condition"


@dataclass(frozen=True)
class Event:
    """A bonus or token taken in play: `taken` (units, seats), True for each seat that took it; `who` the taker
    in a sentence (default "player who takes <name>")."""
    key: str
    name: str
    taken: np.ndarray
    who: str = ""


@dataclass
class Frame:
    """One kind of unit (games, or Mohur's rounds): win shares (units, seats), which units are mirror games, the
    edges measured on them and the variables declared for them; `fixed`: run-level variables (one level a run)."""
    unit: str
    win: np.ndarray
    mirror: np.ndarray
    edges: list[Edge]
    setups: list[Setup] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    fixed: dict[str, str] = field(default_factory=dict)


# ---- tests ---------------------------------------------------------------------------------------------------
def chi2_independence(table) -> tuple[float, int, float]:
    """Pearson's chi-square test of independence of rows and columns (empty rows and columns dropped):
    (statistic, df, p), scipy.stats.chi2_contingency's without its import (a second of every report)."""
    from scipy.special import chdtrc  # scipy.special only: scipy.stats costs about 1 CPU-s to import
    t = np.asarray(table, dtype=float)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0] if t.size else t
    if t.ndim != 2 or min(t.shape) < 2:
        return 0.0, 0, float("nan")
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / t.sum()
    stat = float(((t - expected) ** 2 / expected).sum())
    df = (t.shape[0] - 1) * (t.shape[1] - 1)
    return stat, df, float(chdtrc(df, stat))


def chi2_uniform(counts) -> float:
    """p of Pearson's goodness-of-fit test of counts against equal shares (scipy.stats.chisquare's)."""
    from scipy.special import chdtrc  # as chi2_independence
    c = np.asarray(counts, dtype=float)
    if len(c) < 2 or c.sum() <= 0:
        return float("nan")
    expected = c.sum() / len(c)
    return float(chdtrc(len(c) - 1, float(((c - expected) ** 2 / expected).sum())))


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (statsmodels' multipletests(method="holm")); NaN stays NaN and is not
    counted in the family."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(len(p), np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    running = 0.0
    for i, idx in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[idx]))
        out[idx] = running
    return out


# ---- the edge's size -----------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}"


def _rates(wins: np.ndarray, n: int) -> list[dict]:
    """One rate per position (Wilson 95%), `wins` the win shares summed by position over `n` units."""
    return [stats.rate(float(w), n) for w in wins]


def by_position(win: np.ndarray, position: np.ndarray, positions: int) -> np.ndarray:
    """(units, positions) win shares from (units, seats) ones and the position each seat holds."""
    out = np.zeros((len(win), positions))
    rows = np.repeat(np.arange(len(win)), win.shape[1])
    np.add.at(out, (rows, position.ravel()), win.ravel())
    return out


def edge_real(summary: dict, edge: Edge) -> tuple[bool, float]:
    """(real, fair share) of an edge's mirror-game figures, as the report's seat conclusion gives them
    (analysis.conclusions.tested_families: the omnibus test across positions, Holm over the seat families), so
    this section splits exactly the edges the seat section calls real."""
    ms = [summary.get(k) for k in edge.keys]
    fair = 0.5 if len(ms) == 1 else 1 / max(2, len(ms))
    if not ms or any(not isinstance(m, dict) or m.get("population") != "mirror" or m.get("estimate") is None
                     or not m.get("n") for m in ms):
        return False, fair
    family = conclusions.tested_families(summary).get(edge.keys[0])
    if family is None or {r["key"] for r in family["rows"]} != set(edge.keys):
        return False, fair
    return bool(family["real"]), family["fair"]


# ---- the analysis --------------------------------------------------------------------------------------------
def _conclusion(cid: str, verdict: str, m: dict | None, text: str, **extra) -> dict:
    m = m or {}
    return {"id": cid, "verdict": verdict, "estimate": m.get("estimate"), "ci_low": m.get("ci_low"),
            "ci_high": m.get("ci_high"), "n": m.get("n", 0), "population": POPULATION, "text": text, **extra}


def _split(pw: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(levels sorted, units per level, win shares per level and position) of mirror units."""
    names, idx = np.unique(np.asarray(levels), return_inverse=True)
    n = np.bincount(idx.ravel(), minlength=len(names))
    wins = np.zeros((len(names), pw.shape[1]))
    np.add.at(wins, idx.ravel(), pw)
    return names, n, wins


def _setup_test(pw: np.ndarray, setup: Setup, mirror: np.ndarray) -> dict:
    """The edge split by one setup variable: per stratum rates, the interaction test, the stratum named."""
    names, n, wins = _split(pw, setup.levels[mirror])
    kept = n >= MIN_UNITS
    strata = [{"level": str(v), "n": int(c), "rates": _rates(w, int(c)), "tested": bool(k)}
              for v, c, w, k in zip(names, n, wins, kept)]
    out = {"variable": setup.key, "name": setup.name, "kind": "setup", "strata": strata, "p": float("nan")}
    if kept.sum() >= 2:
        out["p"] = chi2_independence(wins[kept])[2]
    out["verdict_raw"] = "one level" if len(names) < 2 else "too few games" if kept.sum() < 2 else None
    return out


def _event_test(pw_positions: int, edge: Edge, event: Event, mirror: np.ndarray) -> dict:
    """How often each position takes the event in mirror units, and the test that the shares are equal."""
    taken = event.taken[mirror]
    counts = np.zeros(pw_positions)
    np.add.at(counts, edge.position[mirror].ravel(), taken.ravel().astype(float))
    total = int(counts.sum())
    out = {"variable": event.key, "name": event.name, "kind": "event", "takes": _rates(counts, total),
           "total": total, "p": chi2_uniform(counts) if total >= MIN_UNITS else float("nan")}
    out["verdict_raw"] = "too few games" if total < MIN_UNITS else None
    return out


def _variables(count: int) -> str:
    return f"{count} variable{'' if count == 1 else 's'}"


def _locate_setup(edge: Edge, test: dict, fair: float, unit: str, family: int) -> dict:
    """The conclusion of one setup split: which stratum carries the edge, or that none can be told apart."""
    cid = f"edge_strata[{edge.key}][{test['variable']}]"
    extra = {"edge": edge.key, "variable": test["variable"], "p": test["p"], "p_holm": test["p_holm"]}
    if test["verdict_raw"]:
        why = ("it has one level in this run" if test["verdict_raw"] == "one level"
               else f"fewer than {MIN_UNITS} mirror {unit} in all but one of its levels")
        return _conclusion(cid, "too few games", None, f"{edge.what[:1].upper() + edge.what[1:]} is not split by "
                           f"the {test['name']}: {why}.", **extra)
    tested = [s for s in test["strata"] if s["tested"]]
    if not test["p_holm"] < ALPHA:
        return _conclusion(cid, "within noise", None, f"{edge.what[:1].upper() + edge.what[1:]} is the same under "
                           f"every {test['name']} these {unit} can tell apart (interaction test {_p(test['p'])}, "
                           f"Holm-adjusted over {_variables(family)} {_p(test['p_holm'])}).", **extra)
    far = max(tested, key=lambda s: max(abs(r["estimate"] - fair) for r in s["rates"]))
    rest = [s for s in tested if s is not far]
    rest_wins = np.sum([[r["estimate"] * s["n"] for r in s["rates"]] for s in rest], axis=0)
    p_rest = chi2_uniform(rest_wins)
    ranked = sorted(range(len(edge.labels)), key=lambda k: -far["rates"][k]["estimate"])
    hi, lo = ranked[0], ranked[-1]
    big = max(range(len(edge.labels)), key=lambda k: abs(far["rates"][k]["estimate"] - fair))
    rest_n = sum(s["n"] for s in rest)
    span = rest_wins / rest_n if len(edge.labels) > 2 else rest_wins[hi:hi + 1] / rest_n
    where = _stratum_words(test, far["level"])
    head = f"{edge.what[:1].upper() + edge.what[1:]}"
    fig = (f"{edge.words(hi)} wins {_pct(far['rates'][hi]['estimate'])} ({_ci(far['rates'][hi])})"
           + (f" and {edge.words(lo)} {_pct(far['rates'][lo]['estimate'])} ({_ci(far['rates'][lo])})"
              if len(edge.labels) > 2 else ""))
    amount = f"{_pct(min(span))}-{_pct(max(span))}" if len(span) > 1 else _pct(span[0])
    elsewhere = f"against {amount} under the other {test['name']}s"
    whole = not p_rest < ALPHA
    tail = (f"fair {_pct(fair)}; interaction {_p(test['p_holm'])} after Holm over {_variables(family)}"
            + ("" if whole else f", the others' edge {_p(p_rest)}") + f"; mirror {unit}")
    lead = f"{head} {'comes from' if whole else 'is largest under'} {where}: {fig} there, {elsewhere}"
    text = f"{lead}{'' if whole else ', an edge there too'} ({tail})."
    short = (f"{head} {'comes from' if whole else 'is largest under'} {where}: {edge.words(hi)} wins "
             f"{_pct(far['rates'][hi]['estimate'])} ({_ci(far['rates'][hi])})"
             + (f" and {edge.words(lo)} {_pct(far['rates'][lo]['estimate'])}" if len(edge.labels) > 2 else "")
             + f" there, {elsewhere}{'' if whole else ', an edge there too'}.")
    return _conclusion(cid, "real", far["rates"][big], text, short=short, stratum=far["level"],
                       carries="whole" if whole else "largest", p_rest=p_rest, **extra)


def _ci(m: dict) -> str:
    return f"95% CI {_pct(m['ci_low'])}-{_pct(m['ci_high'])}"


def _stratum_words(test: dict, level: str) -> str:
    return test["phrase"].format(level)


def _locate_event(edge: Edge, test: dict, fair: float, unit: str, family: int) -> dict:
    cid = f"edge_events[{edge.key}][{test['variable']}]"
    extra = {"edge": edge.key, "variable": test["variable"], "p": test["p"], "p_holm": test["p_holm"]}
    head = edge.what[:1].upper() + edge.what[1:]
    if test["verdict_raw"]:
        return _conclusion(cid, "too few games", None, f"{test['name'][:1].upper() + test['name'][1:]} was taken "
                           f"fewer than {MIN_UNITS} times in mirror {unit}: not tested.", **extra)
    top = max(range(len(edge.labels)), key=lambda k: abs(test["takes"][k]["estimate"] - fair))
    m = test["takes"][top]
    if not test["p_holm"] < ALPHA:
        return _conclusion(cid, "within noise", m, f"Every position takes {test['name']} about equally often "
                           f"(goodness-of-fit {_p(test['p'])}, Holm-adjusted {_p(test['p_holm'])}).", **extra)
    lead = (f"{head} runs partly through {test['name']}: {edge.words(top)} takes it "
            f"{'more' if m['estimate'] > fair else 'less'} often than its share, {_pct(m['estimate'])} of the times "
            f"it is taken ({_ci(m)}) against a fair {_pct(fair)}")
    text = (f"{lead} (goodness-of-fit {_p(test['p'])}, Holm-adjusted over "
            f"{_variables(family)} {_p(test['p_holm'])}; mirror {unit}).")
    return _conclusion(cid, "real", m, text, short=lead + ".", position=edge.words(top), **extra)


def analyse_edge(frame: Frame, edge: Edge, summary: dict) -> dict:
    """{"real", "fair", "tests" (with the figures the section shows), "conclusions"} for one edge."""
    real, fair = edge_real(summary, edge)
    positions = len(edge.labels)
    out = {"edge": edge, "real": real, "fair": fair, "tests": [], "conclusions": []}
    where = f"edge_location[{edge.key}]"
    if not frame.mirror.any() or any((summary.get(k) or {}).get("population") != "mirror" for k in edge.keys):
        out["conclusions"].append(_conclusion(where, "too few games", None, (
            f"This run has no mirror {frame.unit} (every seat the same strategy), so {edge.what} is not split "
            "(-s all plays them)."), edge=edge.key))
        return out
    if not real:
        out["conclusions"].append(_conclusion(where, "within noise", None, (
            f"{edge.what[:1].upper() + edge.what[1:]} is not real at equal skill (mirror {frame.unit}), so there is "
            "no edge to locate."), edge=edge.key))
        return out
    mirror = frame.mirror
    pw = by_position(frame.win[mirror], edge.position[mirror], positions)
    tests = [{**_setup_test(pw, s, mirror), "phrase": s.phrase} for s in frame.setups]
    tests += [_event_test(positions, edge, e, mirror) for e in frame.events]
    for t, adj in zip(tests, holm([t["p"] for t in tests])):
        t["p_holm"] = float(adj)
    family = int(sum(not np.isnan(t["p"]) for t in tests))
    found = [(_locate_setup if t["kind"] == "setup" else _locate_event)(edge, t, fair, frame.unit, family)
             for t in tests]
    out["tests"], out["conclusions"] = tests, found
    real_ones = sorted((c for c in found if c["verdict"] == "real"),
                       key=lambda c: (c["id"].startswith("edge_events"), c.get("carries") != "whole", c["p_holm"]))
    if real_ones:
        best = real_ones[0]
        out["conclusions"].append({**best, "id": where, "figure": best["id"]})
    else:
        names = [t["name"] for t in tests if not t["verdict_raw"]]
        text = (f"No setting or event we split by carries {edge.what}: it is the same under every "
                + (", ".join(names) if names else "variable declared") + " these games can tell apart.")
        out["conclusions"].append(_conclusion(where, "within noise", None, text, edge=edge.key))
    return out


def taker_rates(frame: Frame, fair: float) -> list[dict]:
    """What the player who takes each bonus or token wins, on mirror units and on every unit (Wilson 95%)."""
    out = []
    for event in frame.events:
        row = {"event": event}
        for pop, mask in (("mirror", frame.mirror), ("all", np.ones(len(frame.win), dtype=bool))):
            taken = event.taken[mask]
            row[pop] = stats.rate(float(frame.win[mask][taken].sum()), int(taken.sum()))
        m = row["mirror"]
        cid = f"taker_win_rate[{event.key}]"
        if m["n"] < MIN_TAKERS:
            c = _conclusion(cid, "too few games", m, f"{event.name[:1].upper() + event.name[1:]} was taken "
                            f"{m['n']:,} times in mirror {frame.unit}: too few to say what its taker wins.")
        else:
            gap = (m["estimate"] - fair) * 100
            verdict = "within noise" if m["ci_low"] <= fair <= m["ci_high"] else "real"
            c = _conclusion(cid, verdict, m, (
                f"The {event.who or 'player who takes ' + event.name} wins {_pct(m['estimate'])} of those "
                f"{frame.unit} ({_ci(m)}), "
                f"against a fair share of {_pct(fair)}: "
                + (f"a real {abs(gap):.1f}-point {'edge' if gap > 0 else 'handicap'}" if verdict == "real"
                   else "no difference we can detect") + f" (mirror {frame.unit}; {m['n']:,} takers, a shared take "
                "counted for each taker)."))
        c["all_games"] = {k: row["all"].get(k) for k in ("estimate", "ci_low", "ci_high", "n")}
        row["conclusion"] = c
        out.append(row)
    return out


def analyse(frames: list[Frame], summary: dict) -> dict:
    """{"edges": per-edge analyses, "takers": per-event rates, "conclusions": every conclusion dict}."""
    edges, takers, conclusions = [], [], []
    for frame in frames:
        for edge in frame.edges:
            a = analyse_edge(frame, edge, summary)
            edges.append((frame, a))
            conclusions += a["conclusions"]
        seats = frame.win.shape[1]
        for row in taker_rates(frame, 1 / seats):
            takers.append((frame, row))
            conclusions.append(row["conclusion"])
    return {"edges": edges, "takers": takers, "conclusions": conclusions}


def summary_fields(module, tables: dict, meta: dict, summary: dict) -> dict:
    """What summary.json gains: `strata` (every conclusion) and `taker_win_rate[<event>]` (mirror games; with
    `[all_games]`). Empty for a game that declares no variables."""
    if not hasattr(module, "strata_frames"):
        return {}
    result = analyse(module.strata_frames(tables, meta), summary)
    out = {"strata": result["conclusions"]}
    for frame, row in result["takers"]:
        key = f"taker_win_rate[{row['event'].key}]"
        out[key] = {**row["mirror"], "population": "mirror"}
        out[f"{key}[all_games]"] = row["all"]
    return out


# ---- the report section --------------------------------------------------------------------------------------
TITLE = "Where the edge lives, and what each bonus's taker wins"
SEATS = r"first-player|seat"  # analysis.findings.TOPICS["seats"]: the section this one follows


def _cell(m: dict | None) -> str:
    if not m or m.get("estimate") is None:
        return "n/a"
    return f"{_pct(m['estimate'])} ({_pct(m['ci_low'])}-{_pct(m['ci_high'])})"


def _panels(groups: list[tuple[str, list[dict]]], labels, fair: float, ylabel: str, title: str, path) -> None:
    """Small multiples: one panel per group, one bar per position with its 95% interval, the fair share dashed."""
    cols = min(4, len(groups))
    rows = -(-len(groups) // cols)
    fig, axes = new_panels(2.6 * cols + 0.8, 2.5 * rows + 0.7, rows, cols, sharey=True)
    x = np.arange(len(labels))
    for ax, (name, rates) in zip(axes, groups):
        est = np.array([np.nan if r.get("estimate") is None else r["estimate"] for r in rates]) * 100
        lo = np.array([np.nan if r.get("ci_low") is None else r["ci_low"] for r in rates]) * 100
        hi = np.array([np.nan if r.get("ci_high") is None else r["ci_high"] for r in rates]) * 100
        err = np.clip(np.nan_to_num([est - lo, hi - est]), 0, None)
        ax.bar(x, np.nan_to_num(est), color=ACCENT, yerr=err, capsize=2, ecolor="#333333")
        ax.axhline(fair * 100, color=NEUTRAL, ls="--", lw=1)
        ax.set_title(name, fontsize=9)
        ax.set_xticks(x, labels, fontsize=8, rotation=30 if len(labels) > 3 else 0)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(groups):]:
        ax.set_visible(False)
    for ax in axes[::cols]:
        ax.set_ylabel(ylabel, fontsize=8)
    fig.suptitle(title, fontsize=10)
    save(fig, path)


def _taker_panels(groups: list[tuple[str, list[dict]]], names: list[str], fair: float, path) -> None:
    """One panel per population, one horizontal bar per bonus (names can be long) with its 95% interval."""
    fig, axes = new_panels(9.0, 0.42 * len(names) + 1.4, 1, len(groups), sharey=True)
    y = np.arange(len(names))[::-1]
    for ax, (pop, rates) in zip(axes, groups):
        est = np.array([np.nan if r.get("estimate") is None else r["estimate"] for r in rates]) * 100
        lo = np.array([np.nan if r.get("ci_low") is None else r["ci_low"] for r in rates]) * 100
        hi = np.array([np.nan if r.get("ci_high") is None else r["ci_high"] for r in rates]) * 100
        ax.barh(y, np.nan_to_num(est), color=ACCENT, xerr=np.clip(np.nan_to_num([est - lo, hi - est]), 0, None),
                capsize=2, ecolor="#333333")
        ax.axvline(fair * 100, color=NEUTRAL, ls="--", lw=1)
        ax.set_title(pop, fontsize=9)
        ax.set_xlabel("taker's win rate (%)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, names, fontsize=8)
    fig.suptitle(f"What the player who takes each bonus wins (95% intervals; fair share {fair:.0%} dashed)",
                 fontsize=10)
    save(fig, path)


def _edge_html(frame: Frame, a: dict, outdir, figures: list) -> Markup:
    edge, fair = a["edge"], a["fair"]
    location = next(c for c in a["conclusions"] if c["id"].startswith("edge_location"))
    parts = [tag("p", tag("b", location["text"]))]
    if not a["real"]:
        return markup(*parts)
    heads = [f"{lab} wins" for lab in edge.labels]
    by_id = {c["id"]: c for c in a["conclusions"]}
    for t in a["tests"]:
        c = by_id[f"edge_{'strata' if t['kind'] == 'setup' else 'events'}[{edge.key}][{t['variable']}]"]
        if c["text"] != location["text"]:  # the location repeats its best split: said once, in bold
            parts.append(tag("p", c["text"]))
        if t["kind"] == "setup":
            parts.append(table([t["name"], f"mirror {frame.unit}", *heads],
                               [[f"{s['level']}{'' if s['tested'] else ' (too few, not tested)'}", f"{s['n']:,}",
                                 *(_cell(r) for r in s["rates"])] for s in t["strata"]]))
            if len(t["strata"]) >= 2:
                name = f"strata_{slug(edge.key)}_{slug(t['variable'])}.png"
                _panels([(s["level"], s["rates"]) for s in t["strata"]], edge.labels, fair, "win rate (%)",
                        f"{edge.what[:1].upper() + edge.what[1:]}, by {t['name']} (mirror {frame.unit}; 95% "
                        "intervals)", outdir / name)
                figures.append((name, f"{edge.what[:1].upper() + edge.what[1:]} under each {t['name']}: one panel "
                                f"per {t['name']}, one bar per position; the dashed line is the fair share."))
    events = [t for t in a["tests"] if t["kind"] == "event" and t["total"]]
    if events:
        parts.append(table(["taken", "times", *(f"{lab} takes" for lab in edge.labels)],
                           [[t["name"], f"{t['total']:,}", *(_cell(r) for r in t["takes"])] for t in events]))
        name = f"strata_{slug(edge.key)}_events.png"
        _panels([(t["name"], t["takes"]) for t in events], edge.labels, fair, "share of takes (%)",
                f"Who takes each bonus, by position ({edge.what}; mirror {frame.unit})", outdir / name)
        figures.append((name, "For each bonus or token, the share of its takes that went to each position; the "
                        "dashed line is an even share."))
    return markup(*parts)


def _takers_html(rows: list, outdir, figures: list) -> Markup:
    if not rows:
        return Markup("")
    body = [[r["event"].name, f"{r['mirror']['n']:,}", _cell(r["mirror"]), _cell(r["all"]), _pct(1 / f.win.shape[1]),
             r["conclusion"]["verdict"]] for f, r in rows]
    groups = [(pop, [r[key] for _, r in rows]) for pop, key in (("mirror games", "mirror"), ("every game", "all"))]
    fair = 1 / rows[0][0].win.shape[1]
    if len({f.win.shape[1] for f, _ in rows}) == 1:
        _taker_panels(groups, [r["event"].name for _, r in rows], fair, outdir / "strata_takers.png")
        figures.append(("strata_takers.png", "How often the player who takes each bonus or token wins, on mirror "
                        "games and on every game; the dashed line is the fair share."))
    return markup(tag("h3", "What the taker wins"), tag("ul", *(tag("li", r["conclusion"]["text"]) for _, r in rows)),
                  table(["bonus or token", "takers (mirror)", "taker wins (mirror)", "taker wins (every game)",
                         "fair share", "verdict"], body))


def section(module, tables: dict, meta: dict, summary: dict, outdir) -> dict | None:
    """The report section: each real edge's split (tables and small multiples) and the takers' win rates."""
    if not hasattr(module, "strata_frames"):
        return None
    frames = module.strata_frames(tables, meta)
    result = analyse(frames, summary)
    figures: list = []
    body = markup(*(_edge_html(f, a, outdir, figures) for f, a in result["edges"]),
                  _takers_html(result["takers"], outdir, figures))
    fixed = "; ".join(f"{k}: {v}" for f in frames for k, v in f.fixed.items())
    text = ("Each real seat or starter edge is split by what is drawn before play (a setting, an order) and set "
            "against what is taken in play (a bonus, a token), on mirror games (every seat the same strategy). A "
            "setting carries the edge when the winning position depends on it (a chi-square test of independence); "
            "a bonus carries it when the edged positions take it more often than their share. Both are "
            "Holm-adjusted over the variables of an edge." + (f" Fixed for this run (compare runs to split by it): "
                                                              f"{fixed}." if fixed else ""))
    return {"title": TITLE, "text": text, "html": body, "figures": [{"file": f, "reading": r} for f, r in figures]}


def insert_section(sections: list[dict], found: dict | None) -> None:
    """Put the section right after the report's seat section (the first whose title speaks of seats or the first
    player), else last."""
    if found is None:
        return
    at = next((i + 1 for i, s in enumerate(sections) if re.search(SEATS, s.get("title", ""), re.IGNORECASE)),
              len(sections))
    sections.insert(at, found)
