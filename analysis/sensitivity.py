"""Sensitivity report: a tornado chart per metric (knobs ranked by importance, 95% intervals) and a plain
reading of which knobs move each figure and which barely matter."""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd

from analysis import conclusions as C, findings as findings_mod
from analysis.formatting import CSS, esc, and_join, figure_html, plain_name
from analysis.markup import markup, tag
from analysis.style import ACCENT, NEUTRAL, PALETTE, new_figure, save

MAX_BARS = 20
MOST = 0.6          # Sobol: the leading knobs named are the fewest whose importance sums to this share
MAX_LEADERS = 3
BARELY = 0.1        # a knob under this fraction of the largest importance (or under the noise) barely matters
SOBOL_BARELY = 0.05  # total-order index under which a knob barely matters (Saltelli's rule of thumb)
MONOTONE = 0.8      # |mu| / mu* above this: the knob moves the figure one way across its range
LOWERS = PALETTE[1]
BASE_SUMMARY = "base_summary.json"  # your configuration's summary, with its conclusions, beside sensitivity.html


def _score(method: str) -> tuple[str, str, str]:
    return ("mu_star", "mu_star_low", "mu_star_high") if method == "morris" else ("ST", "ST_low", "ST_high")


NOT_MEASURED = "not measured (too few steps reached both ends of its range)"


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def fmt_effect(metric: str, value: float, sign: str = "", unit: str = " points") -> str:
    """A change in a figure: rates in percentage points, everything else with three significant figures."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value * 100:{sign}.1f}{unit}" if "rate" in metric else f"{value:{sign}.3g}"


def _interval(metric: str, row) -> str:
    if not all(_finite(row.get(k)) for k in ("effect_across_range", "effect_ci_low", "effect_ci_high")):
        return NOT_MEASURED
    effect, low, high = (fmt_effect(metric, row[k], "+", "") for k in ("effect_across_range", "effect_ci_low",
                                                                       "effect_ci_high"))
    return f"{effect}{' points' if 'rate' in metric else ''} (95% CI {low} to {high})"


def _effect_sentence(metric: str, row) -> str:
    """What moving a knob from the low to the high end of its range does, only as far as the interval supports."""
    low, high = row.get("effect_ci_low", math.nan), row.get("effect_ci_high", math.nan)
    if math.isfinite(low) and math.isfinite(high) and (low > 0 or high < 0):  # a sign the interval supports
        way = "raises" if row["effect_across_range"] > 0 else "lowers"
        return f"raising {row['knob']} across its range ({row['range']}) {way} it: {_interval(metric, row)}"
    effect = row.get("effect_across_range", math.nan)
    if effect is None or not math.isfinite(effect):
        return (f"{row['knob']} moves it (mu* {fmt_effect(metric, row['mu_star'])}, 95% CI "
                f"{fmt_effect(metric, row['mu_star_low'])} to {fmt_effect(metric, row['mu_star_high'])}); too few "
                f"steps to measure its change across its range ({row['range']})")
    return (f"{row['knob']} moves it (mu* {fmt_effect(metric, row['mu_star'])}) but not one way we can tell: its "
            f"change across its range ({row['range']}) is {_interval(metric, row)}")


def _across(metric: str, row) -> str:
    effect = row.get("effect_across_range", math.nan)
    if effect is None or not math.isfinite(effect):  # too few trajectories reached every value of the knob
        return (f"{row['knob']} ({row['range']}: mu* {fmt_effect(metric, row['mu_star'])}; too few steps to "
                "measure its change across the range)")
    return f"{row['knob']} ({row['range']}: {_interval(metric, row)} across its range)"


def _direction(row) -> str:
    """raises / lowers only where the change across the range has an interval clear of 0; one that crosses 0 is
    "mixed" (no direction the games support), whatever the sign of its estimate."""
    low, high = row.get("effect_ci_low"), row.get("effect_ci_high")
    if _finite(low) and _finite(high):
        return "raises" if low > 0 else "lowers" if high < 0 else "mixed"
    if row["mu_star"] <= 0:
        return "none"
    ratio = row["mu"] / row["mu_star"]
    return "raises" if ratio > MONOTONE else "lowers" if ratio < -MONOTONE else "mixed"


def knob_noise(rows: pd.DataFrame) -> pd.Series:
    """Each knob's noise level (its steps' mu* from the games' noise alone; 0 where unknown)."""
    if "noise" not in rows:
        return pd.Series(0.0, index=rows.index)
    return rows["noise"].astype(float).fillna(0.0)


