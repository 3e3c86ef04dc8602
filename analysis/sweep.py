"""Sweep report: each headline metric against the swept parameter(s), with 95% interval bands."""
from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from analysis import conclusions as C, findings as findings_mod, percent
from analysis.formatting import CSS, esc, figure_html, fmt_band, fmt_metric, is_rate, plain_name
from analysis.markup import markup, tag
from analysis.style import ACCENT, new_figure, save, strategy_colors
from analysis.sweep_paired import axis, section_html
from sim.game import get_game

MAX_PANELS = 9
BAND_MARK = "#d62728"  # a target on a heatmap: red, which the viridis colour map never uses


def headline_metrics(game: str, table: pd.DataFrame) -> list[str]:
    module = get_game(game).module("analysis")
    names = [c for c in table.columns if not c.endswith((".ci_low", ".ci_high", ".n")) and c + ".n" in table]
    preferred = [m for m in getattr(module, "HEADLINES", ()) if m in names]
    rest = [m for m in names if m not in preferred and "[" not in m]
    picked = (preferred or rest)[:MAX_PANELS]
    return picked + [m for m in names if m.startswith("win_rate[")]


def _scale(metric: str) -> tuple[float, str]:
    """Rates are plotted in %, everything else as it is."""
    return (100.0, " (%)") if is_rate(metric) else (1.0, "")


FAMILIES = {"strength": ("Strategy strengths", "Elo"), "nash_weight": ("Equilibrium mix", "weight, %"),
            "decisive_rate": ("What decides games", "winner changes without it, %")}  # one chart each
MAX_LINES = 8  # a family's members on one chart: the largest ones (sources rarely decisive are left out)


def _in_order(table, key):
    """The table in the order of the parameter's values when they are numbers (a line joins neighbouring values,
    not the order they were given in), else as given."""
    values = list(table[key])
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in values):
        return table.sort_values(key, kind="stable")
    return table


def _whole_ticks(ax, values) -> None:
    """Whole-number knobs get whole-number ticks (no 2.5 between 2 and 3)."""
    numeric = [v for v in values if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)]
    if numeric and len(numeric) == len(values) and all(float(v).is_integer() for v in numeric):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _title(ax, text: str, width: int = 64) -> None:
    """A title wrapped to the plot's width (a long plain name would run off the PNG)."""
    ax.set_title("\n".join(textwrap.wrap(text, width)), fontsize=10 if len(text) <= width else 9)


def family_members(table: pd.DataFrame, prefix: str) -> list[str]:
    """`prefix[<name>]` columns (one bracket) of the sweep table, the largest (by their largest value) first."""
    names = [c for c in table.columns if c.startswith(prefix + "[") and c.count("[") == 1 and c + ".n" in table]
    peak = {c: np.nanmax(np.abs(table[c].astype(float).to_numpy())) if table[c].notna().any() else -1.0
            for c in names}
    return sorted(names, key=lambda c: -peak[c])[:MAX_LINES]


def _plot_family(table, key, prefix, path) -> bool:
    """Every member of a family (strengths, the equilibrium mix, decisive sources) against the parameter, one line
    each with its 95% band; False (nothing drawn) when the variants have none."""
    members = family_members(table, prefix)
    if not members:
        return False
    table = _in_order(table, key)
    x, labels = axis(list(table[key]))
    scale = 1.0 if prefix == "strength" else 100.0
    colors = strategy_colors([m[len(prefix) + 1:-1] for m in members])
    fig, ax = new_figure(6.2, 3.8)
    for m in members:
        name = m[len(prefix) + 1:-1]
        y, lo, hi = (table[m + part].astype(float) * scale for part in ("", ".ci_low", ".ci_high"))
        ax.fill_between(x, lo, hi, color=colors[name], alpha=0.12)
        ax.plot(x, y, marker="o", ms=3, color=colors[name], label=name)
    if labels:
        ax.set_xticks(x, labels, rotation=20)
    _whole_ticks(ax, list(table[key]))
    ax.set_xlabel(key)
    title, unit = FAMILIES[prefix]
    ax.set_ylabel(unit, fontsize=8)
    _title(ax, f"{title} against {key}")
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside, never over
    save(fig, path)
    return True


