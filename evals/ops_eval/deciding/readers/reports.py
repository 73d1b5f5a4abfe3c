"""Reader measurements: an append-only, hash-chained JSONL log (the judge's calibration log's
format, `ledger.chain`), and `standing` -- what the gate asks of a gating scorer.

A measurement is of one reader's code on one labelled set. So each entry keeps the set's sha256
and each reader's digest (`scorer_digest`: its module and every reader it reaches); the gate
counts a measurement only while both are what they are now. A changed claims reader, a changed
scorer or a relabelled set lapses it: the gate then warns until `ops-eval readers` is run again.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, TypeAdapter

from ...base.strict import Strict
from ..ledger.chain import Ledger
from .metrics import MAX_ERROR, MIN_PER_CLASS, Figures

WHAT = "reader measurement log"
LOG_FILE = "readers.jsonl"
Status = Literal["meets", "misses", "not measured"]


class ReaderResult(Strict):
    """One reader's figures on both halves; its status is the held-out half's."""

    model_config = ConfigDict(frozen=True)

    name: str
    digest: str
    held_out: Figures
    tune: Figures
    status: Status
    why: str = ""


class ReaderReport(Strict):
    """One measurement of every reader of answers over the labelled set."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["readers"] = "readers"
    at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    set_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    trials: int = Field(ge=0)
    answers: int = Field(ge=0)
    min_per_class: int = MIN_PER_CLASS
    max_error: float = MAX_ERROR
    readers: list[ReaderResult]

    def result(self, name: str) -> ReaderResult | None:
        return next((r for r in self.readers if r.name == name), None)


@cache
def _adapter() -> TypeAdapter[ReaderReport]:
    return TypeAdapter(ReaderReport)


def report_log(folder: Path) -> Ledger:
    """The measurement log beside the labelled set in `folder`."""
    return Ledger(folder / LOG_FILE, adapter=_adapter(), what=WHAT, rules=None)


def standing(name: str, digest: str, set_sha256: str, folder: Path) -> str | None:
    """Why the measurement of scorer `name` (whose digest is `digest` now, on the labelled set
    whose sha256 is `set_sha256` now) cannot be relied on, or None when its latest counted
    measurement meets the target. OpsEvalError (exit 2) when the log cannot be trusted."""
    log = report_log(folder)
    reports = log.entries()
    mine = [(r, r.result(name)) for r in reports if r.result(name) is not None]
    if not mine:
        return f"never measured against the labelled answers (`ops-eval readers`; {log.path})"
    report, result = mine[-1]
    assert result is not None
    if report.set_sha256 != set_sha256:
        return (
            f"its measurement of {report.at} lapsed: the labelled set changed since (sha256 "
            f"{report.set_sha256[:12]} -> {set_sha256[:12]}); run `ops-eval readers`"
        )
    if result.digest != digest:
        return (
            f"its measurement of {report.at} lapsed: the scorer or a reader it calls changed "
            f"since (digest {result.digest[:12]} -> {digest[:12]}); run `ops-eval readers`"
        )
    if result.status != "meets":
        return f"measured {report.at} on the held-out answers: {result.status} ({result.why})"
    return None