def reading(metric: str, rows: pd.DataFrame, method: str) -> str:
    """One plain sentence or two: the knobs that explain most of the metric, and those that barely matter."""
    score = _score(method)[0]
    rows = rows.sort_values(score, ascending=False)
    status = rows["status"].iloc[0]
    if status == "constant":
        return f"{metric} is the same at every design point: none of these knobs moves it."
    if status != "ok":
        return f"{metric} is undefined at too many design points to analyse."
    movers, barely, unresolved, noise = _classify(rows, method)
    if movers.empty:
        top = rows.head(2)
        if method == "morris":
            return (f"No knob clearly moves {metric} beyond the noise of its games (about "
                    f"{fmt_effect(metric, float(np.median(noise)))}); the largest: "
                    + and_join([_across(metric, r) for _, r in top.iterrows()]) + ".")
        return f"No knob explains more than {SOBOL_BARELY:.0%} of the variance of {metric}."
    total = rows[score].clip(lower=0).sum()
    # every knob that clearly moves it is named (up to MAX_LEADERS), however much the first explains
    leaders, share = [], 0.0
    for _, row in movers.iterrows():
        leaders.append(row)
        share += max(row[score], 0) / total if total > 0 else 0
        if (share >= MOST and method != "morris") or len(leaders) == MAX_LEADERS:
            break
    names = and_join([r["knob"] for r in leaders])
    one = len(leaders) == 1
    if method == "morris":
        lead = (f"{names} {'explains' if one else 'explain'} most of {metric}" if share >= 0.5
                else f"{names} {'moves' if one else 'move'} {metric} most")
        text = f"{lead} ({share:.0%} of the summed mu*): " + "; ".join(_effect_sentence(metric, r) for r in leaders)
        more = len(movers) - len(leaders)
        text += (f"; {more} more clearly move{'s' if more == 1 else ''} it (sensitivity.csv)" if more else "") + "."
    else:
        text = (f"{names} {'explains' if one else 'explain'} most of the variance of {metric} (total-order index "
                f"{and_join([f'{r[score]:.2f}' for r in leaders])}).")
    if not barely.empty:
        listed = list(barely["knob"])  # in rank order
        shown = and_join(listed[:5] + ([f"{len(listed) - 5} more"] if len(listed) > 5 else []))
        text += f" {shown} barely matter{'s' if len(listed) == 1 else ''}."
    if method == "morris" and not movers.empty:
        others = [r for _, r in unresolved.iterrows() if r["knob"] not in {x["knob"] for x in leaders}]
        if others:
            text += (" These games cannot tell how much " + and_join([r["knob"] for r in others])
                     + f" matter{'s' if len(others) == 1 else ''} (mu* "
                     + and_join([f"{fmt_effect(metric, r['mu_star_low'])} to {fmt_effect(metric, r['mu_star_high'])}"
                              for r in others]) + ").")
    return text


def _classify(rows: pd.DataFrame, method: str) -> tuple:
    """(movers, barely, unresolved, noise) of rows sorted by score: a mover's interval clears its noise, a knob
    whose interval (Sobol: estimate) is at or under the limit barely matters, the rest cannot be placed."""
    score, low, high = _score(method)
    noise = knob_noise(rows) if method == "morris" else 0.0
    # per knob, at or under it barely matters: a tenth of the largest mu*, or its own noise
    limit = np.maximum(BARELY * rows["mu_star"].max(), noise) if method == "morris" else SOBOL_BARELY
    movers = rows[(rows[score] > limit) & (rows[low] > noise)]
    barely = rows[rows[high if method == "morris" else score] <= limit]
    unresolved = rows[~rows.index.isin(movers.index) & ~rows.index.isin(barely.index)]
    return movers, barely, unresolved, noise