def _plot_1d(table, key, metric, path, bands=()):
    """The metric against the parameter; each target band on it is drawn and kept in view (a band off the plot
    would hide how far the variants are from it)."""
    table = _in_order(table, key)
    x, labels = axis(list(table[key]))
    scale, unit = _scale(metric)
    y, lo, hi = (table[metric + part].astype(float) * scale for part in ("", ".ci_low", ".ci_high"))
    fig, ax = new_figure(6.2, 3.6)
    for band in bands:
        ax.axhspan(band.low * scale, band.high * scale, color="#3a9d5d", alpha=0.18,
                   label=f"target {band.low * scale:g} to {band.high * scale:g}{'%' if scale == 100 else ''}")
        ax.axhline(band.centre * scale, color="#3a9d5d", lw=0.8, ls="--")
    ax.fill_between(x, lo, hi, color=ACCENT, alpha=0.2, label="95% interval")
    ax.plot(x, y, marker="o", color=ACCENT, label="estimate")
    if labels:
        ax.set_xticks(x, labels, rotation=20)
    _whole_ticks(ax, list(table[key]))
    ax.set_xlabel(key)
    ax.set_ylabel("\n".join(textwrap.wrap(plain_name(metric) + unit, 48)), fontsize=8)
    _title(ax, f"{plain_name(metric)} against {key}")
    ax.legend(frameon=False, fontsize=8)
    save(fig, path)


def _plot_2d(table, keys, metric, path, bands=()):
    """A heatmap of the metric over two parameters; each target band a hatched stripe on the (widened) colour
    bar, and outlines round the cells inside it (solid: the interval, dashed: the estimate, dotted: closest)."""
    k1, k2 = keys
    scale, unit = _scale(metric)
    grids = {part: table.pivot_table(index=k1, columns=k2, values=metric + part, aggfunc="first")
             for part in ("", ".ci_low", ".ci_high")}
    grid = grids[""]
    values = grid.to_numpy(dtype=float) * scale
    low, high = np.nanmin(values), np.nanmax(values)
    for band in bands:
        low, high = min(low, band.low * scale), max(high, band.high * scale)
    fig, ax = new_figure(6.2, 4.8)
    ax.grid(False)
    im = ax.imshow(values, cmap="viridis", aspect="auto", vmin=low, vmax=high)
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns], rotation=20)
    ax.set_yticks(range(len(grid.index)), [str(i) for i in grid.index])
    for (r, c), v in np.ndenumerate(values):
        bright = high > low and (v - low) / (high - low) > 0.6  # viridis turns yellow: dark text reads there
        ax.text(c, r, f"{v:.3g}", ha="center", va="center", color="black" if bright else "white", fontsize=8)
    bar = fig.colorbar(im, ax=ax)
    bar.set_label(plain_name(metric) + unit, fontsize=8)
    for band in bands:
        bar.ax.axhspan(band.low * scale, band.high * scale, facecolor="none", edgecolor=BAND_MARK, hatch="///",
                       lw=1.5)
        _outline_band_cells(ax, grids, band)
    ax.set(xlabel=k2, ylabel=k1)
    title = plain_name(metric) + unit
    if bands:
        title += "; target " + ", ".join(fmt_band(metric, b.low, b.high) for b in bands) + " outlined in red"
    _title(ax, title, 70)
    save(fig, path)


def _outline_band_cells(ax, grids, band) -> None:
    est, lo, hi = (grids[p].to_numpy(dtype=float) for p in ("", ".ci_low", ".ci_high"))
    miss = np.maximum(0.0, np.maximum(band.low - est, est - band.high))
    inside = miss == 0
    cells = [(r, c, "-" if band.low <= lo[r, c] and hi[r, c] <= band.high else "--")
             for r, c in zip(*np.nonzero(inside))]
    if not cells and not np.isnan(miss).all():
        r, c = np.unravel_index(np.nanargmin(miss), miss.shape)
        cells = [(r, c, ":")]
    for r, c, style in cells:
        # inset, so that the outlines of neighbouring cells and of the plot's edge do not hide one another
        ax.add_patch(Rectangle((c - 0.45, r - 0.45), 0.9, 0.9, fill=False, edgecolor=BAND_MARK, lw=2.5, ls=style))


