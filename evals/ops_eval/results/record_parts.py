"""The parts of a run record (`records.RunRecord`): a trial, a rate as the record stores it,
the aggregates, how each scorer gated, the model, an interruption, a shard -- and which trials
a shard holds, and what a trial's status is of its scores.

Read strictly, like the record: no NaN or infinity, no field the schema does not name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from ..base.stats import Rate
from ..base.strict import Strict
from ..core.calls import Turn
from ..core.criteria import MatchType
from ..core.trial import Conversation
from ..scorers.base import Cases, Gate, Score


def quoted(text: str, limit: int = 60) -> str:
    """A name from the record, quoted for a one-line message (escapes, cut short)."""
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def inconsistent(message: str, **context: Any) -> PydanticCustomError:
    return PydanticCustomError("inconsistent_record", message, context)


def once_each(field: str, names: list[str]) -> None:
    """Each name once in `field`; an inconsistent-record error naming the first twice."""
    for name, times in Counter(names).items():
        if times > 1:
            raise inconsistent(
                "{field}: case {case} appears {times} times",
                field=field,
                case=quoted(name),
                times=times,
            )


Count = Annotated[int, Field(ge=0)]
Fraction = Annotated[float, Field(ge=0, le=1)]  # a rate, a bound, a threshold, pass^k
Seconds = Annotated[float, Field(ge=0)]


class RecordModel(Strict):
    """What every part of a run record is: strict, and no NaN or infinity -- a count, a rate or a
    duration that is not a number is a broken record."""

    model_config = ConfigDict(allow_inf_nan=False)


class GateCriteria(RecordModel):
    """The trajectory gate the run applied (`criteria.Criteria`), as the reports state it."""

    threshold: Fraction
    match_type: MatchType


def trial_status(scores: Mapping[str, Score]) -> Literal["passed", "failed"]:
    """A played trial's status, of its scores: it fails when any score fails or errs (an `error`
    score -- a scorer that applies but reached no verdict -- fails closed, never passes)."""
    return (
        "passed" if all(s.outcome not in ("fail", "error") for s in scores.values()) else "failed"
    )


class TrialRecord(RecordModel):
    case_id: str
    category: str
    repeat: int
    status: Literal["passed", "failed", "error"]
    error: str | None = None
    looped: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Why the trial ended as a loop (the agent's own failure: it fails the scorers that apply
    to its case); None, and not written, for a trial that did not."""
    turns: list[Turn] = []
    scores: dict[str, Score] = {}
    seconds: Seconds = 0.0
    state_after: dict[str, Any] = {}
    conversation: Conversation | None = Field(default=None, exclude_if=lambda v: v is None)
    """A scenario's: who played the user, who ended the conversation and why; None, and not
    written, for a scripted case."""
    case_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", exclude_if=lambda v: v is None
    )
    """The case's content hash as played (`core.case_version`; every trial of a version 6
    record names it: `shared_cases`); None, and not written, in an older record."""
    case_version: int | None = Field(default=None, ge=1, exclude_if=lambda v: v is None)
    """The version the set's lock gives that content; None, and not written, when the lock
    does not hold it (or the record is older)."""

    @model_validator(mode="after")
    def _per_turn_values_match_the_turns(self) -> TrialRecord:
        """The HTML report shows each turn's per-turn score beside it, by position."""
        for name, score in self.scores.items():
            if score.per_turn is not None and len(score.per_turn) != len(self.turns):
                raise PydanticCustomError(
                    "per_turn_mismatch",
                    "scores.{name}.per_turn has {values} value(s) for {turns} turn(s)",
                    {"name": name, "values": len(score.per_turn), "turns": len(self.turns)},
                )
        return self