def finding_line(metric: str, rows: pd.DataFrame, method: str) -> str:
    """The Findings box's one sentence for a figure: its plain name and the knob that moves it most, with the
    change and its interval (the Reading section has the rest), so that a box of seven fits the first screen."""
    name = plain_name(metric)
    status = rows["status"].iloc[0]
    if status == "constant":
        return f"{name}: the same at every design point; none of these knobs moves it."
    if status != "ok":
        return f"{name}: undefined at too many design points to analyse."
    rows = rows.sort_values(_score(method)[0], ascending=False)
    movers = _classify(rows, method)[0]
    if movers.empty:
        return f"{name}: no knob clearly moves it beyond the noise of its games."
    top, more = movers.iloc[0], len(movers) - 1
    if method == "morris":
        text = f"{name}: {_effect_sentence(metric, top)}"
    else:
        text = f"{name}: {top['knob']} explains most of its variance (total-order index {top['ST']:.2f})"
    return text + (f"; {more} more knob{'s' if more > 1 else ''} clearly move{'' if more > 1 else 's'} it."
                   if more else ".")


def tornado(metric: str, rows: pd.DataFrame, method: str, path, ranges: dict) -> str:
    """Horizontal bars, the most important knob on top, with 95% intervals; returns the figure's reading."""
    score, low, high = _score(method)
    rows = rows.sort_values(score, ascending=False).head(MAX_BARS).iloc[::-1]
    fig, ax = new_figure(7.5, 1.6 + 0.32 * len(rows))
    ax.grid(axis="y", alpha=0)
    ax.grid(axis="x", alpha=0.3)
    y = np.arange(len(rows))
    colors = [{"raises": ACCENT, "lowers": LOWERS}.get(_direction(r), NEUTRAL) if method == "morris" else ACCENT
              for _, r in rows.iterrows()]
    # Morris effects are changes in the figure: rates in percentage points, as in the table beside the chart
    scale = 100.0 if method == "morris" and "rate" in metric else 1.0
    est = rows[score].to_numpy(dtype=float) * scale
    err = np.clip(np.vstack([est - rows[low].to_numpy(dtype=float) * scale,
                             rows[high].to_numpy(dtype=float) * scale - est]), 0, None)
    ax.barh(y, est, color=colors, xerr=err, error_kw={"ecolor": "#323f4b", "capsize": 3, "lw": 1})
    ax.set_yticks(y, [f"{k} ({ranges[k]})" for k in rows["knob"]], fontsize=8)
    noise = knob_noise(rows).to_numpy() * scale if method == "morris" else np.zeros(0)
    if (noise > 0).any():  # each knob's own: a one-unit step of a many-unit knob magnifies its noise
        ax.scatter(noise, y, marker="|", s=260, color="#52606d", zorder=3, label="noise level of its steps")
    if method == "morris":
        from matplotlib.patches import Patch
        handles = [Patch(color=ACCENT, label="raising the knob raises it"),
                   Patch(color=LOWERS, label="raising the knob lowers it"),
                   Patch(color=NEUTRAL, label="no direction settled (interval crosses 0, or both ways)")]
        if (noise > 0).any():
            handles.append(ax.collections[-1])
        ax.legend(handles=handles, frameon=False, fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0),
                  ncol=2)
        unit = " (percentage points)" if scale == 100.0 else ""
        ax.set_xlabel("\n".join(textwrap.wrap(f"change in {plain_name(metric)} across the knob's range{unit}; "
                                               "mu*, 95% interval", 95)), fontsize=8)  # wrapped: never clipped
    else:
        ax.set_xlabel("\n".join(textwrap.wrap(f"share of the variance of {plain_name(metric)} the knob explains "
                                               "(total-order Sobol index, 95% interval)", 95)), fontsize=8)
    ax.set_xlim(left=0)
    save(fig, path)
    return (f"Knobs ranked by how much they move {metric}; the bar is the estimate, the whisker its 95% "
            "bootstrap interval" + (", the grey tick each knob's noise level (the mu* its steps would show "
                                    "from the games' noise alone)" if (noise > 0).any() else "") + ".")


