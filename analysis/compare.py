"""`balance-sim compare DIR_A DIR_B`: every headline figure of two runs, B minus A, with a 95% interval and a
verdict (method: analysis/paired.py); writes compare.json, compare.png and compare.html."""
from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import numpy as np

from analysis import findings, percent
from analysis import paired as pairing_stats
from analysis.progress import phase
from analysis.formatting import CSS, LABELS, esc, figure_html, is_rate
from analysis.report import conclude, config_changes, config_diff, write_json
from analysis.style import ACCENT, NEUTRAL, new_panels, save
from sim import meta as folder_meta, report_folder, results
from sim.errors import UserError
from sim.lock import exclusive, shared
from analysis.summary import summary_for
from analysis.edges import TWO_SEAT_EDGES

REAL, NOISE = "real change", "within noise"

# plain names of the headline figures: the report's, shorter for a table column; others: the code name spelled out
PLAIN = {**{k: v for k, v in LABELS.items() if k != "picks_per_game"},
         "first_player_win_rate": "First player wins", "drawn_round_rate": "Round ends in a draw",
         "minutes_per_game": "Minutes per game", "score_margin": "Round's winning margin (rupees)",
         "tie_rate": "Shared victory", "vt_total": "VT per player", "winning_margin": "Winning margin (VT)",
         "coins_short_rate": "Bank runs short of coins"}


# figures of one strategy or seat: `name[arg]` said in words
PLAIN_OF_ONE = {"win_rate": "{} wins", "seat_win_rate": "Seat {} wins", "strength": "{}'s strength (Elo)",
                "nash_weight": "{}'s weight in the equilibrium mix"}


def plain_name(name: str) -> str:
    if name in PLAIN:
        return PLAIN[name]
    base, _, arg = name.partition("[")
    arg = arg.rstrip("]")
    if base in PLAIN_OF_ONE:
        return PLAIN_OF_ONE[base].format(arg)
    if base == "decisive_rate":
        return f"Winner changes without {findings.source_label(arg)}"
    label = PLAIN.get(base, base.replace("_", " ").capitalize())
    return f"{label} ({arg})" if arg else label


# figures whose value depends on which strategies played: across different lineups they are not comparable
LINEUP_PREFIXES = ("win_rate[", "win_rate_vs_field[", "strength[", "nash_weight[", "skill_gap[")
NOT_COMPARABLE = "not comparable"


def is_share(name: str) -> bool:
    """Shown in % and compared in percentage points: the rates, and the equilibrium mix's weights."""
    return is_rate(name) or name.startswith("nash_weight[")


def edge_name(summary_a: dict, summary_b: dict) -> str | None:
    """The figure that carries the run's edge: A's `largest_edge` (else B's) where both runs have it, else the
    first starter or seat figure both have; None without one."""
    for s in (summary_a, summary_b):
        key = (s.get("largest_edge") or {}).get("figure") if isinstance(s.get("largest_edge"), dict) else None
        if isinstance(key, str) and isinstance(summary_a.get(key), dict) and isinstance(summary_b.get(key), dict):
            return key
    return next((k for k in TWO_SEAT_EDGES if isinstance(summary_a.get(k), dict)
                 and isinstance(summary_b.get(k), dict)), None)


def compared_names(game: str, summary_a: dict, summary_b: dict) -> list[str]:
    """The headline figures (analysis.paired), then every strategy's strength and equilibrium weight and every
    decisive source's rate that both runs have (one bracket: not the per-round or per-subset variants)."""
    names = pairing_stats.headline_names(game, summary_a, summary_b)
    edge = edge_name(summary_a, summary_b)
    if edge and edge not in names:  # the edge's verdict is always stated (Findings), so always compared
        names.insert(0, edge)
    for prefix in ("strength[", "nash_weight[", "decisive_rate["):
        names += [k for k, m in summary_a.items() if k.startswith(prefix) and k.count("[") == 1
                  and isinstance(m, dict) and isinstance(summary_b.get(k), dict) and k not in names]
    return names


def lineup_diff(meta_a: dict, meta_b: dict) -> list[str]:
    """What differs in who played, in the same `key = B (A: A)` form as configuration keys."""
    out = []
    for key in ("game", "players"):
        if meta_a.get(key) != meta_b.get(key):
            out.append(f"{key} = {meta_b.get(key)} (A: {meta_a.get(key)})")
    names = [[s.get("name") for s in m.get("strategies", [])] for m in (meta_a, meta_b)]
    if _lineup(meta_a)[1:] != _lineup(meta_b)[1:] or names[0] != names[1]:
        out.append(f"strategies = {', '.join(names[1])} (A: {', '.join(names[0])})")
    return out