def _metric(row, metric: str) -> dict:
    """A variant's figure (a row of the sweep table) as a summary metric."""
    return {"estimate": row.get(metric), "ci_low": row.get(f"{metric}.ci_low"), "ci_high": row.get(f"{metric}.ci_high")}


def _label(table, i, keys) -> str:
    """`key=value` with each column's own type (a row of mixed columns would turn 5 into 5.0)."""
    return ", ".join(f"{k}={table.at[i, k]}" for k in keys)


def target_lines(table: pd.DataFrame, keys, targets) -> list[str]:
    """Plain-language lines naming the variants that meet every target."""
    if not targets:
        return []
    metrics = ", ".join(sorted(c for c in table.columns if f"{c}.n" in table.columns))
    lines = [f"Target {t.metric} is not a figure of this game; allowed: {metrics}." for t in targets
             if t.metric not in table.columns]
    targets = [t for t in targets if t.metric in table.columns]
    if not targets:
        return lines
    meets, plausible = [], []
    for i, row in table.iterrows():
        shown = [(t, _metric(row, t.metric)) for t in targets]
        verdicts = [t.verdict(m) if m["estimate"] is not None and not pd.isna(m["estimate"]) else "misses"
                    for t, m in shown]
        label = _label(table, i, keys)
        if all(v == "meets" for v in verdicts):
            meets.append(label)
        elif all(v in ("meets", "plausible") for v in verdicts):
            plausible.append(label)
    wanted = " and ".join(f"{plain_name(t.metric)} in {fmt_band(t.metric, t.low, t.high)}" for t in targets)
    if meets:
        lines.append(f"Variants whose 95% intervals lie inside every target ({wanted}): {'; '.join(meets)}.")
    if plausible:
        lines.append(f"Variants whose estimates meet the targets but need more games to be sure: "
                     f"{'; '.join(plausible)}.")
    if not meets and not plausible:
        lines.append(f"No variant meets the targets ({wanted}).")
    for t in targets:
        lines.append(closest_line(table, keys, t))
    return lines


def closest_line(table: pd.DataFrame, keys, target) -> str:
    """The variant whose estimate is closest to the target's band, and by how much it misses (or that it is in)."""
    values = table[target.metric].astype(float)
    if values.isna().all():
        return f"No variant has a value of {target.metric}."
    miss = values.map(lambda v: max(0.0, target.low - v, v - target.high))
    best = miss.idxmin()
    where = (f"{plain_name(target.metric)} (target {fmt_band(target.metric, target.low, target.high)}): closest is "
             f"{_label(table, best, keys)} at {fmt_metric(target.metric, _metric(table.loc[best], target.metric))}")
    if miss[best] == 0:
        return where + ", inside the band."
    gap = miss[best] * 100 if is_rate(target.metric) else miss[best]
    side = "above" if values[best] > target.high else "below"
    return where + f", {gap:.3g}{' points' if is_rate(target.metric) else ''} {side} the band."


