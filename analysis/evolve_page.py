"""What `balance-sim evolve` writes: history.csv, preset.toml, evolve.json and evolve.html, with the held-out
validation (fresh deals, winner and start paired per pool member, members weighted by the pool weights).
"""
from __future__ import annotations

import json
import math
import re
import tomllib

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator
from scipy import stats as sps

from analysis.formatting import CSS, esc, figure_html
from analysis.style import ACCENT, NEUTRAL, PALETTE, new_figure, save

Z95 = sps.norm.ppf(0.975)


def mean_interval(x, share: bool = True) -> dict:
    """Mean of per-game values with a 95% t interval; a win share's interval is kept within 0 to 1."""
    x = np.asarray(x, dtype=float)
    n, est = x.size, float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    half = float(sps.t.ppf(0.975, n - 1) * se) if n > 1 else math.nan
    low, high = est - half, est + half
    if share:
        low, high = max(low, 0.0), min(high, 1.0)
    return {"estimate": est, "ci_low": low, "ci_high": high, "se": se, "n": int(n)}


def paired_difference(a, b) -> dict:
    """a - b over the same games (paired), 95% t interval and the two-sided p-value of no difference."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    out = mean_interval(d, share=False)
    if d.size > 1 and np.ptp(d) > 0:
        out["p"] = float(sps.ttest_rel(a, b).pvalue)
    else:
        out["p"] = 1.0 if d.size and not d.any() else 0.0
    return out


def weighted(parts: list[dict], weights) -> dict:
    """Members' estimates combined with the pool weights; independent errors, normal 95% interval."""
    w = np.asarray(weights, dtype=float) / np.sum(weights)
    est = float(w @ [p["estimate"] for p in parts])
    se = float(math.sqrt(w**2 @ np.array([p["se"] ** 2 for p in parts])))
    p = float(2 * sps.norm.sf(abs(est) / se)) if se > 0 else (1.0 if est == 0 else 0.0)
    return {"estimate": est, "ci_low": est - Z95 * se, "ci_high": est + Z95 * se, "se": se,
            "n": int(sum(x["n"] for x in parts)), "p": p}


def validation_summary(result: dict) -> dict:
    val, pool, weights = result["validation"], result["pool"], result["weights"]
    members = {name: {"weight": weights[j], "winner": mean_interval(val["winner"][j]),
                      "start": mean_interval(val["start"][j]),
                      "difference": paired_difference(val["winner"][j], val["start"][j])}
               for j, name in enumerate(pool)}
    parts = list(members.values())
    return {"population": f"held-out games on fresh deals ({val['games']:,} per pool member and comparison), "
                          "seats rotated; winner and start paired deal by deal",
            "games_per_comparison": val["games"], "members": members,
            "winner": weighted([m["winner"] for m in parts], weights),
            "start": weighted([m["start"] for m in parts], weights),
            "difference": weighted([m["difference"] for m in parts], weights),
            "head_to_head": mean_interval(val["head_to_head"])}


def history_frame(result: dict) -> pd.DataFrame:
    """One row per candidate per generation, then the incumbent's row: fitness, its standard error, values."""
    names, low, high, whole = (result["space"][k] for k in ("names", "low", "high", "whole"))
    rows = []
    for rec in result["history"]:
        points = [("candidate", i, x, f, s) for i, (x, f, s) in
                  enumerate(zip(rec["candidates"], rec["fitness"], rec["se"]))]
        points.append(("incumbent", -1, rec["incumbent"], rec["incumbent_fitness"], rec["incumbent_se"]))
        for role, i, x, f, s in points:
            rows.append({"generation": rec["generation"], "role": role, "candidate": i,
                         "games_per_member": rec["games_per_member"], "games_spent": rec["spent"],
                         "fitness": f, "se": s, "sigma": rec["sigma"],
                         "replaced": rec["replaced"] if role == "incumbent" else None,
                         # the challenger's re-test on fresh deals (absent from searches saved before it)
                         **{k: rec.get(k) if role == "incumbent" else None
                            for k in ("retested", "retest_diff", "retest_se")},
                         **dict(zip(names, _values(x, low, high, whole)))})
    return pd.DataFrame(rows)


def _values(unit, low, high, whole) -> list:
    x = np.clip(np.asarray(unit, dtype=float), 0, 1)
    raw = np.asarray(low) + x * (np.asarray(high) - np.asarray(low))
    return [float(round(v)) if w else float(v) for v, w in zip(raw, whole)]