def base_html(meta: dict, conclusions: list[dict] | None):
    """Your configuration's conclusions, in the sentences its own report gives them; why not, when it was not
    played."""
    head = tag("h2", "At your configuration", id="base")
    if conclusions is None:
        return markup(head, tag("p", "Your configuration itself was not played: the budget leaves no room for one "
                                     "more point of games beside the design's, so its conclusions are not stated "
                                     "here (balance-sim run gives them).", class_="meta"))
    return markup(head, tag("p", f"Your configuration (every knob at its value), played once more on "
                                 f"{meta.get('base_games', 0):,} games from the same seed: its conclusions as its "
                                 f"own report says them ({BASE_SUMMARY}).", class_="meta"),
                  tag("ul", *(tag("li", c["text"]) for c in conclusions if isinstance(c, dict) and c.get("text"))))


def base_findings(metrics: list[str], conclusions: list[dict] | None) -> dict[str, dict]:
    """For each analysed figure that is a conclusion's, that conclusion at your configuration, said as its report
    says it ("At your configuration: ...")."""
    out = {}
    for metric in metrics:
        said = C.sentence_on(conclusions, metric)
        if said:
            out[metric] = {"id": f"base[{metric}]", "text": f"At your configuration: {said}", "figure": metric,
                           "section": "base"}
    return out