# ---- pairing --------------------------------------------------------------------------------------------------
def _lineup(meta: dict) -> tuple:
    return (meta.get("players"), bool(meta.get("round_robin")),
            tuple((s.get("name"), s.get("base"), tuple(s.get("params", ()))) for s in meta.get("strategies", [])))


def why_not_paired(meta_a: dict, meta_b: dict) -> list[str]:
    """Reasons the two runs' games cannot be matched one to one (empty: they can). Game i of each run is
    dealt from the same stream only with the same seed, batch size and lineup (strategies by game index)."""
    reasons = []
    for key, what in (("seed", "seeds"), ("batch_size", "batch sizes"), ("games", "numbers of games")):
        if meta_a.get(key) != meta_b.get(key):
            reasons.append(f"the {what} differ (A {meta_a.get(key)}, B {meta_b.get(key)})")
    if _lineup(meta_a) != _lineup(meta_b):
        reasons.append("the strategies or players differ, so game i does not seat the same lineup in both")
    for label, meta in (("A", meta_a), ("B", meta_b)):
        if meta.get("partial"):
            reasons.append(f"run {label} is partial")
        if meta.get("summary_only"):
            reasons.append(f"run {label} kept no per-game tables (--summary-only)")
    return reasons


def differences(names: list[str], summary_a: dict, summary_b: dict, blocks_a: dict, blocks_b: dict,
                paired: bool) -> dict:
    """B minus A for every named figure both runs have (no verdict yet: see `call_real`)."""
    rows = {}
    for name in names:
        result = None
        if name in blocks_a and name in blocks_b:
            result = pairing_stats.difference(blocks_a[name], blocks_b[name], paired)
            method = ("paired by game (common random numbers)" if paired
                      else "independent runs (Welch, blocks of games)")
        if result is None:
            result = pairing_stats.difference_from_intervals(summary_a.get(name), summary_b.get(name))
            method = "from the two runs' own intervals (not a sum over games, so not paired)"
        if result is not None:
            rows[name] = {"label": plain_name(name), **result, "method": method}
    return rows


def call_real(*families: dict) -> int:
    """p_adjusted and a verdict on every comparable row, corrected together (a page is one family); a row whose 95%
    interval excludes zero but is not real gets the corrected interval, to show why. Returns the count."""
    rows = [row for family in families for row in family.values() if row.get("comparable", True)]
    adjusted, real = pairing_stats.adjust([r["p"] for r in rows])
    from scipy.special import ndtri  # not scipy.stats: importing it costs about 1 CPU-s
    z = float(ndtri(1 - pairing_stats.ALPHA / (2 * max(len(rows), 1))))
    for row, p_adj, is_real in zip(rows, adjusted, real):
        row["p_adjusted"] = None if math.isnan(p_adj) else float(p_adj)
        row["verdict"] = REAL if is_real else NOISE
        excludes_zero = row["ci_low"] > 0 or row["ci_high"] < 0
        if not is_real and excludes_zero and row["ci_high"] > row["ci_low"]:
            se = (row["ci_high"] - row["ci_low"]) / (2 * 1.959963984540054)
            row["corrected_ci_low"], row["corrected_ci_high"] = row["diff"] - z * se, row["diff"] + z * se
    for family in families:
        for row in family.values():
            if not row.get("comparable", True):
                row.update({"p_adjusted": None, "verdict": NOT_COMPARABLE})
    return len(rows)


# ---- loading ------------------------------------------------------------------------------------------------
def load_run(folder: Path, label: str) -> tuple[dict, dict, dict | None]:
    """(meta, summary, tables or None) of a results folder, checked as `report` checks it (meta.json field by
    field, tables against it); one-line errors for anything else. `run_compare` has checked that it exists."""
    meta = folder_meta.read(folder)
    kind = next((k for k in ("sweep", "tune", "sensitivity") if k in meta), None)
    if kind:
        variants = (f" (a sweep's variants are: 'balance-sim compare {folder / 'variant-000'} "
                    f"{folder / 'variant-001'}')" if kind == "sweep" else "")
        raise UserError(f"compare: {label} {folder} is a {kind} folder, not a run's results folder; compare two "
                        f"'balance-sim run' folders{variants}")
    # the checks `report` makes: tables that agree with meta.json and are this game's, a sound summary.json
    kind, content, meta = report_folder.load(folder, f"compare: {label}")
    if kind == "summary":
        return meta, content, None
    if "summary" in content:  # an interrupted --summary-only run: its batches merged
        return meta, content["summary"], None
    return meta, summary_for(content, meta), content


