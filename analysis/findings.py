"""Findings: the three to seven sentences a designer reads first, from a summary: {id, text, verdict, figure (its
summary.json key), section (the report topic that explains it)}. Each is a conclusion of analysis.conclusions said
by its own render function; ranked as docs/findings.md says: problems with the run, then real effects, never
noise first."""
from __future__ import annotations

import html
import re
import statistics

from analysis import across_skill, conclusions as C
from analysis.conclusions import source_label  # noqa: F401  (compare and formatting name sources through here)

MAX_FINDINGS = 7
LOOSE_FACTOR = 5  # a strength interval this many times the median width: the prior, not the games, bounds it

# section topics -> words a report section's title contains (report.py links the first that matches)
TOPICS = {"seats": r"first-player|seat", "strategies": r"who wins|strategies", "meta": r"meta-game",
          "length": r"length|rounds per game", "decisive": r"what decides",
          "flags": r"rounds per game|length", "supply": r"boxed coin", "skill": r"with skill",
          "strata": r"where the edge lives"}
# conclusion id -> the finding's id in summary.json (the ids findings had before conclusions existed)
FINDING_ID = {"seat_edge": "seat_gap", "play_style": "strongest_strategy", "top_lever": "top_lever",
              "length": "length", "skill": "across_skill"}


def _finding(fid: str, rank: float, text: str, figure: str, section: str, m: dict | None = None,
             verdict: str | None = None) -> dict:
    out = {"id": fid, "rank": rank, "text": text, "figure": figure, "section": section, "verdict": verdict}
    if m:
        out.update({k: m.get(k) for k in ("estimate", "ci_low", "ci_high")})
    return out


def rank(c: dict) -> float:
    """How high a conclusion stands in the Findings (docs/findings.md)."""
    real = c["verdict"] == C.REAL
    if c["id"] == "seat_edge":
        return 80 + abs(c["estimate"] - c["fair"]) * 100 if real else 38 if c["verdict"] == C.TOO_FEW else 40
    if c["id"] == "play_style":
        return 75 if c.get("dominant") else 60 if real else 50 if c["verdict"] == C.TOSS_UP else 48
    if c["id"] == "top_lever":
        return 55 if real else 47
    if c["id"] == "skill":
        return 70 if real else 20 if c["verdict"] == C.TOO_FEW else 52
    if c["id"] == "length":
        return 45
    if c["id"].startswith("edge_location["):  # just under the real seat gap it locates
        return 79.5
    if c["id"] in C.FLAG_RATES:  # at least 1% of games: the results themselves are in doubt
        big = c["estimate"] >= 0.01
        return (50 if big else 25) if c["id"] == "coins_short_rate" else (90 if big else 35)
    return 30


def _strength_bounds(summary: dict) -> list[dict]:
    """Strengths only the prior (or one side of the data) bounds: a small flag under the play-style finding."""
    strengths = C.indexed(summary, "strength")
    out = []
    for name in (_loose(strengths, summary) if len(strengths) >= 2 else []):
        s = strengths[name]
        bound = s.get("bound")
        if bound == "lower":
            how = f"at least {s['ci_low']:+.0f} Elo: it (almost) always wins, so the games bound it only below"
        elif bound == "upper":
            how = f"at most {s['ci_high']:+.0f} Elo: it (almost) never wins, so the games bound it only above"
        else:
            how = (f"{C._elo(s)}: it rarely or never beats the others, so the weak prior, not the games, "
                   "sets how far down it sits")
        out.append(_finding(f"strength_bound[{name}]", 30, f"{name}'s strength is only bounded one way: {how}.",
                            f"strength[{name}]", "strategies", s))
    return out


def _loose(strengths: dict[str, dict], summary: dict) -> list[str]:
    """Strategies whose strength the data bound only one way: by `bound` in summaries that write it (or would:
    they say `nash_unique`), else (older summaries) by an interval many times wider than the others'."""
    if any("bound" in m for m in strengths.values()) or "nash_unique" in summary or "nash_unmeasured" in summary:
        return [s for s, m in strengths.items() if m.get("bound") in ("upper", "lower")]
    half = {s: (m["ci_high"] - m["ci_low"]) / 2 for s, m in strengths.items()}
    median = statistics.median(half.values())
    return [s for s, h in half.items() if len(half) >= 3 and median > 0 and h > LOOSE_FACTOR * median]


def located(summary: dict) -> list[dict]:
    """Where each real seat edge lives (analysis.strata's `edge_location[...]` in summary["strata"]) as conclusions
    in their short words (the report's section gives the tests)."""
    return [{**c, "text": c.get("short") or c["text"], "figure": c.get("figure", c["id"]), "section": "strata"}
            for c in summary.get("strata") or [] if isinstance(c, dict) and c.get("verdict") == C.REAL
            and str(c.get("id", "")).startswith("edge_location[") and c.get("text") and c.get("population")]


