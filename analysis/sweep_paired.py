"""Sweep variants against a baseline variant: paired differences on common random numbers (method:
analysis/paired.py), with 'real change' called after correcting for every comparison the sweep report shows
(Holm). Adds `<metric>.diff*` columns to sweep.csv/parquet and a section to sweep_report.html."""
from __future__ import annotations


import numpy as np

from analysis import paired as pairing_stats
from analysis.compare import REAL, call_real, differences, fmt_diff, fmt_p, plain_name, why_not_paired
from analysis.formatting import esc, figure_html, is_rate
from analysis.style import ACCENT, NEUTRAL, new_panels, save

SHOWN = 6  # metrics in the differences table (all of them are in sweep.csv)
PANELS = 9


def axis(values):
    """(x positions, tick labels or None) of a parameter's values: numbers as they are, anything else evenly spaced."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return (np.asarray(values, dtype=float), None) if numeric else (np.arange(len(values)), [str(v) for v in values])


def variant_differences(game: str, summaries: list[dict], blocks: list[dict], metas: list[dict],
                        baseline: int) -> dict[int, dict]:
    """{variant: {metric: row}} for every variant but the baseline, B = the variant, A = the baseline."""
    names = pairing_stats.headline_names(game, summaries[baseline], summaries[baseline])
    out = {i: differences(names, summaries[baseline], summary, blocks[baseline], block,
                          paired=not why_not_paired(metas[baseline], meta))
           for i, (summary, block, meta) in enumerate(zip(summaries, blocks, metas)) if i != baseline}
    call_real(*out.values())
    return out


COLUMNS = {"diff": "diff", "ci_low": "diff_ci_low", "ci_high": "diff_ci_high", "p": "diff_p",
           "p_adjusted": "diff_p_adjusted", "paired": "diff_paired"}


def columns(rows_by_variant: dict[int, dict], variant: int, baseline: int) -> dict:
    """One sweep-table row's difference columns: `<metric>.diff`, `.diff_ci_low`, `.diff_ci_high`, `.diff_p`,
    `.diff_p_adjusted`, `.diff_paired`, `.diff_real` (the baseline's row: `baseline` True, no differences)."""
    row = {"baseline": variant == baseline}
    for metric, r in rows_by_variant.get(variant, {}).items():
        for key, col in COLUMNS.items():
            row[f"{metric}.{col}"] = r.get(key)
        row[f"{metric}.diff_real"] = r["verdict"] == REAL
    return row


def _plot(table, key, rows_by_variant, metrics, baseline, path) -> None:
    """Small multiples: each metric's paired difference from the baseline against the parameter, with the
    unpaired interval of the same variants in grey behind it."""
    x, labels = axis(list(table[key]))
    cols = min(3, len(metrics))
    nrows = -(-len(metrics) // cols)
    fig, axes = new_panels(3.3 * cols, 2.6 * nrows, nrows, cols)
    for ax, metric in zip(axes, metrics):
        scale = 100.0 if is_rate(metric) else 1.0
        for i, xi in enumerate(x):
            r = rows_by_variant.get(i, {}).get(metric)
            if r is None:
                ax.plot([xi], [0], "D", color="black", ms=4)  # the baseline itself
                continue
            if "unpaired_ci_low" in r:
                ax.plot([xi, xi], [r["unpaired_ci_low"] * scale, r["unpaired_ci_high"] * scale], color=NEUTRAL,
                        lw=6, alpha=0.45, solid_capstyle="butt")
            colour = ACCENT if r["verdict"] == REAL else "#52606d"
            ax.errorbar([xi], [r["diff"] * scale], yerr=[[(r["diff"] - r["ci_low"]) * scale],
                                                          [(r["ci_high"] - r["diff"]) * scale]],
                        fmt="o", color=colour, capsize=3, ms=4)
        ax.axhline(0, color="black", lw=0.8)
        if labels:
            ax.set_xticks(x, labels, rotation=20, fontsize=7)
        ax.set_title(plain_name(metric), fontsize=9)
        ax.set_xlabel(key, fontsize=8)
        ax.set_ylabel("pts" if scale == 100.0 else "difference", fontsize=8)
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle(f"Paired difference from the baseline ({key}={table.at[baseline, key]})", fontsize=10)
    save(fig, path)


def section_html(table, keys, rows_by_variant: dict, baseline: int, label, outdir) -> str:
    """The report's 'Differences from the baseline' section (label(table, i, keys) names a variant)."""
    if not rows_by_variant:
        return ""
    metrics = list(next(iter(rows_by_variant.values())))
    shown = metrics[:SHOWN]
    count = sum(len(r) for r in rows_by_variant.values())
    flags = [r["paired"] for rows in rows_by_variant.values() for r in rows.values()]
    parts = ["<h2>Differences from the baseline</h2>",
             f"<p class='lead'>Each variant minus the baseline ({esc(label(table, baseline, keys))}), "
             + ("paired game by game: every variant was dealt the same cards wherever the deck is unchanged, so "
                "these intervals are far narrower than the variants' own. " if any(flags) else
                "from the variants' own intervals (not paired). ")
             + ("Figures marked * are not sums over games and use the variants' own intervals. "
                if any(flags) and not all(flags) else "")
             + f"A change is called real when its p-value, corrected (Holm) for all {count} comparisons here, is "
               "below 0.05.</p>"]
    for i, rows in rows_by_variant.items():
        real = [f"{r['label']} {fmt_diff(m, r)}{'' if r['paired'] else ' *'}" for m, r in rows.items()
                if r["verdict"] == REAL]
        text = ("real changes: " + "; ".join(real)) if real else "no real change"
        parts.append(f"<p><b>{esc(label(table, i, keys))}</b>: {esc(text)}.</p>")
    parts.append("<table><tr><th>variant</th>" + "".join(
        f"<th>{esc(plain_name(m))}<br><code>{esc(m)}</code></th>" for m in shown) + "</tr>")
    for i, rows in rows_by_variant.items():
        cells = []
        for m in shown:
            r = rows.get(m)
            if r is None:
                cells.append("<td>n/a</td>")
                continue
            text = esc(fmt_diff(m, r) + ("" if r["paired"] else " *"))
            tip = esc(f"{fmt_p(r['p'])}, Holm-adjusted {fmt_p(r['p_adjusted'])}")
            cells.append(f"<td title='{tip}'>" + (f"<b>{text}</b>" if r["verdict"] == REAL else text) + "</td>")
        parts.append(f"<tr><td>{esc(label(table, i, keys))}</td>{''.join(cells)}</tr>")
    parts.append("</table><p class='meta'>Bold: real change. sweep.csv holds every figure's difference "
                 "(<code>&lt;metric&gt;.diff</code>, <code>.diff_ci_low</code>, <code>.diff_ci_high</code>, "
                 "<code>.diff_p</code>, <code>.diff_p_adjusted</code>, <code>.diff_real</code>).</p>")
    if len(keys) == 1:
        path = outdir / "sweep_differences.png"
        _plot(table, keys[0], rows_by_variant, metrics[:PANELS], baseline, path)
        reading = ("Each point is a variant minus the baseline (black diamond) with its paired 95% interval; blue "
                   "points are real changes. The grey bars are the intervals the same games would give unpaired.")
        parts.append(figure_html(path, reading))
    return "\n".join(parts)