def moves_most(table: pd.DataFrame, keys, differences: dict, baseline: int, top: int = 3,
               conclusions: list | None = None) -> list[dict]:
    """Findings without a target: the headline figures that move most with the parameter, ranked by their largest
    paired difference from the baseline in units of its interval (so rates and counts compare), real changes
    (after the correction for every comparison) first; one line saying so when nothing moves beyond noise."""
    best = {}
    for variant, rows in differences.items():
        for metric, r in rows.items():
            if metric.startswith("win_rate[") or r.get("diff") is None or r.get("ci_low") is None:
                continue
            half = (r["ci_high"] - r["ci_low"]) / 2
            score = abs(r["diff"]) / half if half > 0 else 0.0
            key = (r.get("verdict") == "real change", score)
            if metric not in best or key > best[metric][0]:
                best[metric] = (key, variant, r)
    ranked = sorted(best.items(), key=lambda kv: kv[1][0], reverse=True)
    real = [(m, v) for m, v in ranked if v[0][0]][:top]
    base = _label(table, table.index[table["variant"] == baseline][0], keys) if "variant" in table else "the first"
    if not real:
        return [{"id": "moves_most", "section": "variants", "figure": "metrics", "text": (
            f"No --target was given, and no headline figure moves beyond noise as {', '.join(keys)} changes: every "
            f"variant's paired difference from the baseline ({base}) holds 0 after the correction for every "
            "comparison.")}]
    out = []
    for metric, (_, variant, r) in real:
        row = table.index[table["variant"] == variant][0] if "variant" in table else variant
        change = (f"{r['diff'] * 100:+.{max(1, percent.decimals(abs(r['diff'])))}f} points" if is_rate(metric)
                  else f"{r['diff']:+.3g}")
        label = _label(table, row, keys)
        said = C.sentence_on(_of(conclusions, table, row), metric)
        value = "" if said else f"{fmt_metric(metric, _metric(table.loc[row], metric))} at {label}, "
        text = (f"{plain_name(metric)} moves with {', '.join(keys)}: {value}{change} from the baseline ({base})"
                f"{' at ' + label if said else ''}, a real change (95% CI {_signed(metric, r['ci_low'])} to "
                f"{_signed(metric, r['ci_high'])}).")
        # a conclusion's figure is said by its conclusion, as the variant's report says it
        out.append({"id": f"moves_most[{metric}]", "section": "variants", "figure": metric,
                    "text": text + (f" At {label}: {said}" if said else "")})
    return out


def _of(conclusions: list | None, table: pd.DataFrame, row) -> list[dict]:
    """The conclusions of the variant in `row` of the sweep table ([] when none were computed)."""
    if not conclusions:
        return []
    i = int(table.at[row, "variant"]) if "variant" in table else int(row)
    return conclusions[i] if 0 <= i < len(conclusions) else []


ABOUT = {"seat_edge": "The seat edge", "play_style": "The strongest play style", "top_lever": "The top lever",
         "length": "How long a game lasts", "skill": "How the answers move with skill"}


def edge_findings(table: pd.DataFrame, keys, conclusions: list | None, baseline: int) -> list[dict]:
    """The baseline's seat-edge conclusion and each variant's whose verdict differs from it, each in the sentence
    its report gives ("At key=value: ...")."""
    said = []
    for i in table.index:
        c = C.conclusion_of({"conclusions": _of(conclusions, table, i)}, "seat_edge")
        if c:
            said.append((int(table.at[i, "variant"]) if "variant" in table else int(i), i, c))
    base = next((x for x in said if x[0] == baseline), said[0] if said else None)
    if base is None:
        return []
    shown = [base] + [x for x in said if x is not base and x[2]["verdict"] != base[2]["verdict"]]
    return [{"id": f"seat_edge[{v}]", "section": "conclusions", "figure": c["figure"], "verdict": c["verdict"],
             "text": f"At {_label(table, i, keys)}: {c['text']}"} for v, i, c in shown]


def conclusions_html(table: pd.DataFrame, keys, conclusions: list | None):
    """Each variant's conclusions, question by question, in the sentences of the variant's own report."""
    if not conclusions or not any(conclusions):
        return markup()
    ids = list(dict.fromkeys(c["id"] for items in conclusions for c in items if isinstance(c, dict) and c.get("text")))
    blocks = []
    for cid in ids:
        items = [(i, C.conclusion_of({"conclusions": _of(conclusions, table, i)}, cid)) for i in table.index]
        blocks.append(markup(tag("h3", ABOUT.get(cid, plain_name(cid))),
                             tag("ul", *(tag("li", f"At {_label(table, i, keys)}: {c['text']}") for i, c in items
                                         if c and c.get("text")))))
    return markup(tag("h2", "What each variant's games conclude", id="conclusions"),
                  tag("p", "Each variant's conclusions, in the words of its own report (summary.json "
                           "`conclusions` in its folder).", class_="meta"), *blocks)


