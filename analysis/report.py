"""Build a game's report: summary.json (the contract), PNG plots and one self-contained report.html.

Each game contributes `analysis/<game>.py` with `summarize(tables, meta) -> {metric: {estimate, ci_low,
ci_high, n}}` and `sections(tables, meta, summary, outdir) -> [{title, text, figures: [{file, reading}]}]`.
"""
from __future__ import annotations

import base64
import contextlib
import html
import json
import math
import os
import shutil
import warnings
from pathlib import Path

import numpy as np

from analysis import findings as findings_mod
from analysis.models import MIN_MODEL_GAMES
from analysis.progress import phase
from analysis.replay.samples import section as sample_games
from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from sim.results import install


@contextlib.contextmanager
def quiet_numpy():
    """Figures over no rows (a degenerate configuration, an empty subset) are NaN and reported as n/a; numpy's
    RuntimeWarnings about them (empty means, 0/0) would only add noise to the terminal."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def summary_for(tables, meta) -> dict:
    module = get_game(meta["game"]).module("analysis")
    summary = {"game": meta["game"], "games": int(meta["games"])}
    with quiet_numpy():
        summary.update(module.summarize(tables, meta))
    if meta.get("partial"):
        summary["partial"] = True
    return summary


def config_warnings(meta) -> tuple:
    """The configuration's degenerate-setting lines (the ones `run` warned about), read again from meta.json's
    configuration; a configuration this version no longer accepts has none to give."""
    spec = get_game(meta["game"])
    try:
        cfg = spec.validate(meta.get("config") or {}, int(meta.get("players") or spec.default_players))
    except (UserError, KeyError, TypeError, ValueError):
        return ()
    return tuple(getattr(cfg, "warnings", ()))


def findings_for(summary: dict, meta, tables=None) -> list[dict]:
    """The report's ranked findings (analysis.findings), with the game's words for its decisive sources."""
    module = get_game(meta["game"]).module("analysis")
    context = module.finding_context(meta, tables) if hasattr(module, "finding_context") else {}
    return findings_mod.findings(summary, warnings=config_warnings(meta), **context)


def build_report(tables, meta, outdir) -> dict:
    outdir = Path(outdir)
    module = get_game(meta["game"]).module("analysis")
    with phase(f"{meta['game']} report: figures and intervals"):
        summary = summary_for(tables, meta)
        summary["findings"] = findings_for(summary, meta, tables)
    (outdir / "summary.json").write_text(json.dumps(_clean(summary), indent=2) + "\n")
    with phase(f"{meta['game']} report: plots"), quiet_numpy():
        sections = module.sections(tables, meta, summary, outdir)
    with phase(f"{meta['game']} report: sample games to replay"):
        sections.append(sample_games(tables, meta, outdir))  # links to replays of chosen games
    (outdir / "report.html").write_text(_html(meta, summary, sections, outdir, getattr(module, "HEADLINES", ())))
    return summary


def build_summary_report(summary: dict, meta, outdir) -> dict:
    """--summary-only runs keep no tables: summary.json and a report of the headline figures alone."""
    outdir = Path(outdir)
    summary = {"game": meta["game"], "games": int(meta["games"]), **summary}
    summary["findings"] = findings_for(summary, meta)
    (outdir / "summary.json").write_text(json.dumps(_clean(summary), indent=2) + "\n")
    module = get_game(meta["game"]).module("analysis")
    note = {"title": "Summary-only run",
            "text": "This run aggregated its figures batch by batch in the workers and kept no per-game tables, "
                    "so it has no plots; run without --summary-only (on fewer games) for the full report."}
    (outdir / "report.html").write_text(_html(meta, summary, [note], outdir, getattr(module, "HEADLINES", ())))
    return summary


def write_atomically(target, build):
    """Run `build(folder)` in a hidden staging folder and move what it wrote into `target` only when it
    finished: a failure (a full disk, a damaged table) leaves `target` as it was, with nothing half-written.
    In an existing `target` only what balance-sim wrote is replaced (`sim.results.install`)."""
    target = Path(target)
    exists = target.is_dir()
    staging = target / f".report-{os.getpid()}.tmp" if exists else \
        target.with_name(f".{target.name}.report-{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir(parents=True)
        result = build(staging)
        if exists:  # what is ours there is replaced (replays/ included); a user's file of the same name refused
            install(staging, target)
            staging.rmdir()
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


def _clean(value):
    """JSON has no NaN: undefined figures are written as null."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def config_changes(meta) -> list[str]:
    """Keys that differ from the shipped defaults, as `key = value` lines."""
    try:
        defaults = load_defaults(get_game(meta["game"]).package)
    except (FileNotFoundError, ModuleNotFoundError, UserError):
        return []
    changes = []

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                walk(a.get(key), b.get(key), f"{path}{key}.")
        elif b is None and a is not None:
            return  # a key this version added (e.g. Mughal's report table) that the run's configuration predates
        elif a != b:
            changes.append(f"{path.rstrip('.')} = {json.dumps(b)} (default {json.dumps(a)})")

    walk(defaults, meta.get("config", {}), "")
    return changes