def run_compare(dir_a: Path, dir_b: Path, out: Path | None = None) -> Path:
    """Check both folders and the output before any work, then write the files into a staging sibling and move
    it into place (`results.finish`); A and B under their read locks and `out` under its write lock."""
    dir_a, dir_b = Path(dir_a), Path(dir_b)
    for label, folder in (("A", dir_a), ("B", dir_b)):
        if not folder.is_dir():
            raise UserError(f"compare: {label} {folder}: no such folder")
    out = Path(out) if out else Path("reports") / f"compare-{dir_a.resolve().name}-vs-{dir_b.resolve().name}"
    for folder in (dir_a, dir_b):
        if out.exists() and out.resolve() == folder.resolve():
            raise UserError(f"-o {out}: is one of the folders compared; choose another path")
    with shared(dir_a, "compare: A"), shared(dir_b, "compare: B"), exclusive(out):
        results.check_output(out, "compare")
        game_a, game_b = folder_meta.read(dir_a).get("game"), folder_meta.read(dir_b).get("game")
        if game_a != game_b:
            raise UserError(f"compare: A is a {game_a} run and B a {game_b} run; compare two runs of the same game")
        with phase(f"compare: reading A ({dir_a})"):
            meta_a, summary_a, tables_a = load_run(dir_a, "A")
        with phase(f"compare: reading B ({dir_b})"):
            meta_b, summary_b, tables_b = load_run(dir_b, "B")
        return _write(dir_a, dir_b, out, meta_a, summary_a, tables_a, meta_b, summary_b, tables_b)


