"""tune.html: what `balance-sim tune` tried, what it spent, and whether any candidate meets every target
(from tune.json's ranking and history.csv's rounds)."""
from __future__ import annotations


import pandas as pd

from analysis import conclusions as C, findings as findings_mod
from analysis import percent
from analysis.formatting import CSS, esc, fmt_band, fmt_metric, is_rate, plain_name
from analysis.markup import markup, tag
from analysis.report import conclude

VERDICT_WORDS = {"meets": "meets (the whole 95% interval is inside the band)",
                 "plausible": "plausible (the estimate is inside, the interval is not yet)",
                 "misses": "misses"}


def params_label(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def miss_by(metric: str, target: dict) -> str:
    """", by 2.3 points" (rates) or ", by 4.1": how far the estimate lies outside its band ("" inside it)."""
    est, (low, high) = target.get("estimate"), target["band"]
    if est is None:
        return ""
    gap = (low - est) if low is not None and est < low else (est - high) if high is not None and est > high else 0.0
    if gap <= 0:
        return ""
    side = "below" if low is not None and est < low else "above"
    amount = f"{gap * 100:.{max(1, percent.decimals(gap))}f} points" if is_rate(metric) else f"{gap:.3g}"
    return f", {amount} {side} the band"


def candidate_conclusions(summary: dict, meta: dict, tables) -> list[dict]:
    """A candidate's conclusions (analysis.conclusions), as the report of a run of its configuration states them:
    computed on a copy of its summary (analysis.report.conclude), so its figures stay as they are."""
    return conclude(dict(summary), meta, tables)["conclusions"]


def choice(doc: dict) -> dict | None:
    """tune.json's answer (analysis.conclusions.best_candidate, computed by `tune` from the leader's summary);
    recomputed from the ranking, without the head-to-head figure, for a tune.json written before it."""
    found = C.conclusion_of(doc, "best_candidate")
    if found:
        return found
    ranking = [{**c, "label": c.get("label") or params_label(c["params"])} for c in doc["ranking"]]
    return C.best_candidate(ranking)


def tune_findings(doc: dict) -> list[dict]:
    ranking = doc["ranking"]
    if not ranking:
        return []
    best = ranking[0]
    picked = choice(doc)
    named = picked is not None and picked["verdict"] == C.REAL
    out = []
    all_meet = [c for c in ranking if all(t["verdict"] == "meets" for t in c["targets"].values())]
    if all_meet:
        out.append({"id": "meets", "figure": "ranking", "section": "candidates", "text": (
            f"{len(all_meet)} candidate(s) meet every target with their whole 95% interval"
            + (f"; the best is {params_label(all_meet[0]['params'])} ({all_meet[0]['games']:,} games)."
               if named else ".")
            )})
    plausible = [c for c in ranking if all(t["verdict"] in ("meets", "plausible") for t in c["targets"].values())]
    if not all_meet:
        text = "No candidate meets every target with its whole 95% interval"
        text += (f"; {params_label(plausible[0]['params'])} does with its estimate, so more games may settle it."
                 if plausible else ", not even by its estimate: widen the parameter range or the bands.")
        out.append({"id": "none_meets", "figure": "ranking", "section": "candidates", "text": text})
    if picked:
        out.append({"id": "best_candidate", "figure": "ranking", "section": "candidates", "text": picked["text"],
                    "verdict": picked["verdict"]})
    # "best" only when one at least plausibly meets every target and it is told apart from the next; otherwise the
    # closest, and by how much it misses; a toss-up names neither
    who = ("Best candidate" if all_meet or plausible else "Closest candidate") if named or picked is None else (
        "Leading candidate (a toss-up)")
    for metric, t in best["targets"].items():
        m = {k: t.get(k) for k in ("estimate", "ci_low", "ci_high")}
        by = miss_by(metric, t) if t["verdict"] == "misses" else ""
        out.append({"id": f"best[{metric}]", "figure": metric, "section": "candidates", "text": (
            f"{who} {params_label(best['params'])}: {plain_name(metric)} {fmt_metric(metric, m)} against a "
            f"target of {fmt_band(metric, *t['band'])}: {t['verdict']}{by}.")})
        said = C.sentence_on(best.get("conclusions"), metric)
        if said:  # the conclusion on this figure, as the report of the candidate's configuration says it
            out.append({"id": f"conclusion[{metric}]", "figure": metric, "section": "conclusions",
                        "text": f"For {params_label(best['params'])}: {said}"})
    out.append({"id": "budget", "figure": "spent", "section": "rounds", "text": (
        f"Spent {doc['spent']:,} of a budget of {doc['budget']:,} games on {len(ranking)} candidates by "
        f"{doc.get('method', 'successive halving')}.")})
    return out[:7]


def conclusions_html(ranking: list[dict]):
    """Each candidate's conclusions, in the sentences the report of its configuration gives them."""
    rows = [c for c in ranking if c.get("conclusions")]
    if not rows:
        return markup()
    return markup(tag("h2", "What each candidate's games conclude", id="conclusions"),
                  tag("p", "Each candidate's conclusions on its own games, said as the report of a run of its "
                           "configuration would say them (fewer games: wider intervals).", class_="meta"),
                  *(markup(tag("h3", f"{params_label(c['params'])} ({c['games']:,} games)"),
                           tag("ul", *(tag("li", x["text"]) for x in c["conclusions"] if x.get("text"))))
                    for c in rows))


def build_tune_report(doc: dict, history: pd.DataFrame, outdir) -> None:
    """Write tune.html beside tune.json."""
    ranking = doc["ranking"]
    metrics = list(ranking[0]["targets"]) if ranking else []
    title = f"{doc['game'].title()} tune"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
             f"<style>{CSS}</style></head><body><h1>{esc(title)}: which values meet the targets</h1>",
             findings_mod.box(tune_findings(doc)),
             f"<p class='meta'>Seed {doc['seed']}; targets: " + "; ".join(
                 esc(f"{plain_name(m)} in {fmt_band(m, *ranking[0]['targets'][m]['band'])}") for m in metrics)
             + ". Every candidate plays the same random numbers; the better half by distance to the targets goes "
               "on to the next round with twice the games.</p>"]
    parts.append("<h2 id='candidates'>Candidates</h2><table><tr><th>candidate</th><th>games</th>"
                 "<th>distance (0: every estimate inside its band)</th>" + "".join(
                     f"<th>{esc(plain_name(m))} "
                     f"(target {esc(fmt_band(m, *ranking[0]['targets'][m]['band']))})"
                     f"<br><code>{esc(m)}</code></th>" for m in metrics) + "</tr>")
    for c in ranking:
        cells = "".join(
            f"<td>{esc(fmt_metric(m, {k: t.get(k) for k in ('estimate', 'ci_low', 'ci_high')}))}: "
            f"<b>{t['verdict']}</b></td>" for m, t in c["targets"].items())
        parts.append(f"<tr><td>{esc(params_label(c['params']))}</td><td>{c['games']:,}</td>"
                     f"<td>{c['distance']:.3f}</td>{cells}</tr>")
    parts.append("</table><p class='meta'>Verdicts: " + "; ".join(VERDICT_WORDS.values()) + ".</p>")
    parts.append(conclusions_html(ranking))
    parts.append("<h2 id='rounds'>Rounds</h2><table><tr><th>round</th><th>candidates</th><th>games each (so far)"
                 "</th><th>best distance</th></tr>")
    if len(history):
        for r, part in history.groupby("round"):
            parts.append(f"<tr><td>{int(r) + 1}</td><td>{len(part)}</td><td>{int(part['games'].max()):,}</td>"
                         f"<td>{part['loss'].min():.3f}</td></tr>")
    parts.append(f"</table><p class='meta'>Budget {doc['budget']:,} games, spent {doc['spent']:,}. tune.json holds "
                 "every candidate's figures, history.csv every round.</p></body></html>")
    (outdir / "tune.html").write_text("\n".join(parts))