def fmt_metric(name: str, m) -> str:
    if not isinstance(m, dict) or m.get("estimate") is None:
        return "n/a"
    est, lo, hi = m["estimate"], m["ci_low"], m["ci_high"]
    if m.get("too_few_games"):  # a model fit to a handful of games: its number would mislead
        return f"too few games (n = {m['n']:,}; a model figure needs {MIN_MODEL_GAMES:,})"
    if name.startswith("strength["):
        if m.get("bound") in ("upper", "lower"):  # the data bound it on one side only
            return f"{'below' if m['bound'] == 'upper' else 'above'} {est:+.0f} Elo (one-sided 95% bound)"
        return f"{est:+.0f} Elo (95% CI {lo:+.0f} to {hi:+.0f})"
    if name.startswith("nash_weight["):
        span = m.get("range_low"), m.get("range_high")
        if None not in span and span[1] - span[0] > 1e-6:  # the equilibrium is not unique
            return f"{span[0]:.0%} to {span[1]:.0%} over the equilibria (95% CI {lo:.0%}-{hi:.0%})"
        return f"{est:.0%} (95% CI {lo:.0%}-{hi:.0%})"
    is_rate = "rate" in name or name == "balance"
    if is_rate:
        return f"{est:.1%} (95% CI {lo:.1%}-{hi:.1%})"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{est:.2f}"
    return f"{est:.2f} (95% CI {lo:.2f}-{hi:.2f})"


# plain names for the code names of summary.json (a game adds its own in its module's LABELS)
LABELS = {
    "first_player_round_win_rate": "Round starter wins the round",
    "first_player_match_win_rate": "Match starter wins the match",
    "first_player_win_rate": "Round-1 first player wins",
    "seat0_match_win_rate": "Seat 0 wins the match",
    "drawn_round_rate": "Round is drawn",
    "turns_per_round": "Turns per round",
    "rounds_per_match": "Rounds per match",
    "rounds_per_game": "Rounds per game",
    "coin_token_rate": "Coin token awarded in a round",
    "minutes_per_match": "Minutes per match",
    "minutes_per_game": "Minutes per game (at an assumed pace)",
    "picks_per_game": "Action steps per game",
    "balance": "Balance (1 - seat 0's win-rate gap at equal skill)",
    "close_round_rate": "Round decided by 3 rupees or fewer",
    "decision_move_rate": "Turns with a real choice",
    "score_margin": "Winning margin of a round (rupees)",
    "tie_rate": "Game tied (shared win)",
    "vt_total": "Final VT per player",
    "round_cap_rate": "Game reaches the round cap",
    "coins_short_rate": "Game needs more coins than the box holds",
}
_PREFIXES = {"win_rate": "{} wins (share of its games, its own mirror games included)",
             "win_rate_vs_field": "{} wins against the other strategies (its mirror games left out)",
             "strength": "{}'s strength (Elo)",
             "nash_weight": "{}'s weight in the equilibrium mix", "seat_win_rate": "Seat {} wins",
             "position_win_rate": "Player {} seats after the round-1 first player wins",
             "decisive_rate": "Winner changes without {}"}
_SUFFIXES = {"all_games": "over every game (not at equal skill)", "later_rounds": "in rounds 2 and later",
             "heuristic": "in heuristic-only games", "expert": "in search-only games",
             "certain": "certain changes only", "ambiguous": "unfinished without it (counted as half)"}


def plain_name(name: str, labels: dict | None = None) -> str:
    """A designer's words for a summary.json key: `first_player_round_win_rate[mirror=greedy]` reads "Round
    starter wins the round, mirror games of greedy". Unknown keys come back as they are."""
    labels = {**LABELS, **(labels or {})}
    base, _, rest = name.partition("[")
    parts = [p.rstrip("]") for p in rest.split("[")] if rest else []
    if base in _PREFIXES and parts:
        text = _PREFIXES[base].format(parts.pop(0))
        if base == "position_win_rate" and text.startswith("Player 0 seats"):
            text = "Round-1 first player wins"
    elif base in labels:
        text = labels[base]
    else:
        return name
    for part in parts:
        key, _, value = part.partition("=")
        if key == "mirror":
            text += f", mirror games of {value}"
        elif key == "round":
            text += f", round {value}"
        elif key in _SUFFIXES:
            text += f", {_SUFFIXES[key]}"
        else:
            text += f" [{part}]"
    return text