def _write(dir_a, dir_b, out, meta_a, summary_a, tables_a, meta_b, summary_b, tables_b) -> Path:
    game_a = meta_a["game"]
    reasons = why_not_paired(meta_a, meta_b)
    with phase("compare: the figures block by block (for the intervals)"):
        blocks_a = pairing_stats.block_statistics(tables_a, meta_a, summary_a) if tables_a is not None else {}
        blocks_b = pairing_stats.block_statistics(tables_b, meta_b, summary_b) if tables_b is not None else {}
    names = compared_names(game_a, summary_a, summary_b)
    rows = differences(names, summary_a, summary_b, blocks_a, blocks_b, paired=not reasons)
    lineups = lineup_diff(meta_a, meta_b)
    for name, row in rows.items():
        if lineups and name.startswith(LINEUP_PREFIXES):
            row["comparable"] = False
            row["why_not_comparable"] = "the runs played different lineups, and this figure depends on who played"
        else:
            row["comparable"] = True
            if lineups:
                row["caution"] = "mixes the configuration change with the change of lineup"
    call_real(rows)
    doc = {"game": game_a, "a": _describe(dir_a, meta_a), "b": _describe(dir_b, meta_b),
           "differences_in_lineup": lineups,
           "differences_in_configuration": config_diff(meta_a.get("config", {}), meta_b.get("config", {})),
           "paired": not reasons, "why_not_paired": reasons, "blocks": len(pairing_stats.block_edges(
               int(meta_a["games"]))) - 1, "correction": pairing_stats.CORRECTION, "alpha": pairing_stats.ALPHA,
           "diff": "B minus A", "metrics": rows, "edge": edge_name(summary_a, summary_b)}
    doc["conclusions"] = {key: run_conclusions(summary, meta, tables) for key, summary, meta, tables in
                          (("a", summary_a, meta_a, tables_a), ("b", summary_b, meta_b, tables_b))}
    doc["findings"] = compare_findings(doc)
    staging = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        write_json(staging / "compare.json", doc)
        plot_differences(rows, staging / "compare.png", "Differences, B minus A")
        (staging / "compare.html").write_text(_html(doc, staging))
        results.write_meta(staging, {"kind": "compare", "game": game_a, "a": str(dir_a), "b": str(dir_b)})
        results.finish(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def _describe(folder: Path, meta: dict) -> dict:
    return {"folder": str(folder), "games": meta.get("games"), "seed": meta.get("seed"),
            "batch_size": meta.get("batch_size"), "strategies": [s.get("name") for s in meta.get("strategies", [])],
            "configuration": config_changes(meta)}


# ---- presentation --------------------------------------------------------------------------------------------
def fmt_value(name: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if name.startswith("strength["):
        return f"{value:+.0f} Elo"
    return percent.pct(value) if is_share(name) else f"{value:.2f}"


def _number(value: float, half_width: float) -> str:
    """Signed, with enough decimals to show the interval's width (two significant digits of it)."""
    digits = 2 if not half_width or not math.isfinite(half_width) else 1 - math.floor(math.log10(half_width))
    return f"{value:+.{min(max(digits, 0), 6)}f}"


def _signed(name: str, low: float, high: float):
    """A formatter of differences on the interval low..high: shares in points, two decimals."""
    if is_share(name):
        return lambda v: f"{v * 100:+.2f}"
    return lambda v: _number(v, (high - low) / 2)


def fmt_diff(name: str, row: dict) -> str:
    """`+1.20 pts (+0.80 to +1.60)` for rates, `+12 Elo (+3 to +21)` for strengths, `+1.5 (+1.1 to +1.9)`
    otherwise."""
    unit = " pts" if is_share(name) else " Elo" if name.startswith("strength[") else ""
    f = _signed(name, row["ci_low"], row["ci_high"])
    return f"{f(row['diff'])}{unit} ({f(row['ci_low'])} to {f(row['ci_high'])})"


def fmt_corrected(name: str, row: dict) -> str:
    """Why an interval that excludes zero is still within noise: the interval after the correction."""
    if "corrected_ci_low" not in row:
        return ""
    f = _signed(name, row["corrected_ci_low"], row["corrected_ci_high"])
    return (f"; corrected for every figure compared: {f(row['corrected_ci_low'])} to "
            f"{f(row['corrected_ci_high'])}, which holds zero")


def fmt_p(p) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}"


def plot_differences(rows: dict, path: Path, title: str) -> None:
    """One row per figure: the difference and its 95% interval (rates in points, others in % of A's value); the
    wider grey bar, where paired, is the interval the same runs would give if independent."""
    shown = [n for n in rows if rows[n].get("comparable", True)]
    strength = [n for n in shown if n.startswith("strength[")]
    panels = [("rates: B minus A (percentage points)", [n for n in shown if is_share(n)], 100.0),
              ("strengths: B minus A (Elo)", strength, 1.0),
              ("other figures: B minus A (% of A)", [n for n in shown if not is_share(n) and n not in strength], None)]
    panels = [p for p in panels if p[1]]
    if not panels:
        panels = [("nothing comparable to plot", [], 1.0)]
    height = 1.0 + 0.32 * sum(len(p[1]) for p in panels) + 0.6 * len(panels)
    fig, axes = new_panels(8.0, max(2.5, height), len(panels), 1,
                           gridspec_kw={"height_ratios": [max(len(p[1]), 1) + 1 for p in panels]})
    for ax, (label, names, scale) in zip(axes, panels):
        y = np.arange(len(names))[::-1]
        for yi, name in zip(y, names):
            row = rows[name]
            k = scale if scale else (100.0 / abs(row["a"]) if row["a"] else float("nan"))
            if "unpaired_ci_low" in row:
                ax.plot([row["unpaired_ci_low"] * k, row["unpaired_ci_high"] * k], [yi, yi], color=NEUTRAL,
                        lw=6, alpha=0.45, solid_capstyle="butt")
            colour = ACCENT if row["verdict"] == REAL else "#52606d"
            ax.errorbar(row["diff"] * k, yi, xerr=[[(row["diff"] - row["ci_low"]) * k],
                                                  [(row["ci_high"] - row["diff"]) * k]],
                        fmt="o", color=colour, ecolor=colour, capsize=3, lw=1.4, ms=4)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, [rows[n]["label"] for n in names], fontsize=8)
        ax.set(ylim=(-0.7, len(names) - 0.3), xlabel=label)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_title(title)
    save(fig, path)


def pairing_sentence(doc: dict) -> str:
    if doc["paired"]:
        return (f"Paired game by game: both runs used seed {doc['a']['seed']}, batch size {doc['a']['batch_size']} "
                "and the same lineups, so game i of each was dealt the same cards wherever the deck is unchanged. "
                "Each interval uses the paired variance (common random numbers), which is why it can be much "
                "narrower than the two runs' own intervals suggest.")
    return ("Not paired: " + "; ".join(doc["why_not_paired"]) + ". The runs are treated as independent samples, "
            "so the intervals are as wide as the two runs' own uncertainty allows. Rerun both with the same "
            "--seed, --batch-size, -n and strategies to pair them.")


