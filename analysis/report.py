"""Build a game's report: summary.json (the contract), PNG plots and one self-contained report.html.

Each game contributes `analysis/<game>.py` with `summarize(tables, meta) -> {metric: {estimate, ci_low,
ci_high, n}}` and `sections(tables, meta, summary, outdir) -> [{title, text, figures: [{file, reading}]}]`.
"""
from __future__ import annotations

import base64
import html
import importlib
import json
import math
from pathlib import Path

from analysis.replay.samples import section as sample_games
from sim.config import load_defaults


def summary_for(tables, meta) -> dict:
    module = importlib.import_module(f"analysis.{meta['game']}")
    summary = {"game": meta["game"], "games": int(meta["games"])}
    summary.update(module.summarize(tables, meta))
    if meta.get("partial"):
        summary["partial"] = True
    return summary


def build_report(tables, meta, outdir) -> dict:
    outdir = Path(outdir)
    module = importlib.import_module(f"analysis.{meta['game']}")
    summary = summary_for(tables, meta)
    (outdir / "summary.json").write_text(json.dumps(_clean(summary), indent=2) + "\n")
    sections = module.sections(tables, meta, summary, outdir)
    sections.append(sample_games(tables, meta, outdir))  # links to replays of chosen games
    (outdir / "report.html").write_text(_html(meta, summary, sections, outdir, getattr(module, "HEADLINES", ())))
    return summary


def build_summary_report(summary: dict, meta, outdir) -> dict:
    """--summary-only runs keep no tables: summary.json and a report of the headline figures alone."""
    outdir = Path(outdir)
    summary = {"game": meta["game"], "games": int(meta["games"]), **summary}
    (outdir / "summary.json").write_text(json.dumps(_clean(summary), indent=2) + "\n")
    module = importlib.import_module(f"analysis.{meta['game']}")
    note = {"title": "Summary-only run",
            "text": "This run aggregated its figures batch by batch in the workers and kept no per-game tables, "
                    "so it has no plots; run without --summary-only (on fewer games) for the full report."}
    (outdir / "report.html").write_text(_html(meta, summary, [note], outdir, getattr(module, "HEADLINES", ())))
    return summary


def _clean(value):
    """JSON has no NaN: undefined figures are written as null."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def config_changes(meta) -> list[str]:
    """Keys that differ from the shipped defaults, as `key = value` lines."""
    try:
        defaults = load_defaults(f"sim.{meta['game']}")
    except (FileNotFoundError, ModuleNotFoundError):
        return []
    changes = []

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                walk(a.get(key), b.get(key), f"{path}{key}.")
        elif a != b:
            changes.append(f"{path.rstrip('.')} = {json.dumps(b)} (default {json.dumps(a)})")

    walk(defaults, meta.get("config", {}), "")
    return changes


def fmt_metric(name: str, m) -> str:
    if not isinstance(m, dict) or m.get("estimate") is None:
        return "n/a"
    est, lo, hi = m["estimate"], m["ci_low"], m["ci_high"]
    is_rate = "rate" in name or name.startswith("win_rate") or name.startswith("seat_win_rate")
    if is_rate:
        return f"{est:.1%} (95% CI {lo:.1%}-{hi:.1%})"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{est:.2f}"
    return f"{est:.2f} (95% CI {lo:.2f}-{hi:.2f})"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#1f2933;line-height:1.5}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #e4e7eb;padding-bottom:.2em;margin-top:2em}
.meta{color:#52606d}.fig{margin:1.2em 0}.fig img{max-width:100%;border:1px solid #e4e7eb;border-radius:4px}
.reading{margin:.3em 0 0 0;color:#323f4b;font-style:italic}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.3em .8em;border-bottom:1px solid #e4e7eb;text-align:left}
.partial{background:#fff3cd;border:1px solid #e0b000;padding:.6em 1em;border-radius:4px}
.lead{font-size:1.08em;background:#f0f4f8;padding:.8em 1em;border-radius:4px}
"""


def _html(meta, summary, sections, outdir: Path, headlines) -> str:
    title = f"{meta['game'].title()} balance report"
    strategies = ", ".join(s["name"] for s in meta.get("strategies", []))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p class='meta'>{meta['games']:,} games, {meta.get('players', 2)} players, seed {meta['seed']}, "
             f"strategies: {html.escape(strategies)}; made with balance-sim "
             f"{html.escape(str(meta.get('versions', {}).get('balance-sim', '')))} on "
             f"{html.escape(str(meta.get('created', '')))}.</p>"]
    if meta.get("partial"):
        parts.append("<p class='partial'>This run is <b>partial</b>: only the finished batches are included.</p>")
    changes = config_changes(meta)
    parts.append("<p class='meta'>Configuration: " + ("defaults." if not changes else
                 "defaults except " + "; ".join(html.escape(c) for c in changes) + ".") + "</p>")
    parts.append("<h2>Headline figures</h2><table><tr><th>figure</th><th>value</th></tr>")
    for name, m in summary.items():
        if isinstance(m, dict) and (not headlines or name in headlines or name.startswith("win_rate[")):
            parts.append(f"<tr><td>{html.escape(name)}</td><td>{html.escape(fmt_metric(name, m))}</td></tr>")
    parts.append("</table>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section['title'])}</h2>")
        if section.get("text"):
            parts.append(f"<p class='lead'>{html.escape(section['text'])}</p>")
        if section.get("html"):
            parts.append(section["html"])
        for fig in section.get("figures", []):
            data = base64.b64encode((outdir / fig["file"]).read_bytes()).decode()
            parts.append(f"<div class='fig'><img alt='{html.escape(fig['reading'])}' "
                         f"src='data:image/png;base64,{data}'><p class='reading'>{html.escape(fig['reading'])}</p>"
                         "</div>")
    parts.append("<p class='meta'>Intervals are 95% (Wilson for rates, normal for means). summary.json holds "
                 "every headline figure.</p></body></html>")
    return "\n".join(parts)
