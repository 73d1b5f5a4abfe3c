"""The rows of `ops-eval history`: one per run record, oldest first, each compared with the
previous run of its series (`run_index.series`: one eval set file with one model).

A row holds the run's identity (id, start, eval set, model, commit), its pass rate over valid
trials with the 95% Wilson interval the record stored (errors counted apart), the mean
trajectory score, pass^k when the run had repeats, its tokens and wall time, and what changed
since the previous run of the same series. Only within a series is "the rate moved" a statement
about the agent and not about a different question or model; what changed (`gate.changes`) says
whether the question itself moved (seed, cases, criteria, ...) between the two runs, and, for
two runs that name their cases' hashes (record version 6), how the set grew: each case added,
removed or changed since, with its version (`results.shared_cases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...deciding.gate.changes import Change
    from ...results.record_parts import RecordedRate
    from ...results.records import RunRecord
    from ...results.shared_cases import Shared

EVALSET_SUFFIX = ".evalset.json"
TRAJECTORY = "trajectory"
FIRST_RUN = "first run"


@dataclass(frozen=True)
class Conversations:
    """The scenarios of a run: how many conversations, their turns (each a user message and the
    agent's answer to it), and how many each side or limit ended."""

    count: int
    turns: int
    ended_by: dict[str, int]

    @property
    def ended_text(self) -> str:
        """`user:10;turn-limit:1`, most first."""
        ranked = sorted(self.ended_by.items(), key=lambda item: (-item[1], item[0]))
        return ";".join(f"{by}:{n}" for by, n in ranked)


def conversations(record: RunRecord) -> Conversations | None:
    played = [t for t in record.trials if t.conversation is not None]
    if not played:
        return None
    ended: dict[str, int] = {}
    for t in played:
        assert t.conversation is not None
        ended[t.conversation.ended_by] = ended.get(t.conversation.ended_by, 0) + 1
    return Conversations(len(played), sum(len(t.turns) for t in played), ended)


@dataclass(frozen=True)
class HistoryRow:
    """One run record as the history shows it."""

    file: str
    series: tuple[str, str]  # `run_index.series`: (the eval set's file name, the model)
    run_id: str
    started_at: str
    eval_set: str
    model: str
    git_commit: str | None
    rate: RecordedRate  # all trials: passed / valid trials, with the record's Wilson interval
    errors: int
    trajectory_mean: float | None
    repeats: int
    pass_hat_k: float | None
    pass_hat_k_cases: int | None
    prompt_tokens: int
    output_tokens: int
    seconds: float
    previous_run: str | None  # the run before this one in its series; None: the first
    changed: tuple[Change, ...] | None  # since `previous_run`; None: nothing to compare with
    interrupted: str | None = None
    """`interrupted after N of M trials (why)` for a run stopped before its end: its rate is
    over the trials that finished; None for a run that played them all."""
    conversations: Conversations | None = None
    """A run of conversation scenarios: how many, their turns, who ended them; None for a run
    of scripted cases only."""
    data: str = "full"
    """What the run kept: `full`, or `minimal` (keyed hashes and labels, `--data minimal`)."""
    cases: Shared | None = None
    """The cases added, removed or changed since `previous_run`, each with its version; None
    for a first run, or when either run names no case hashes."""

    @property
    def cases_text(self) -> str:
        """`added: new-case v1; changed: status v1 -> v2`, or "" when no case moved."""
        return "; ".join(self.cases.lines()) if self.cases else ""

    @property
    def fraction(self) -> float | None:
        return self.rate.passed / self.rate.n if self.rate.n else None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    @property
    def changed_text(self) -> str:
        """`first run`, the changed kinds joined with `;`, or "" when nothing changed."""
        if self.changed is None:
            return FIRST_RUN
        return ";".join(c.name for c in self.changed)


def trajectory_mean(record: RunRecord) -> float | None:
    """Mean trajectory score over valid trials whose trajectory score counts (not n/a or
    skipped) and has a value; None when no trial has one (an errored trial is counted apart,
    never as a 0)."""
    values = [
        score.value
        for t in record.trials
        if t.status != "error"
        and (score := t.scores.get(TRAJECTORY)) is not None
        and score.counted
        and score.value is not None
    ]
    return sum(values) / len(values) if values else None


def interrupted_text(record: RunRecord) -> str | None:
    """How a run stopped before its end is shown: `interrupted after 2 of 25 trials (why)`."""
    stopped = record.interrupted
    if stopped is None:
        return None
    return f"interrupted after {stopped.finished} of {stopped.planned} trials ({stopped.reason})"


def history_rows(records: Sequence[tuple[Path, RunRecord]]) -> list[HistoryRow]:
    """A row per record, in the order given (oldest first), each compared with the previous
    record of its series among all of `records` -- so filter the rows, never the records."""
    from ...deciding.gate.changes import changes
    from ...results.run_index import series
    from ...results.shared_cases import shared_cases

    last: dict[tuple[str, str], RunRecord] = {}
    rows = []
    for path, record in records:
        key = series(record)
        previous = last.get(key)
        last[key] = record
        turns = [turn for t in record.trials for turn in t.turns]
        has_hat = record.pass_hat_k is not None
        rows.append(
            HistoryRow(
                file=path.name,
                series=key,
                run_id=record.run_id,
                started_at=record.started_at,
                eval_set=record.eval_set,
                model=record.model.name,
                git_commit=record.git_commit,
                rate=record.total.rate,
                errors=record.total.errors,
                trajectory_mean=trajectory_mean(record),
                repeats=record.repeats,
                pass_hat_k=record.pass_hat_k,
                pass_hat_k_cases=record.pass_hat_k_cases if has_hat else None,
                prompt_tokens=sum(turn.prompt_tokens for turn in turns),
                output_tokens=sum(turn.output_tokens for turn in turns),
                seconds=record.seconds,
                previous_run=previous.run_id if previous else None,
                changed=tuple(changes(previous, record)) if previous else None,
                interrupted=interrupted_text(record),
                conversations=conversations(record),
                data="minimal" if record.minimal else "full",
                cases=shared_cases(previous, record) if previous else None,
            )
        )
    return rows


def set_matches(eval_set: str, wanted: str) -> bool:
    """`--set`: the record's eval set path ends with `wanted`, whole path components (so `ops`
    is not `myops`), or its file name without `.evalset.json` is `wanted`."""
    path, asked = PurePosixPath(eval_set), PurePosixPath(wanted)
    if asked.parts and path.parts[-len(asked.parts) :] == asked.parts:
        return True
    return path.name.endswith(EVALSET_SUFFIX) and path.name[: -len(EVALSET_SUFFIX)] == wanted


def select(rows: Sequence[HistoryRow], eval_set: str | None, model: str | None) -> list[HistoryRow]:
    """The rows `--set` and `--model` keep, from rows built over every record: a filter never
    changes which run is a row's previous one. `--model` keeps whole series (the model is part of
    the key); `--set` by a path may keep part of one -- runs of the same file started from
    another folder -- and a kept row's previous run may then be one it does not show."""
    return [
        row
        for row in rows
        if (eval_set is None or set_matches(row.eval_set, eval_set))
        and (model is None or row.model == model)
    ]