def assumed_pace(seconds, per: str, key: str, source: str = "the rulebook gives no playing time") -> str | None:
    """How a report turns counts into minutes, said as the assumption it is with the key that sets it ("at an
    assumed 10 seconds an action step (...: set report.seconds_per_pick for your table)"); None without a pace."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return None
    return f"at an assumed {seconds:g} seconds {per} ({source}: set {key} for your table)"


def run_flags(warnings=(), partial: bool = False) -> list[dict]:
    out = []
    if partial:
        out.append(_finding("partial", 100, "This run is partial: only the batches that finished are counted, so "
                            "intervals are wider than the run asked for.", "partial", "headline"))
    for i, line in enumerate(warnings):
        out.append(_finding(f"degenerate_configuration[{i}]", 95,
                            f"Degenerate configuration: {line}; read every figure with that in mind.",
                            "configuration", "headline"))
    return out


def from_conclusions(items: list[dict]) -> list[dict]:
    """Findings of conclusions (analysis.conclusions' objects, each with its `text`); a flag rate that never
    happened says nothing worth a line."""
    return [_finding(FINDING_ID.get(c["id"], c["id"]), rank(c), c["text"], c["figure"], c["section"], c,
                     c["verdict"]) for c in items if not (c["id"] in C.FLAG_RATES and c["verdict"] != C.REAL)]


def order(found: list[dict]) -> list[dict]:
    """Problems with the run first, then real effects by rank, then the rest by rank; at most MAX_FINDINGS."""
    def group(f):  # a flag under 1% (1 stalled round of 45,909) is real, but not an answer to lead with
        small = f["id"] in C.FLAG_RATES and (f.get("estimate") or 0) < 0.01
        return 0 if f["rank"] >= 95 else 1 if f.get("verdict") == C.REAL and f["id"] != "length" and not small else 2
    found = sorted(found, key=lambda f: (group(f), -f["rank"]))[:MAX_FINDINGS]
    return [{k: v for k, v in f.items() if k != "rank"} for f in found]


def every_conclusion(summary: dict, labels: dict | None = None, unit: str = "games", seconds_per_turn=None,
                     pace: str | None = None) -> list[dict]:
    """The summary's conclusions (analysis.conclusions), then how they move with skill (analysis.across_skill)."""
    skill = across_skill.conclusion(summary, labels, unit)
    return (C.conclusions(summary, labels, unit, seconds_per_turn, pace) + located(summary)
            + ([skill] if skill else []))


def findings(summary: dict, warnings=(), labels: dict | None = None, unit: str = "games",
             seconds_per_turn: float | None = None, pace: str | None = None,
             conclusions: list[dict] | None = None) -> list[dict]:
    """The ranked findings of a game's summary; `warnings`: the configuration's degenerate-setting lines,
    `labels`: plain names of decisive sources, `unit`: what a game is called; `conclusions`: the summary's
    (`analysis.conclusions.conclusions`), computed here when not given."""
    if conclusions is None:
        conclusions = every_conclusion(summary, labels, unit, seconds_per_turn, pace)
    return order(run_flags(warnings, bool(summary.get("partial"))) + from_conclusions(conclusions)
                 + _strength_bounds(summary))


# ---- presentation --------------------------------------------------------------------------------------------
CSS = """
.findings{border:2px solid #1b6ca8;border-radius:6px;padding:.4em 1.2em .6em;margin:.8em 0 1.2em;
background:#f5f9fd}.findings h2{margin:.2em 0 .2em;border:0;font-size:1.25em}
.findings ol{margin:.2em 0;padding-left:1.3em}.findings li{margin:.25em 0}.findings a{font-size:.85em}
"""


def anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def section_links(titles: list[str]) -> dict[str, str]:
    """Topic -> anchor of the first section title that matches it (missing topics link to the headline table)."""
    hits = {topic: next((t for t in titles if re.search(pattern, t, re.IGNORECASE)), None)
            for topic, pattern in TOPICS.items()}
    return {topic: anchor(hit) for topic, hit in hits.items() if hit}


def box(items: list[dict], links: dict[str, str] | None = None, default: str = "headline-figures") -> str:
    """The Findings box: one list item per finding, each with a link to the section that explains it: `links`
    maps a finding's topic to an anchor (a report); without it the finding's section is the anchor (other pages)."""
    if not items:
        return ""
    links = links or {}
    rows = []
    for f in items:
        section = f.get("section") or default
        target = links[section] if section in links else (default if links else section)
        link = f" <a href='#{html.escape(target)}'>details</a>"
        rows.append(f"<li>{html.escape(f['text'])}{link}</li>")
    return ("<div class='findings' id='findings'><h2>Findings</h2><ol>" + "".join(rows) + "</ol></div>")