def _how_measured(m: dict) -> str:
    return {"mirror": " (equal skill: mirror games)", "model": " (equal skill: model)"}.get(m.get("population"), "")


def _in_headline_table(name: str, headlines) -> bool:
    if not headlines or name in headlines:
        return True
    base = name.partition("[")[0]
    return name.count("[") == 1 and base in ("win_rate", "win_rate_vs_field", "strength", "nash_weight", "seat_win_rate",
                                              "position_win_rate")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#1f2933;line-height:1.5}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #e4e7eb;padding-bottom:.2em;margin-top:2em}
.meta{color:#52606d}.fig{margin:1.2em 0}.fig img{max-width:100%;border:1px solid #e4e7eb;border-radius:4px}
.reading{margin:.3em 0 0 0;color:#323f4b;font-style:italic}
table{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}
td,th{padding:.3em .8em;border-bottom:1px solid #e4e7eb;text-align:left}
th{font-size:.92em;overflow-wrap:anywhere;min-width:5em}code{color:#52606d;font-size:.85em;overflow-wrap:anywhere}
.partial{background:#fff3cd;border:1px solid #e0b000;padding:.6em 1em;border-radius:4px}
.lead{font-size:1.08em;background:#f0f4f8;padding:.8em 1em;border-radius:4px}
""" + findings_mod.CSS


def _html(meta, summary, sections, outdir: Path, headlines) -> str:
    spec = get_game(meta["game"])
    labels = getattr(spec.module("analysis"), "LABELS", {})
    title = f"{spec.title} balance report"
    strategies = ", ".join(s["name"] for s in meta.get("strategies", []))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p class='meta'>{meta['games']:,} games, {meta.get('players', 2)} players, seed {meta['seed']}, "
             f"strategies: {html.escape(strategies)}; made with balance-sim "
             f"{html.escape(str(meta.get('versions', {}).get('balance-sim', '')))} on "
             f"{html.escape(str(meta.get('created', '')))}.</p>"]
    if meta.get("partial"):
        parts.append("<p class='partial'>This run is <b>partial</b>: only the finished batches are included.</p>")
    parts.append(findings_mod.box(summary.get("findings") or [],
                                  findings_mod.section_links([s["title"] for s in sections])))
    changes = config_changes(meta)
    parts.append("<p class='meta'>Configuration: " + ("defaults." if not changes else
                 "defaults except " + "; ".join(html.escape(c) for c in changes) + ".") + "</p>")
    parts.append("<h2 id='headline-figures'>Headline figures</h2><table><tr><th>figure</th><th>value</th><th>code name "
                 "(summary.json)</th></tr>")
    for name, m in summary.items():
        if name == "position_win_rate[0]" and "first_player_win_rate" in summary:
            continue  # the same figure as first_player_win_rate, which reads the same: once is enough
        if isinstance(m, dict) and _in_headline_table(name, headlines):
            parts.append(f"<tr><td>{html.escape(plain_name(name, labels) + _how_measured(m))}</td>"
                         f"<td>{html.escape(fmt_metric(name, m))}</td><td><code>{html.escape(name)}</code></td></tr>")
    parts.append("</table>")
    for section in sections:
        parts.append(f"<h2 id='{findings_mod.anchor(section['title'])}'>{html.escape(section['title'])}</h2>")
        if section.get("text"):
            parts.append(f"<p class='lead'>{html.escape(section['text'])}</p>")
        if section.get("html"):
            parts.append(section["html"])
        for fig in section.get("figures", []):
            data = base64.b64encode((outdir / fig["file"]).read_bytes()).decode()
            parts.append(f"<div class='fig'><img alt='{html.escape(fig['reading'])}' "
                         f"src='data:image/png;base64,{data}'><p class='reading'>{html.escape(fig['reading'])}</p>"
                         "</div>")
    parts.append("<p class='meta'>Intervals are 95% (Wilson for rates, normal for means, the model's information "
                 "matrix for strengths and model estimates, bootstrap for the equilibrium mix). First-player and "
                 "seat figures are at equal skill: from mirror games (every seat the same strategy) when the run "
                 "has them, otherwise from a model with a strength per strategy. summary.json holds every "
                 "headline figure.</p></body></html>")
    return "\n".join(parts)