def run_conclusions(summary: dict, meta: dict, tables) -> list[dict]:
    """A run's conclusions (analysis.conclusions, as its own report states them), recomputed from the figures of a
    copy of its summary: a summary.json's own `conclusions` and sentences are never trusted."""
    summary = {k: v for k, v in summary.items() if k not in ("conclusions", "findings", "strategy_kinds")}
    return conclude(summary, meta, tables)["conclusions"]


def edge_findings(doc: dict) -> list[dict]:
    """Each run's seat-edge conclusion, said as its own report says it (the verdict and its error control)."""
    out = []
    for key in ("a", "b"):
        c = next((c for c in (doc.get("conclusions") or {}).get(key, []) if c.get("id") == "seat_edge"), None)
        if c:
            out.append({"id": f"seat_edge[{key}]", "figure": c["figure"], "section": "figures",
                        "verdict": c["verdict"], "text": f"In {key.upper()}: {c['text']}"})
    return out


def edge_finding(edge: str | None, comparable: dict) -> dict:
    """The edge's verdict, always said: its figure in A and B, B minus A, and a real change or within noise."""
    if not edge or edge not in comparable:
        return {"id": "edge", "figure": "metrics", "section": "figures",
                "text": "The edge is not compared: the two runs share no seat, position or starter figure."}
    r = comparable[edge]
    return {"id": "edge", "figure": edge, "section": "figures",
            "text": f"The edge ({r['label'][:1].lower() + r['label'][1:]}): {fmt_value(edge, r['a'])} in A, "
                    f"{fmt_value(edge, r['b'])} in B, {fmt_diff(edge, r)}: "
                    + (f"a real change ({fmt_p(r['p_adjusted'])} after the correction)." if r["verdict"] == REAL
                       else "within noise.")}


def compare_findings(doc: dict) -> list[dict]:
    """The comparison's findings (analysis.findings' form): what differs, the real changes, what is not
    comparable, and intervals that exclude zero only before the correction."""
    rows, out = doc["metrics"], []
    lineup, config = doc.get("differences_in_lineup") or [], doc["differences_in_configuration"]
    blocked = [n for n, r in rows.items() if not r.get("comparable", True)]
    if lineup:
        out.append({"id": "lineup_differs", "figure": "differences_in_lineup", "section": "differs", "text": (
            "A and B played different lineups (" + "; ".join(lineup) + f"): {len(blocked)} strategy figures are "
            "not comparable and get no verdict, and every other difference mixes the configuration change with "
            "the change of players. Rerun one with the other's -s and -p to compare the configuration alone.")})
    out.append({"id": "differs", "figure": "differences_in_configuration", "section": "differs",
                "text": ("B differs from A in configuration: " + "; ".join(config) + ".") if config else
                "A and B have the same configuration."})
    comparable = {n: r for n, r in rows.items() if r.get("comparable", True)}
    out.append(edge_finding(doc.get("edge"), comparable))
    real = sorted((n for n, r in comparable.items() if r["verdict"] == REAL and n != doc.get("edge")),
                  key=lambda n: comparable[n]["p_adjusted"] if comparable[n]["p_adjusted"] is not None else 1)
    for name in real[:3]:
        r = comparable[name]
        out.append({"id": f"real_change[{name}]", "figure": name, "section": "figures",
                    "text": f"{r['label']}: {fmt_value(name, r['a'])} in A, {fmt_value(name, r['b'])} in B, "
                            f"{fmt_diff(name, r)}: a real change ({fmt_p(r['p_adjusted'])} after the correction)."})
    if len(real) > 3:
        out.append({"id": "more_real_changes", "figure": "metrics", "section": "figures",
                    "text": f"{len(real) - 3} more of the {len(comparable)} comparable figures changed for real "
                            "(table below)."})
    edge_real = doc.get("edge") in comparable and comparable[doc["edge"]]["verdict"] == REAL
    if not real and not edge_real:
        out.append({"id": "no_real_change", "figure": "metrics", "section": "figures",
                    "text": f"None of the {len(comparable)} comparable figures changed beyond noise."})
    near = [n for n, r in comparable.items() if "corrected_ci_low" in r]
    if near:
        name = near[0]
        out.append({"id": "excludes_zero_before_correction", "figure": name, "section": "figures", "text": (
            f"{len(near)} figure(s) have a 95% interval that excludes zero yet are within noise, because "
            f"{len(comparable)} figures are compared at once and one in twenty 95% intervals misses by chance: "
            f"{comparable[name]['label']} {fmt_diff(name, comparable[name])}"
            f"{fmt_corrected(name, comparable[name])}.")})
    edges_said = edge_findings(doc)
    return (out[:7 - len(edges_said)] + edges_said) if edges_said else out[:7]


