"""`balance-sim psro`'s page, psro.html: the pool, its head-to-head table with Wilson intervals, the equilibrium
mix and each round's gain, built through analysis.markup (every name from the setup or a configuration escaped)
like every other page. Its one reading, `verdict`, is a tested conclusion."""
from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint

from analysis.markup import markup, table, tag


def interval(share: float, games: int) -> tuple[float, float]:
    """Wilson 95% interval of a win share over `games` games (ties counted as fractions of a win)."""
    low, high = proportion_confint(share * games, games, alpha=0.05, method="wilson")
    return float(low), float(high)


def verdict(result: dict) -> str:
    """What the last round says: whether a best response still beat the pool's mix by more than --stop-gain
    (the loop ran out of rounds) or not (the loop stopped there), in the gain's own words."""
    history, stop = result["history"], result["stop_gain"]
    if not history:
        return "No round was played."
    last = history[-1]
    gain = f"{100 * last['gain']:+.1f} points"
    if last["gain"] <= stop:
        return (f"Round {last['round'] + 1}'s best response beat the pool's mix by {gain}, no more than --stop-gain "
                f"({100 * stop:.1f} points): the loop stopped, this strategy's parameters found little left to "
                f"exploit in the mix at this budget.")
    return (f"All {len(history)} rounds were played and the last best response still beat the pool's mix by {gain} "
            f"(--stop-gain {100 * stop:.1f} points): more rounds may find more.")


def page(result: dict) -> str:
    """psro.html from psro.json's contents."""
    s = result["setup"]
    names = [m["name"] for m in result["members"]]
    games = result["games_played_per_pair"]
    fair = 1 / s["players"]

    def cell(i: int, j: int) -> str:
        if i == j:
            return "-"
        share = result["shares"][i][j]
        low, high = interval(share, games)
        return f"{100 * share:.1f}% ({100 * low:.1f}-{100 * high:.1f})"

    grid = [tag("tr", tag("th", a), *(tag("td", cell(i, j)) for j in range(len(names))))
            for i, a in enumerate(names)]
    rounds = [[h["round"] + 1, f"{100 * h['gain']:+.1f}",
               ", ".join(f"{n} {w:.2f}" for n, w in zip(names, h["mix_after"]) if w > 0.005)]
              for h in result["history"]]
    body = markup(
        tag("h1", f"{s['game'].title()}: self-play of {s['strategy']} (PSRO)"),
        tag("p", f"{s['game']}, {s['players']} players; starting pool {', '.join(s['against'])}; seed {s['seed']}; "
                 f"{s['budget']:,} search games a round; {games:,} games a pair measuring each new member on fresh "
                 f"deals.", class_="meta"),
        tag("p", verdict(result)),
        tag("h2", "The pool's equilibrium mix"),
        table(["member", "weight"], [[n, f"{result['mix'][n]:.2f}"] for n in names]),
        tag("h2", "Rounds: the best response's gain over the mix, and the mix after it joined"),
        table(["round", "gain (points)", "mix after"], rounds),
        tag("h2", "Win share of one row seat against the column in every other seat (Wilson 95% interval)"),
        tag("table", tag("tr", tag("th", ""), *(tag("th", n) for n in names)), *grid),
        tag("p", f"Fair share {100 * fair:.1f}%. preset.toml holds every best response as a preset: ",
            tag("code", f"balance-sim run {s['game']} --config preset.toml -s <member>,..."), class_="meta"))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>PSRO</title></head><body>\n"
            + body + "</body></html>")