def _signed(metric: str, value: float) -> str:
    return f"{value * 100:+.{max(1, percent.decimals(abs(value)))}f}" if is_rate(metric) else f"{value:+.3g}"


def build_sweep_report(table: pd.DataFrame, params, targets, game: str, n_games: int, seed: int, outdir,
                       differences: dict | None = None, baseline: int = 0, conclusions: list | None = None) -> list:
    """`differences`: {variant: {metric: row}} from analysis.sweep_paired, each variant against `baseline`;
    `conclusions`: each variant's (its summary.json `conclusions`, by variant number)."""
    keys = [k for k, _ in params]
    metrics = headline_metrics(game, table)
    targeted = [t.metric for t in targets if t.metric + ".n" in table and t.metric not in metrics]
    metrics = targeted + metrics  # a targeted figure (e.g. decisive_rate[coin_token]) is always shown
    figures = []
    for i, metric in enumerate(metrics):
        path = outdir / f"sweep_{i:02d}.png"
        if len(keys) == 1:
            _plot_1d(table, keys[0], metric, path, [t for t in targets if t.metric == metric])
        else:
            _plot_2d(table, keys[:2], metric, path, [t for t in targets if t.metric == metric])
        figures.append((metric, path.name))
    if len(keys) == 1:
        for prefix in FAMILIES:
            path = outdir / f"sweep_{prefix}.png"
            if _plot_family(table, keys[0], prefix, path):
                figures.append((prefix, path.name))
    lines = target_lines(table, keys, targets)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(game)} sweep</title><style>{CSS}</style>"
             f"</head><body><h1>{esc(game.title())} sweep over {esc(', '.join(keys))}</h1>",
             f"<p class='meta'>{len(table)} variants x {n_games:,} games, seed {seed}; every variant played on "
             "the same random numbers, so the paired differences from the baseline below are the parameter's "
             "effect, measured with far less noise than each variant's own interval.</p>"]
    items = [{"id": f"target[{i}]", "text": line, "figure": "targets", "section": "variants"}
             for i, line in enumerate(lines)] or moves_most(table, keys, differences or {}, baseline,
                                                             conclusions=conclusions)
    edges = edge_findings(table, keys, conclusions, baseline)
    parts.insert(1, findings_mod.box((items[:max(7 - len(edges), 3)] + edges)[:7]))
    parts.append("<h2 id='variants'>Variants</h2><table><tr><th>variant</th>" + "".join(
        f"<th>{esc(plain_name(m))}<br><code>{esc(m)}</code></th>" for m in metrics[:6]) + "</tr>")
    for i, row in table.iterrows():
        label = _label(table, i, keys)
        cells = "".join(f"<td>{esc(fmt_metric(m, _metric(row, m)))}</td>" for m in metrics[:6])
        parts.append(f"<tr><td>{esc(label)}</td>{cells}</tr>")
    parts.append("</table>")
    parts.append(section_html(table, keys, differences or {}, baseline, _label, outdir))
    parts.append(conclusions_html(table, keys, conclusions))
    parts.append("<h2>Figures</h2>")
    for metric, name in figures:
        if metric in FAMILIES:
            parts.append(figure_html(outdir / name, f"{FAMILIES[metric][0]} as {keys[0]} changes, one line each "
                                     f"(the {MAX_LINES} largest at most), its band the 95% interval."))
            continue
        reading = (f"How {plain_name(metric)} moves as {keys[0]} changes; the blue band is the 95% interval"
                   + (", the green band the target." if any(t.metric == metric for t in targets) else ".")
                   if len(keys) == 1 else
                   f"{plain_name(metric)} for each combination of {keys[0]} (rows) and {keys[1]} (columns)"
                   + (": the target is the red hatched stripe on the colour bar; a solid red outline marks a cell whose "
                      "95% interval lies inside it, a dashed one a cell whose estimate does, a dotted one the "
                      "closest cell when none is inside." if any(t.metric == metric for t in targets) else "."))
        parts.append(figure_html(outdir / name, reading))
    parts.append("</body></html>")
    (outdir / "sweep_report.html").write_text("\n".join(parts))
    return lines