def _html(doc: dict, outdir: Path) -> str:
    rows = doc["metrics"]
    real = [n for n, r in rows.items() if r["verdict"] == REAL]
    comparable = [n for n, r in rows.items() if r.get("comparable", True)]
    title = f"{doc['game'].title()} comparison: B against A"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>",
             findings.box(doc.get("findings") or [])]
    for key in ("a", "b"):
        d = doc[key]
        config = "defaults" if not d["configuration"] else "defaults except " + "; ".join(d["configuration"])
        parts.append(f"<p class='meta'><b>{key.upper()}</b>: {esc(d['folder'])}: {d['games']:,} games, "
                     f"seed {d['seed']}, strategies {esc(', '.join(d['strategies']))}; "
                     f"{esc(config)}.</p>")
    changed = (doc.get("differences_in_lineup") or []) + doc["differences_in_configuration"]
    parts.append("<p class='lead' id='differs'>" + esc(
        "B differs from A in: " + "; ".join(changed) + "." if changed else
        "A and B have the same configuration and lineup.") + "</p>")
    parts.append(f"<p class='lead'>{esc(pairing_sentence(doc))}</p>")
    if real:
        listed = "; ".join(f"{rows[n]['label']} {fmt_diff(n, rows[n])}" for n in real)
        verdict = (f"{len(real)} of {len(comparable)} comparable figures changed for real (B minus A, 95% "
                   f"interval): {listed}. Everything else is within noise.")
    else:
        verdict = f"None of the {len(comparable)} comparable figures changed beyond noise."
    if len(comparable) < len(rows):
        verdict += (f" {len(rows) - len(comparable)} figures that depend on who played (win rates, strengths, the "
                    "equilibrium mix) are not comparable: the lineups differ.")
    parts.append(f"<p class='lead'>{esc(verdict)}</p>")
    parts.append("<h2 id='figures'>Figures</h2><table><tr><th>figure</th><th>code name</th><th>A</th><th>B</th>"
                 "<th>B minus A (95% interval)</th><th>p</th><th>verdict</th></tr>")
    for name, r in rows.items():
        style = " style='font-weight:600'" if r["verdict"] == REAL else ""
        parts.append(f"<tr{style}><td>{esc(r['label'])}</td><td><code>{esc(name)}</code></td>"
                     f"<td>{fmt_value(name, r['a'])}</td><td>{fmt_value(name, r['b'])}</td>"
                     f"<td>{esc(fmt_diff(name, r) + fmt_corrected(name, r))}{'' if r['paired'] else ' *'}"
                     "</td>"
                     f"<td>{esc(fmt_p(r['p']) if r.get('comparable', True) else '-')}</td>"
                     f"<td>{r['verdict']}</td></tr>")
    parts.append("</table>")
    if any(not r["paired"] for r in rows.values()):
        parts.append("<p class='meta'>* not paired: " + esc(
            "; ".join(sorted({f"{r['label']}: {r['method']}" for r in rows.values() if not r["paired"]}))
            if doc["paired"] else "the runs do not share their random numbers (above).") + "</p>")
    reading = ("Each dot is B minus A with its 95% interval; blue dots are real changes. An interval that crosses "
               "the zero line is a change we cannot tell from noise.")
    if doc["paired"]:
        reading += " The wide grey bars are what the interval would be without pairing."
    parts.append(figure_html(outdir / "compare.png", reading, alt_first=True))
    parts.append(f"<p class='meta'>Method: each run's games are cut into {doc['blocks']} blocks of consecutive "
                 "games; every figure is a ratio of per-block sums (delta method), and the interval is a paired t "
                 "interval on the blocks when the runs share their random numbers, Welch's otherwise. A change is "
                 f"called real when its p-value, corrected for the {len(rows)} figures compared "
                 f"({esc(doc['correction'].title())}), is below {doc['alpha']:g}. compare.json holds every "
                 "figure.</p></body></html>")
    return "\n".join(parts)