def preset_name(result: dict) -> str:
    return f"{result['setup']['strategy']}-evolved"


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quoted, with every character TOML forbids raw (controls, DEL, quote,
    backslash) escaped, so a name is one quoted token whatever it holds (no newline can start a TOML line)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 32 or ord(c) == 127:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """A bare key when TOML allows one (letters, digits, `_`, `-`), else a quoted one (`"my preset"`, `"a.b"`)."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def preset_toml(result: dict) -> str:
    """A [strategies.<name>] preset that `run --config` accepts: the starting preset's own values (if it was
    one) with the evolved parameters over them. The name is a quoted key (`my preset`, `a.b`: one key) and the
    text is read back before it is written: what a name holds never becomes TOML of its own."""
    given = dict(result["setup"]["config"].get("strategies", {}).get(result["setup"]["strategy"], {}))
    # round_robin: the evolved preset plays only when named, whatever its start did
    given = {k: v for k, v in given.items() if k not in ("base", "players", "round_robin") and not isinstance(v, dict)}
    given.update(result["winner"])
    lines = [f"# evolved by balance-sim {result['setup']['kind']} {result['setup']['game']} "
             f"--strategy {toml_string(result['setup']['strategy'])} --seed {result['setup']['seed']} "
             f"--budget {result['setup']['budget']}",
             f"[strategies.{toml_key(preset_name(result))}]", f"base = {toml_string(result['base'])}"]
    lines += [f"{toml_key(k)} = {toml_string(v) if isinstance(v, str) else repr(float(v))}" for k, v in given.items()]
    text = "\n".join(lines) + "\n"
    written = {"base": result["base"], **{k: v if isinstance(v, str) else float(v) for k, v in given.items()}}
    if tomllib.loads(text) != {"strategies": {preset_name(result): written}}:  # never write what reads otherwise
        raise ValueError(f"preset.toml would not read back as the preset {preset_name(result)!r}")
    return text


def parameters_in_words(result: dict) -> list[str]:
    names, low, high, whole = (result["space"][k] for k in ("names", "low", "high", "whole"))
    out = []
    for name, lo, hi, w in zip(names, low, high, whole):
        a, b = result["start"][name], result["winner"][name]
        digits = 3  # more where 3 would print a move as "0.3 -> 0.3"
        while not w and a != b and f"{a:.{digits}g}" == f"{b:.{digits}g}" and digits < 12:
            digits += 1
        fmt = (lambda v: f"{v:.0f}") if w else (lambda v, d=digits: f"{v:.{d}g}")
        where = (" (at its lower bound)" if b <= lo else " (at its upper bound)" if b >= hi else "")
        if a == b or fmt(a) == fmt(b):  # a whole-number parameter moved by less than 1 did not move in play
            out.append(f"{name}: unchanged at {fmt(b)}{where}; searched from {fmt(lo)} to {fmt(hi)}")
            continue
        move = "raised" if b > a else "lowered"
        out.append(f"{name}: {move}, {fmt(a)} -> {fmt(b)}{where}; searched from {fmt(lo)} to {fmt(hi)}")
    return out


def pct(m: dict, points: bool = False) -> str:
    unit, sign = (" points", "+") if points else ("%", "")
    return (f"{m['estimate'] * 100:{sign}.1f}{unit} (95% CI {m['ci_low'] * 100:{sign}.1f} to "
            f"{m['ci_high'] * 100:{sign}.1f})")


def reading(result: dict, summary: dict) -> list[str]:
    d = summary["difference"]
    verdict = ("better than its start" if d["ci_low"] > 0 else "worse than its start" if d["ci_high"] < 0 else
               "not distinguishable from its start")
    lines = [f"Against the pool the evolved {result['base']} wins {pct(summary['winner'])} of the games, its start "
             f"{pct(summary['start'])}: a difference of {pct(d, True)}, {verdict}.",
             f"Head to head, the evolved strategy wins {pct(summary['head_to_head'])} against its start."]
    for name, m in summary["members"].items():
        lines.append(f"Against {name}: {pct(m['winner'])} (start {pct(m['start'])}; paired difference "
                     f"{pct(m['difference'], True)}).")
    return lines


def _save_by_generation(fig, ax, ylabel: str, legend: str, path) -> None:
    """Whole generations along the x axis, the y axis named, the legend where `legend` says; the figure saved."""
    ax.set(xlabel="generation", ylabel=ylabel)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc=legend, fontsize=8)
    save(fig, path)


def _plot_convergence(frame: pd.DataFrame, path) -> str:
    fig, ax = new_figure()
    cand = frame[frame.role == "candidate"]
    inc = frame[frame.role == "incumbent"]
    ax.scatter(cand.generation, cand.fitness, s=10, color=NEUTRAL, label="candidates (this generation's deals)")
    ax.errorbar(inc.generation, inc.fitness, yerr=Z95 * inc.se, color=ACCENT, marker="o", ms=4, capsize=3,
                label="incumbent (all its games, 95% CI)")
    _save_by_generation(fig, ax, "mean win share against the pool", "lower right", path)
    return ("Convergence: each generation's candidates (grey) and the incumbent, the best so far, with a 95% "
            "interval over every game it has played since it became incumbent.")


def _plot_parameters(result: dict, path) -> str:
    fig, ax = new_figure()
    names = result["space"]["names"]
    gens = [r["generation"] for r in result["history"]]
    for k, name in enumerate(names):
        color = PALETTE[k % len(PALETTE)]
        ax.plot(gens, [r["incumbent"][k] for r in result["history"]], color=color, marker=".", label=name)
        ax.plot(gens, [r["mean"][k] for r in result["history"]], color=color, ls=":", alpha=0.7)
    ax.set_ylim(-0.05, 1.05)
    _save_by_generation(fig, ax, "position within its bounds (0 = lowest)", "best", path)
    return ("Parameters over time, each scaled to its declared bounds: the incumbent (solid) and CMA-ES's "
            "search mean (dotted).")


def page(result: dict, summary: dict, outdir, title: str, extra: str = "") -> str:
    """evolve.html's body sections (shared with exploit.html)."""
    frame = history_frame(result)
    conv = _plot_convergence(frame, outdir / "convergence.png")
    params = _plot_parameters(result, outdir / "parameters.png")
    setup = result["setup"]
    hist = result["history"]
    members = "".join(f"<tr><td>{esc(n)}</td><td>{m['weight']:.2f}</td><td>{pct(m['winner'])}</td>"
                      f"<td>{pct(m['start'])}</td><td>{pct(m['difference'], True)}</td></tr>"
                      for n, m in summary["members"].items())
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
             f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>",
             f"<p class='meta'>{esc(setup['game'])}, {setup['players']} players, strategy "
             f"{esc(setup['strategy'])} (base {esc(result['base'])}); pool "
             f"{esc(', '.join(result['pool']))}; seed {setup['seed']}; {result['spent']:,} of "
             f"{setup['budget']:,} search games in {len(hist)} generations of {result['popsize']} candidates "
             f"plus the incumbent (stopped: {esc(result['stopped'])}); validation "
             f"{summary['games_per_comparison']:,} games per comparison.</p>", esc(extra),
             "<h2>The evolved parameters</h2><ul>"
             + "".join(f"<li>{esc(x)}</li>" for x in parameters_in_words(result)) + "</ul>",
             f"<p>preset.toml holds them as the preset <code>{esc(preset_name(result))}</code>: "
             f"<code>balance-sim run {esc(setup['game'])} --config preset.toml -s "
             f"{esc(preset_name(result))},...</code></p>",
             "<h2>Validation on fresh deals</h2><ul>"
             + "".join(f"<li>{esc(x)}</li>" for x in reading(result, summary)) + "</ul>",
             "<table><tr><th>pool member</th><th>weight</th><th>evolved wins</th><th>start wins</th>"
             f"<th>paired difference</th></tr>{members}</table>",
             f"<p class='meta'>Population: {esc(summary['population'])}.</p>",
             "<h2>Convergence</h2>", figure_html(outdir / "convergence.png", conv),
             "<h2>Parameters over time</h2>", figure_html(outdir / "parameters.png", params),
             "<p class='meta'>Every candidate of a generation plays the same deals against each pool member "
             "(common random numbers); the incumbent is replayed on them, a candidate that beats it there by more "
             "than one paired standard error is played against it again on fresh deals, and replaces it only if it "
             "wins by more than 1.645 paired standard errors there too; games per candidate double when a "
             "generation's fitness spread is within twice its noise. history.csv holds every candidate.</p>"
             "</body></html>"]
    return "\n".join(parts)


