"""How a share reads in %: one decimal, or as many as it takes for a share that is not 0 (or not 100%) to show a
significant digit. 3 games of 68,885 read "0.004% (95% CI 0.001%-0.013%)", not "0.0% (95% CI 0.0%-0.0%)".
Every page's percentages go through here (`analysis.formatting`, `analysis.across_skill`)."""
from __future__ import annotations

import math

MAX_DECIMALS = 6  # 1 game in 100 million still shows; beyond that the share is 0 for any designer


def decimals(*shares) -> int:
    """The decimals (of a figure in %) that show a significant digit of every share in `shares` that is neither 0
    nor 1, nor within a rounding of either: at least one, at most MAX_DECIMALS. A figure and its interval share
    one count, so they line up."""
    places = 1
    for share in shares:
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not math.isfinite(share):
            continue
        distance = min(abs(share), abs(1 - share)) * 100  # in points, from the nearer of 0% and 100%
        if distance >= 0.5 * 10 ** -MAX_DECIMALS:  # below that it is a float's rounding of 0, not a share
            places = max(places, -math.floor(math.log10(distance)))
    return min(places, MAX_DECIMALS)


def pct(share, places: int | None = None) -> str:
    """`share` (0-1) in %, with `decimals(share)` places unless given; "n/a" for a missing figure."""
    if not isinstance(share, (int, float)) or isinstance(share, bool) or not math.isfinite(share):
        return "n/a"
    places = decimals(share) if places is None else places
    return f"{share * 100:.{places}f}%"


def ci(m: dict, sep: str = "-") -> str:
    """"95% CI lo%-hi%" of a figure, at the places its estimate and both ends need."""
    places = decimals(m.get("estimate"), m.get("ci_low"), m.get("ci_high"))
    return f"95% CI {pct(m.get('ci_low'), places)}{sep}{pct(m.get('ci_high'), places)}"


def with_ci(m: dict) -> str:
    """"est% (95% CI lo%-hi%)", every part at one count of places."""
    places = decimals(m.get("estimate"), m.get("ci_low"), m.get("ci_high"))
    return f"{pct(m.get('estimate'), places)} ({ci(m)})"
