"""Build a game's report: summary.json (the contract), PNG plots and one self-contained report.html, from
each game's `analysis/<game>.py` (`summarize(tables, meta)` and `sections(tables, meta, summary, outdir)`)."""
from __future__ import annotations

import html
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np

from analysis import findings as findings_mod, strata
from analysis.formatting import CSS, figure_html, fmt_metric, plain_name
from analysis.progress import phase
from analysis.replay.samples import section as sample_games
from analysis.summary import quiet_numpy, summary_for
from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from sim.results import install


def findings_for(summary: dict, meta, tables=None) -> list[dict]:
    """The report's ranked findings (analysis.findings), with the game's words for its decisive sources and the
    configuration's degenerate-setting lines (those `run` warned about; none from one this version refuses)."""
    spec = get_game(meta["game"])
    try:
        warnings = getattr(spec.validate(meta.get("config") or {}, int(meta.get("players") or spec.default_players)),
                           "warnings", ())
    except (UserError, KeyError, TypeError, ValueError):
        warnings = ()
    module = spec.module("analysis")
    context = module.finding_context(meta, tables) if hasattr(module, "finding_context") else {}
    return findings_mod.findings(summary, warnings=tuple(warnings), **context)


def build_report(tables, meta, outdir, game_of_run=None) -> dict:
    """summary.json, the plots and report.html of a run's tables in `outdir`. `game_of_run(meta, index)` (the
    commands pass `sim.setup.from_meta`) gives the sample games to trace into replay pages."""
    outdir = Path(outdir)
    module = get_game(meta["game"]).module("analysis")
    with phase(f"{meta['game']} report: figures and intervals"):
        summary = summary_for(tables, meta)
        summary.update(strata.summary_fields(module, tables, meta, summary))  # where the edge lives (fields added)
        summary["findings"] = findings_for(summary, meta, tables)
    write_json(outdir / "summary.json", summary)
    with phase(f"{meta['game']} report: plots"), quiet_numpy():
        sections = module.sections(tables, meta, summary, outdir)
        strata.insert_section(sections, strata.section(module, tables, meta, summary, outdir))
    with phase(f"{meta['game']} report: sample games to replay"):
        sections.append(sample_games(tables, meta, outdir, game_of_run=game_of_run))  # replays of chosen games
    (outdir / "report.html").write_text(_html(meta, summary, sections, outdir))
    return summary


def build_summary_report(summary: dict, meta, outdir) -> dict:
    """--summary-only runs keep no tables: summary.json and a report of the headline figures alone."""
    outdir = Path(outdir)
    summary = {"game": meta["game"], "games": int(meta["games"]), **summary}
    summary["findings"] = findings_for(summary, meta)
    write_json(outdir / "summary.json", summary)
    note = {"title": "Summary-only run",
            "text": "This run aggregated its figures batch by batch in the workers and kept no per-game tables, "
                    "so it has no plots; run without --summary-only (on fewer games) for the full report."}
    (outdir / "report.html").write_text(_html(meta, summary, [note], outdir))
    return summary


def write_atomically(target, build):
    """Run `build(folder)` in a hidden staging folder and move what it wrote into `target` only when it finished
    (nothing half-written); in an existing `target` only what balance-sim wrote is replaced."""
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


def write_json(path: Path, value) -> None:
    """JSON has no NaN: undefined figures are written as null (numpy scalars as plain ones)."""
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, (float, np.floating)):
            return float(v) if math.isfinite(v) else None
        return bool(v) if isinstance(v, np.bool_) else v

    path.write_text(json.dumps(clean(value), indent=2) + "\n")


def config_diff(a, b, was: str = "A:", path: str = "", predates: bool = False) -> list[str]:
    """Keys whose values differ between two configurations, as `key = b's value (<was> a's value)`; `predates`: a
    key b lacks is one this version added (e.g. Mughal's report table) that b's run predates, not a change."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [line for key in sorted(set(a) | set(b))
                for line in config_diff(a.get(key), b.get(key), was, f"{path}{key}.", predates)]
    if a == b or (predates and b is None):
        return []
    return [f"{path.rstrip('.')} = {json.dumps(b)} ({was} {json.dumps(a)})"]


def config_changes(meta) -> list[str]:
    """Keys that differ from the shipped defaults, as `key = value (default ...)` lines."""
    try:
        defaults = load_defaults(get_game(meta["game"]).package)
    except (FileNotFoundError, ModuleNotFoundError, UserError):
        return []
    return config_diff(defaults, meta.get("config", {}), "default", predates=True)


HOW_MEASURED = {"mirror": " (equal skill: mirror games)", "model": " (equal skill: model)"}


def _in_headline_table(name: str, headlines) -> bool:
    if not headlines or name in headlines:
        return True
    base = name.partition("[")[0]
    return name.count("[") == 1 and base in ("win_rate", "win_rate_vs_field", "strength", "nash_weight", "seat_win_rate",
                                              "position_win_rate")


def _html(meta, summary, sections, outdir: Path) -> str:
    spec = get_game(meta["game"])
    labels, headlines = (getattr(spec.module("analysis"), name, {}) for name in ("LABELS", "HEADLINES"))
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
            words = plain_name(name, labels) + HOW_MEASURED.get(m.get("population"), "")
            parts.append(f"<tr><td>{html.escape(words)}</td><td>{html.escape(fmt_metric(name, m))}</td>"
                         f"<td><code>{html.escape(name)}</code></td></tr>")
    parts.append("</table>")
    for section in sections:
        parts.append(f"<h2 id='{findings_mod.anchor(section['title'])}'>{html.escape(section['title'])}</h2>")
        if section.get("text"):
            parts.append(f"<p class='lead'>{html.escape(section['text'])}</p>")
        if section.get("html"):
            parts.append(section["html"])
        for fig in section.get("figures", []):
            parts.append(figure_html(outdir / fig["file"], fig["reading"], alt_first=True))
    parts.append("<p class='meta'>Intervals are 95% (Wilson for rates, normal for means, the model's information "
                 "matrix for strengths and model estimates, bootstrap for the equilibrium mix). First-player and "
                 "seat figures are at equal skill: from mirror games (every seat the same strategy) when the run "
                 "has them, otherwise from a model with a strength per strategy. summary.json holds every "
                 "headline figure.</p></body></html>")
    return "\n".join(parts)
