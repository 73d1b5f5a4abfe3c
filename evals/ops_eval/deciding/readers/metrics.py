"""How far each reader of answers errs against the hand labels, with denominators.

The label is the truth. For a scorer, a *false fail* is a trial labelled pass that the scorer
failed (or erred on: an error never helps anything through, and it fails a trial); a *false
pass* is a trial labelled fail that the scorer did not fail -- passed it, or found nothing to
judge in its answers (n/a): the bad answer got through either way. Trials labelled n/a are left
out, and so are trials of a case the scorer declares it does not apply to (no claim in its
references, no check of its kind: it gives such a case no verdict at all). For the
answer guard, a *false flag* is a warning on an answer labelled clean; a *missed flag* is an
answer labelled flag that it left alone (reported; the guard's breach side is the red team's).

A rate is a measurement only with at least `MIN_PER_CLASS` items in its class; fewer is "not
measured", never a rate (at 40 items, 2 errors is 5% with a 95% interval of about 1%-17%).
The target: each measured rate at most `MAX_ERROR`. Deterministic readers give counts, not
samples of a process: the interval says how far the figure would carry to answers like these.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from ...base.stats import Rate
from ...base.strict import Strict
from .items import Labels, Split
from .rescore import Rescored

MIN_PER_CLASS = 40
MAX_ERROR = 0.05
GUARD = "answer_guard"
"""The guard's name in reports, beside the scorers'."""
FAILING = frozenset({"fail", "error"})


class Miss(Strict):
    """One item the reader got wrong, for re-checking by hand."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    said: str


class Figures(Strict):
    """One reader on one half: its two error rates and the items behind them."""

    model_config = ConfigDict(frozen=True)

    first: Rate
    """Scorers: false fails over trials labelled pass. The guard: false flags over clean ones."""
    second: Rate
    """Scorers: false passes over trials labelled fail. The guard: missed flags."""
    misses: list[Miss] = []

    def status(self, guard: bool = False) -> tuple[Literal["meets", "misses", "not measured"], str]:
        """Whether this half meets the target, and why not."""
        names = ("false flags", "missed flags") if guard else ("false fails", "false passes")
        rates = (
            [(names[0], self.first)]
            if guard
            else list(zip(names, (self.first, self.second), strict=True))
        )
        short = [f"{name}: {r.n} item(s) in its class" for name, r in rates if r.n < MIN_PER_CLASS]
        if short:
            return "not measured", f"fewer than {MIN_PER_CLASS} items ({'; '.join(short)})"
        over = [f"{name} {r.show()}" for name, r in rates if (r.rate or 0) > MAX_ERROR]
        if over:
            return "misses", f"above {MAX_ERROR:.0%}: " + "; ".join(over)
        return "meets", ""


def label_of(labels: Labels, scorer: str) -> str | None:
    """The hand label of `scorer` on a trial: pass, fail, or None (n/a, or none given)."""
    if scorer in ("contains", "not_contains"):
        return labels.checks.get(scorer)  # type: ignore[call-overload]
    value = getattr(labels, scorer, None)
    return value if value in ("pass", "fail") else None


def scorer_figures(name: str, rows: list[tuple[Rescored, Labels]]) -> Figures:
    false_fail = false_pass = passes = fails = 0
    misses = []
    for done, labels in rows:
        label, said = label_of(labels, name), done.outcomes.get(name)
        if label is None or said is None:
            continue
        failed = said in FAILING
        if label == "pass":
            passes += 1
            false_fail += failed
        else:
            fails += 1
            false_pass += not failed
        if (label == "pass") == failed:
            misses.append(Miss(id=done.trial.id, label=label, said=said))
    return Figures(
        first=Rate.of(false_fail, passes), second=Rate.of(false_pass, fails), misses=misses
    )


def guard_figures(rows: list[tuple[Rescored, Labels]]) -> Figures:
    false_flag = clean = missed = flags = 0
    misses = []
    for done, labels in rows:
        for n, (label, flagged) in enumerate(zip(labels.guard, done.flagged, strict=True), 1):
            if label == "clean":
                clean += 1
                false_flag += flagged
            else:
                flags += 1
                missed += not flagged
            if (label == "flag") != flagged:
                said = "flagged" if flagged else "not flagged"
                misses.append(Miss(id=f"{done.trial.id}@{n}", label=label, said=said))
    return Figures(first=Rate.of(false_flag, clean), second=Rate.of(missed, flags), misses=misses)


def by_split(
    rescored: list[Rescored], labels: dict[str, Labels], split: Split
) -> list[tuple[Rescored, Labels]]:
    from .items import split_of

    return [(r, labels[r.trial.id]) for r in rescored if split_of(r.trial.case) == split]