def build_sensitivity_report(table: pd.DataFrame, meta: dict, outdir, base: list[dict] | None = None) -> list[str]:
    """Write sensitivity.html (and the tornado PNGs beside it); return the plain reading, one line a metric.
    `base`: your configuration's conclusions (None when it was not played)."""
    method = meta["method"]
    score, low, high = _score(method)
    ranges = {k["key"]: k["range"] for k in meta["knobs"]}
    lines, figures = [], []
    for i, (metric, rows) in enumerate(table.groupby("metric", sort=False)):
        lines.append(reading(metric, rows, method))
        if rows["status"].iloc[0] == "ok":
            name = f"tornado_{i:02d}.png"
            figures.append((metric, name, tornado(metric, rows, method, outdir / name, ranges), rows))
        else:
            figures.append((metric, None, None, rows))
    block = "trajectories" if method == "morris" else "Sobol blocks"
    strategies = ", ".join(s["name"] for s in meta.get("strategies", []))
    skipped = meta.get("skipped_points", 0)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(meta['game'])} sensitivity</title>"
             f"<style>{CSS}</style></head><body><h1>{esc(meta['game'].title())}: which knobs matter</h1>",
             f"<p class='meta'>{'Morris elementary effects' if method == 'morris' else 'Sobol indices'} (SALib) over "
             f"{len(meta['knobs'])} knobs: {meta['blocks_analysed']} {block}, {meta['design_points']} design points "
             f"({meta['points_played']} distinct configurations) x {meta['games_per_point']:,} games = "
             f"{meta['games']:,} games"
             + (f", and {meta['base_games']:,} at your configuration" if meta.get("base_games") else "")
             + (f" of a budget of {meta['budget']:,}" if meta.get("budget") else "")
             + f"; seed {meta['seed']}, strategies {esc(strategies)}. Every point is played from the same "
             "seed, so neighbouring points differ by the knobs, not by the cards dealt.</p>"]
    said = base_findings([metric for metric, *_ in figures], base)
    items = [x for metric, *_, rows in figures for x in
             [{"id": f"reading[{metric}]", "text": finding_line(metric, rows, method), "figure": metric,
               "section": findings_mod.anchor(metric)}] + ([said[metric]] if metric in said else [])]
    parts.insert(1, findings_mod.box(items[:7]))
    if meta.get("partial"):
        parts.append("<p class='partial'>This analysis is <b>partial</b>: the run was interrupted, and only the "
                     f"{meta['blocks_analysed']} whole {block} that finished are analysed.</p>")
    if skipped:
        reasons = "; ".join(f"{esc(r)} ({n})" for r, n in sorted(meta["skipped_reasons"].items(),
                                                                          key=lambda kv: -kv[1]))
        parts.append(f"<p class='meta'>{skipped} sampled design points were refused by the game's validation and "
                     f"their {meta['sampled_blocks'] - meta['blocks']} {block} replaced by others: {reasons}.</p>")
    if meta.get("left_out"):
        parts.append("<p class='meta'>Keys left out: " + "; ".join(esc(s) for s in meta["left_out"])
                     + ".</p>")
    parts.append(base_html(meta, base))
    parts.append("<h2>Reading</h2><ul>" + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>")
    if method == "morris":
        parts.append("<p class='meta'>mu* is the mean absolute elementary effect: the figure's change at one step "
                     "of a knob, divided by the step as played (after rounding to whole numbers) as a share of its "
                     "range, so it reads as a change across the whole range. A knob with few whole values is played "
                     "at each of them, one unit at a time. mu is the same with signs, sigma the spread of the "
                     "effects (large: the knob interacts with others or bends). The change across the range is "
                     "the figure's change from the knob's lowest value to its highest (for a few-valued knob the sum "
                     "of its units' mean changes; else mu). Every design point plays the same deals, so the 95% "
                     "intervals resample the games (the same games at every point) and the trajectories; the "
                     "grey tick is each knob's noise level, the mu* the games' noise alone gives its steps.</p>")
    else:
        parts.append("<p class='meta'>ST (total-order index) is the share of the figure's variance the knob "
                     "explains with its interactions; S1 without them. Intervals are SALib's 95% bootstrap "
                     "intervals.</p>")
    for metric, name, text, rows in figures:
        parts.append(f"<h2 id='{findings_mod.anchor(metric)}'>{esc(plain_name(metric))} "
                     f"<code>{esc(metric)}</code></h2>")
        if name is None:
            parts.append(f"<p>{esc(reading(metric, rows, method))}</p>")
            continue
        parts.append(figure_html(outdir / name, text))
        parts.append(_table(metric, rows.sort_values(score, ascending=False).head(MAX_BARS), method, ranges))
    parts.append("<p class='meta'>sensitivity.csv holds every estimate and interval; points.csv every design "
                 "point's knob values and figures.</p></body></html>")
    (outdir / "sensitivity.html").write_text("\n".join(parts))
    return lines


def _table(metric, rows, method, ranges) -> str:
    if method == "morris":
        head = ("<tr><th>knob</th><th>range</th><th>mu*</th><th>95% interval</th><th>change across the range "
                "(95% interval)</th><th>mu</th><th>sigma</th></tr>")
        body = "".join(
            f"<tr><td>{esc(r['knob'])}</td><td>{esc(ranges[r['knob']])}</td>"
            f"<td>{fmt_effect(metric, r['mu_star'])}</td>"
            f"<td>{fmt_effect(metric, r['mu_star_low'])} to {fmt_effect(metric, r['mu_star_high'])}</td>"
            f"<td>{esc(_interval(metric, r)) if 'effect_across_range' in r else 'n/a'}</td>"
            f"<td>{fmt_effect(metric, r['mu'])}</td><td>{fmt_effect(metric, r['sigma'])}</td></tr>"
            for _, r in rows.iterrows())
    else:
        head = "<tr><th>knob</th><th>range</th><th>ST</th><th>95% interval</th><th>S1</th></tr>"
        body = "".join(
            f"<tr><td>{esc(r['knob'])}</td><td>{esc(ranges[r['knob']])}</td><td>{r['ST']:.3f}</td>"
            f"<td>{r['ST_low']:.3f} to {r['ST_high']:.3f}</td><td>{r['S1']:.3f} ± {r['S1_conf']:.3f}</td></tr>"
            for _, r in rows.iterrows())
    return f"<table>{head}{body}</table>"