def write_files(outdir, result: dict, summary: dict, name: str, title: str, extra_html: str = "",
                extra_json: dict | None = None) -> None:
    history_frame(result).to_csv(outdir / "history.csv", index=False)
    (outdir / "preset.toml").write_text(preset_toml(result))
    doc = {"game": result["setup"]["game"], "strategy": result["setup"]["strategy"], "base": result["base"],
           "preset": preset_name(result), "start": result["start"], "winner": result["winner"],
           "parameters_in_words": parameters_in_words(result), "pool": result["pool"],
           "weights": result["weights"], "generations": len(result["history"]), "search_games": result["spent"],
           "stopped": result["stopped"], "validation": summary, "setup": {k: v for k, v in result["setup"].items()
                                                                          if k != "config"},
           **(extra_json or {})}
    (outdir / f"{name}.json").write_text(json.dumps(doc, indent=2) + "\n")
    (outdir / f"{name}.html").write_text(page(result, summary, outdir, title, extra_html))


def publish(outdir, result: dict) -> list[str]:
    """Write everything of an evolve into `outdir`; return the reading, one line each, for the terminal."""
    summary = validation_summary(result)
    setup = result["setup"]
    write_files(outdir, result, summary, "evolve", f"{setup['game'].title()}: evolving {setup['strategy']}")
    return parameters_in_words(result) + reading(result, summary)