class RecordedRate(RecordModel):
    """A `stats.Rate` as a run record stores it (the field names of every schema version)."""

    passed: Count
    n: Count
    ci_low: Fraction
    ci_high: Fraction
    text: str

    @model_validator(mode="after")
    def _passed_within_n(self) -> RecordedRate:
        """The chart draws passed / n as a bar height."""
        if self.passed > self.n:
            raise PydanticCustomError(
                "rate_over_n",
                "passed {passed} is more than n {n}",
                {"passed": self.passed, "n": self.n},
            )
        return self

    @classmethod
    def of(cls, rate: Rate) -> RecordedRate:
        return cls(passed=rate.k, n=rate.n, ci_low=rate.low, ci_high=rate.high, text=rate.text)


class CaseAggregate(RecordModel):
    case_id: str
    category: str
    trials: Count
    errors: Count
    rate: RecordedRate
    pass_hat_k: Fraction | None = None
    means: dict[str, float] = {}  # mean value of each mean-gated or report scorer, valid trials
    gate: bool | None = None  # None: no valid trial, no verdict


class GroupAggregate(RecordModel):
    name: str
    trials: Count
    errors: Count
    rate: RecordedRate


class ScorerRule(RecordModel):
    """How a scorer gated a case when the run was scored (`scorers.base.Scorer`): the record's
    aggregates follow from its trials under these rules, so a scorer changed or removed since
    leaves the record as checkable as the day it was written."""

    gate: Gate
    cases: Cases


class DataKept(RecordModel):
    """What a minimal-data run (`--data minimal`, `results/minimal.py`) kept of its trials:
    every prompt, reference, argument value, answer and tool result as a keyed hash (HMAC-SHA256
    cut to 128 bits, `hmac:<32 hex>`) under the key named by `key_id`, every free text as a label
    of at most `label_chars` characters with no secret or personal data the scrubber knows."""

    policy: Literal["minimal"]
    hash: Literal["hmac-sha256/128"]
    key_id: str = Field(pattern=r"^[0-9a-f]{16}$")
    """Names the key without revealing it: two runs' hashes compare only when their ids match."""
    label_chars: int = Field(ge=16, le=1000)


class ModelInfo(RecordModel):
    name: str
    source: str
    reason: str
    caveat: str | None = None
    endpoint: str | None = None


class Interrupted(RecordModel):
    """A run stopped before its end: how many of its planned trials finished (the record holds
    exactly those), and what stopped it. Such a record is never compared as a complete run."""

    planned: Count
    finished: Count
    reason: str

    @model_validator(mode="after")
    def _finished_within_planned(self) -> Interrupted:
        if self.finished >= self.planned:
            raise inconsistent(
                "interrupted: {finished} of {planned} trials finished, so none was cut off",
                finished=self.finished,
                planned=self.planned,
            )
        return self


class ShardInfo(RecordModel):
    """Which shard of a run a record holds (`ops-eval run --shard I/N`): `trials` is exactly
    `shard_slice` of the selected cases and repeats, and so are the record's trials."""

    index: int = Field(ge=1)
    count: int = Field(ge=1)
    trials: list[tuple[str, int]]
    group: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """`--run-group`: the name every shard of the run was given; None: none was."""

    @model_validator(mode="after")
    def _index_within_count(self) -> ShardInfo:
        if self.index > self.count:
            raise inconsistent(
                "shard: index {index} is more than count {count}",
                index=self.index,
                count=self.count,
            )
        return self


def planned(cases: Sequence[str], repeats: int) -> list[tuple[str, int]]:
    """Every trial of a run, in the order the run plans them."""
    return [(case, r) for case in cases for r in range(1, repeats + 1)]


def shard_slice(
    cases: Sequence[str], repeats: int, index: int, count: int
) -> list[tuple[str, int]]:
    """The trials of shard `index`/`count` (1-based index), in plan order: every count-th
    trial of `planned`, computed from its position without listing the others."""
    total = len(cases) * repeats
    return [(cases[p // repeats], p % repeats + 1) for p in range(index - 1, total, count)]
