"""Build a game's report: summary.json (the contract), PNG plots and one self-contained report.html, from
each game's `analysis/<game>.py` (`summarize(tables, meta)` and `sections(tables, meta, summary, outdir)`)."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np

from analysis import across_skill, findings as findings_mod, strata
from analysis.edges import largest_edge
from analysis.formatting import CSS, esc, figure_html, fmt_metric, plain_name
from analysis.progress import phase
from analysis.replay.samples import section as sample_games
from analysis.summary import players_of, quiet_numpy, summary_for
from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from sim.results import install


def conclude(summary: dict, meta, tables=None) -> dict:
    """The summary with its `strategy_kinds` (which strategies are hand-written play styles, evolved or search
    players: analysis.across_skill.kinds), `conclusions` (analysis.conclusions, each with its sentence) and
    `findings` (analysis.findings, from those conclusions): computed once, here, for every page."""
    summary["strategy_kinds"] = across_skill.kinds(meta)
    spec = get_game(meta["game"])
    module = spec.module("analysis")
    context = module.finding_context(meta, tables) if hasattr(module, "finding_context") else {}
    summary["conclusions"] = findings_mod.every_conclusion(summary, **context)
    summary["findings"] = findings_for(summary, meta, tables, summary["conclusions"])
    return summary


def findings_for(summary: dict, meta, tables=None, conclusions=None) -> list[dict]:
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
    return findings_mod.findings(summary, warnings=tuple(warnings), conclusions=conclusions, **context)


def build_report(tables, meta, outdir, game_of_run=None) -> dict:
    """summary.json, the plots and report.html of a run's tables in `outdir`. `game_of_run(meta, index)` (the
    commands pass `sim.setup.from_meta`) gives the sample games to trace into replay pages."""
    outdir = Path(outdir)
    module = get_game(meta["game"]).module("analysis")
    with phase(f"{meta['game']} report: figures and intervals"):
        summary = summary_for(tables, meta)
        summary.update(strata.summary_fields(module, tables, meta, summary))  # where the edge lives (fields added)
        summary = conclude(summary, meta, tables)
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
    summary = {"game": meta["game"], "games": int(meta["games"]), "players": players_of(meta), **summary}
    edge = largest_edge(summary)
    if edge:
        summary["largest_edge"] = edge
    summary = conclude(summary, meta)
    write_json(outdir / "summary.json", summary)
    note = {"title": "Summary-only run",
            "text": "This run aggregated its figures batch by batch in the workers and kept no per-game tables, "
                    "so it has no plots; run without --summary-only (on fewer games) for the full report."}
    (outdir / "report.html").write_text(_html(meta, summary, [note], outdir))
    return summary


STAGING = re.compile(r"\.report-(\d{1,10})\.tmp(\.old)?")  # write_atomically's names, in and beside a target


def remove_stale_staging(target: Path) -> None:
    """Staging folders a killed report left (`kill -9`, a power cut): only names write_atomically gives, only
    folders (not links), only if the process that made them is gone."""
    places = [(target, "")] if target.is_dir() else []
    places.append((target.parent, f".{target.name}"))
    for folder, prefix in places:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            found = STAGING.fullmatch(entry.name[len(prefix):]) if entry.name.startswith(prefix) else None
            if found and int(found.group(1)) != os.getpid() and not process_alive(int(found.group(1))) \
                    and entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)


def process_alive(pid: int) -> bool:
    """Whether a process of that id exists (one of another user's counts: it may be writing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def write_atomically(target, build):
    """Run `build(folder)` in a hidden staging folder and move what it wrote into `target` only when it finished
    (nothing half-written); in an existing `target` only what balance-sim wrote is replaced."""
    target = Path(target)
    exists = target.is_dir()
    remove_stale_staging(target)
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
    if not headlines or name in headlines or name == "largest_edge":
        return True
    base = name.partition("[")[0]
    return name.count("[") == 1 and base in ("win_rate", "win_rate_vs_field", "strength", "nash_weight", "seat_win_rate",
                                              "position_win_rate")


def _html(meta, summary, sections, outdir: Path) -> str:
    spec = get_game(meta["game"])
    labels, headlines = (getattr(spec.module("analysis"), name, {}) for name in ("LABELS", "HEADLINES"))
    title = f"{spec.title} balance report"
    strategies = ", ".join(s["name"] for s in meta.get("strategies", []))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>",
             f"<p class='meta'>{meta['games']:,} games, {meta.get('players', 2)} players, seed {meta['seed']}, "
             f"strategies: {esc(strategies)}; made with balance-sim "
             f"{esc(str(meta.get('versions', {}).get('balance-sim', '')))} on "
             f"{esc(str(meta.get('created', '')))}.</p>"]
    if meta.get("partial"):
        parts.append("<p class='partial'>This run is <b>partial</b>: only the finished batches are included.</p>")
    parts.append(findings_mod.box(summary.get("findings") or [],
                                  findings_mod.section_links([s["title"] for s in sections])))
    changes = config_changes(meta)
    parts.append("<p class='meta'>Configuration: " + ("defaults." if not changes else
                 "defaults except " + "; ".join(esc(c) for c in changes) + ".") + "</p>")
    parts.append("<h2 id='headline-figures'>Headline figures</h2><table><tr><th>figure</th><th>value</th><th>code name "
                 "<span style='white-space:nowrap'>(summary.json)</span></th></tr>")  # th breaks anywhere
    first = ["largest_edge"] if "largest_edge" in summary else []  # the headline a designer asks first
    for name, m in [(k, summary[k]) for k in first] + [(k, v) for k, v in summary.items() if k not in first]:
        if name == "position_win_rate[0]" and "first_player_win_rate" in summary:
            continue  # the same figure as first_player_win_rate, which reads the same: once is enough
        if isinstance(m, dict) and "estimate" in m and _in_headline_table(name, headlines):
            words = plain_name(name, labels) + HOW_MEASURED.get(m.get("population"), "")
            parts.append(f"<tr><td>{esc(words)}</td><td>{esc(fmt_metric(name, m))}</td>"
                         f"<td><code>{esc(name)}</code></td></tr>")
    parts.append("</table>")
    for section in sections:
        parts.append(f"<h2 id='{findings_mod.anchor(section['title'])}'>{esc(section['title'])}</h2>")
        if section.get("text"):
            parts.append(f"<p class='lead'>{esc(section['text'])}</p>")
        if section.get("html"):
            parts.append(esc(section["html"]))  # a section's markup is Markup built by analysis.markup; any other
            # string is text, shown as such
        for fig in section.get("figures", []):
            parts.append(figure_html(outdir / fig["file"], fig["reading"], alt_first=True))
    parts.append("<p class='meta'>Intervals are 95% (Wilson for rates, normal for means, the model's information "
                 "matrix for strengths and model estimates, bootstrap for the equilibrium mix). First-player and "
                 "seat figures are at equal skill: from mirror games (every seat the same strategy) when the run "
                 "has them, otherwise from a model with a strength per strategy. summary.json holds every "
                 "headline figure.</p></body></html>")
    return "\n".join(parts)
