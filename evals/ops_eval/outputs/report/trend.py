"""Geometry of one series' pass-rate trend on the history page (`ops-eval history --format
html`): a point per run at its pass rate, and its 95% Wilson interval as a shaded band -- a
polygon through the upper bounds left to right, then back through the lower bounds -- so a drop
that stays inside the band reads as the noise it may be. Numbers only, like `chart.py`: the
template draws them as SVG, and no name or label ever becomes part of a path.

Runs are spaced evenly in run order, not by time: a week without runs is not a trend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...results.record_parts import RecordedRate

STEP, MAX_PLOT, HEIGHT, TOP, LEFT, GAP, BOTTOM = 48, 720, 160, 16, 44, 24, 34
MIN_WIDTH = 220  # room for the caption under the axis
SINGLE = 8  # half-width of the band of a one-run series, which would otherwise be a line
MIN_LABEL_STEP = 14  # closer than this, only the first and the last run are labelled


@dataclass(frozen=True)
class TrendPoint:
    label: str  # under the axis (the run's number in the table)
    title: str  # the tooltip: which run, its rate as k/n (95% CI ...)
    x: float
    y: float | None  # None: no valid trial, so no rate to mark (its band spans 0-100%)
    low_y: float
    high_y: float
    labelled: bool


@dataclass(frozen=True)
class Trend:
    width: float
    height: float
    left: float  # where the axis is
    right: float  # where the grid lines end
    baseline: float  # y of 0%
    ticks: list[tuple[float, str]]  # (y, label), 0-100%
    points: list[TrendPoint]
    band: str  # the polygon's points, "x,y x,y ..."
    line: str  # the polyline through the runs that have a rate; "" for fewer than two


def _y(fraction: float) -> float:
    return round(TOP + HEIGHT * (1 - fraction), 1)


def _xy(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in points)


def trend(runs: Sequence[tuple[str, str, RecordedRate]]) -> Trend:
    """The trend of `runs`, oldest first, each (label, tooltip, its pass rate)."""
    count = len(runs)
    step = STEP if count < 2 else min(STEP, MAX_PLOT / (count - 1))
    points = []
    for i, (label, title, rate) in enumerate(runs):
        points.append(
            TrendPoint(
                label=label,
                title=title,
                x=round(LEFT + GAP + i * step, 1),
                y=_y(rate.passed / rate.n) if rate.n else None,
                low_y=_y(rate.ci_low),
                high_y=_y(rate.ci_high),
                labelled=step >= MIN_LABEL_STEP or i in (0, count - 1),
            )
        )
    if count == 1:
        (p,) = points
        upper = [(p.x - SINGLE, p.high_y), (p.x + SINGLE, p.high_y)]
        lower = [(p.x - SINGLE, p.low_y), (p.x + SINGLE, p.low_y)]
    else:
        upper = [(p.x, p.high_y) for p in points]
        lower = [(p.x, p.low_y) for p in points]
    marked = [(p.x, p.y) for p in points if p.y is not None]
    right = LEFT + 2 * GAP + max(count - 1, 0) * step
    return Trend(
        width=max(round(right + 8, 1), MIN_WIDTH),
        height=TOP + HEIGHT + BOTTOM,
        left=LEFT,
        right=round(right, 1),
        baseline=_y(0),
        ticks=[(_y(f), f"{f:.0%}") for f in (0, 0.25, 0.5, 0.75, 1)],
        points=points,
        band=_xy(upper + lower[::-1]),
        line=_xy(marked) if len(marked) > 1 else "",
    )
