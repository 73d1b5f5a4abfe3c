"""Geometry of the pass-rate chart: one bar per category, its 95% Wilson interval as an error
bar. The template draws it as SVG."""

from __future__ import annotations

from dataclasses import dataclass

from ...results.records import GroupAggregate

BAR, GAP, HEIGHT, TOP, LEFT = 46, 28, 200, 20, 40


@dataclass(frozen=True)
class Bar:
    name: str
    text: str  # the rate as k/n (95% CI ...)
    passed: int
    n: int
    x: float
    y: float  # top of the bar
    centre: float
    low_y: float
    high_y: float


@dataclass(frozen=True)
class Chart:
    width: float
    height: float
    baseline: float
    ticks: list[tuple[float, str]]  # (y, label)
    bars: list[Bar]
    left: float = LEFT  # where the axis is
    bar_width: float = BAR


def chart(groups: list[GroupAggregate]) -> Chart:
    def y_of(fraction: float) -> float:
        return TOP + HEIGHT * (1 - fraction)

    width = LEFT + len(groups) * (BAR + GAP) + GAP
    bars = []
    for i, g in enumerate(groups):
        x = LEFT + GAP + i * (BAR + GAP)
        n = g.rate.n
        bars.append(
            Bar(
                name=g.name,
                text=g.rate.text,
                passed=g.rate.passed,
                n=n,
                x=x,
                y=y_of(g.rate.passed / n if n else 0),
                centre=x + BAR / 2,
                low_y=y_of(g.rate.ci_low),
                high_y=y_of(g.rate.ci_high),
            )
        )
    ticks = [(y_of(f), f"{f:.0%}") for f in (0, 0.25, 0.5, 0.75, 1)]
    return Chart(width, HEIGHT + TOP + 50, TOP + HEIGHT, ticks, bars)
