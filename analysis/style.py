"""One look for every plot: colours fixed per strategy name, so a strategy has one colour in every figure."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
# no pyplot: its import and its figure managers (open windows a report has none of) cost CPU, change no PNG
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

PALETTE = ["#1b6ca8", "#e07b39", "#3a9d5d", "#c0392b", "#8e6bbf", "#8c6d46", "#d16ba5", "#6b6b6b",
           "#b5a400", "#17a2b8", "#5d4037", "#2e7d32"]
ACCENT = "#1b6ca8"
NEUTRAL = "#9aa5b1"


def strategy_colors(names) -> dict:
    """Stable colour per name: sorted order, so the same set of strategies always gets the same colours."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(set(names)))}


def new_panels(width: float, height: float, rows: int = 1, cols: int = 1, **grid):
    """A figure and its rows x cols axes (flattened), top and right spines hidden."""
    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)  # what pyplot gives a figure under the Agg backend
    axes = fig.subplots(rows, cols, squeeze=False, **grid).ravel()
    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
    return fig, axes


def new_figure(width: float = 7.5, height: float = 4.2):
    fig, (ax,) = new_panels(width, height)
    ax.grid(axis="y", alpha=0.3)
    return fig, ax


def save(fig, path) -> None:
    fig.tight_layout()
    # tight_layout leaves a do-nothing layout engine behind that makes savefig draw the figure once more (a fifth
    # of a save's CPU time); without it the PNG is byte-for-byte the same
    fig.set_layout_engine(None)
    fig.savefig(path)


def clip_upper(values, q: float = 99.9):
    """A histogram's data up to the q-th percentile, so one rare long tail (a round at the turn cap) does not
    squash the plot: (kept values, cut-off, count left off, largest value)."""
    import numpy as np
    values = np.asarray(values)
    if values.size == 0:
        return values, 0, 0, 0
    cap = np.percentile(values, q)
    keep = values <= cap
    return values[keep], cap, int((~keep).sum()), values.max()


def overflow_note(left_off: int, total: int, cap, largest, unit: str) -> str:
    """The caption's count of what clip_upper left off."""
    if not left_off:
        return ""
    return f" Not shown: {left_off:,} {unit} ({left_off / total:.2%}) above {cap:g} (the largest: {largest:g})."
