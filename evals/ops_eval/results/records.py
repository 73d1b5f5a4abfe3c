"""The run record: one schema-versioned JSON file per live run, everything needed to reproduce
and to judge it -- which model and why, hashes of prompt, eval set, seed and tool schema, the git
commit, every trial's turns (calls with their results, responses), scores, timings and tokens,
and the aggregates. Reports, and whatever compares runs, read runs only through `load_record`.

Version 2: a turn's calls carry their results (version 1 kept results in a separate list),
scores say pass, fail or n/a, and the scorer set is recorded. Version 3: a score may also be
`error` (it applies, no verdict: counted as not passing) or `skipped` (it applies, was not run,
saying why: left out like n/a), and `judge` says what the run's LLM judge did. A version 2
record is read as it is (it holds neither). A turn of a run over several servers (`--model
router:FILE`) also says which server answered each of its model calls (`Turn.servers`, one per
model call); any other turn leaves the key out, so a record without it reads as it always did.
Version 4: a trial that ended in a loop says why (`looped`), and a run stopped before its end
(Ctrl-C, SIGTERM) says so (`interrupted`) and holds only the trials that finished; a record
without either key reads as a version 3 record does. A minimal-data run (`--data minimal`) says
what it kept (`data`): its turns hold keyed hashes where text was, its free texts are scrubbed
labels; a record without the key kept everything, as every record did before. Version 5: a
record says how each of its scorers gated (`scoring`), and what it stores of its trials -- the
aggregates, the gate, the exit code, each trial's status -- must be what they make (`follows`);
an older record is read with the figures its trials make under today's rules. Version 6: each
trial names its case's content hash and locked version (`case_sha256`, `case_version`), and the
record how many cases its set held (`eval_set_cases`), so runs of a set that grew compare on the
cases they share (`shared_cases`); an older record names neither and is compared as a whole.

Every field a reader uses is typed, and read strictly (JSON types as written, no coercion):
whatever loads can be reported -- the reports index and format these fields without checking
them again -- and anything else is a RecordError, one line, exit 2.

A record is also checked against itself: its run id is a safe file name and ledger key, its
trials are exactly `selected_cases` x repeats 1..`repeats`, once each, and its case aggregates
name exactly the selected cases, each in its trials' category. A shard's record (`shard`, of
`ops-eval run --shard I/N`) holds exactly its slice of those trials instead, and aggregates of
exactly the cases in it. An interrupted record holds a part of those trials, once each. A run
`ops-eval run` writes always is (`running.record.build_record`); a record edited or put
together by hand may not be: one of version 5 whose figures disagree with its trials is refused.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..base.exits import first_error
from ..core.judge_port import JudgeUse
from .follows import CHECKED_FROM, Disagreement, as_its_trials_make_it
from .record_parts import (
    CaseAggregate,
    Count,
    DataKept,
    Fraction,
    GateCriteria,
    GroupAggregate,
    Interrupted,
    ModelInfo,
    RecordModel,
    ScorerRule,
    Seconds,
    ShardInfo,
    TrialRecord,  # noqa: F401 -- read from here by the gate and the reports
    inconsistent,
    once_each,
    quoted,
    shard_slice,
)
from .shared_cases import HashedTrials

SCHEMA_VERSION = 6  # what this version writes
MIN_SCHEMA_VERSION = 2  # the oldest it reads (version 1 kept results apart from their calls)


class RecordError(ValueError):
    """Anything that keeps a file from being read as a run record -- missing, a folder, not
    UTF-8, not JSON, an unsupported schema version, a field that does not validate. The message
    says why in one line; the CLI shows it after the path, exit 2."""


# A run id becomes a file name and a ledger key: no path separator, no leading dot or dash.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class RunRecord(RecordModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    started_at: str
    seconds: Seconds
    model: ModelInfo
    eval_set: str
    eval_set_sha256: str
    seed_sha256: str
    instruction_sha256: dict[str, str]
    tool_schema_sha256: str
    scorers_sha256: str
    git_commit: str | None
    git_dirty: bool | None
    criteria: GateCriteria
    repeats: int = Field(ge=1)
    concurrency: int = Field(ge=1)
    selected_cases: list[str]
    eval_set_cases: Count | None = Field(default=None, exclude_if=lambda v: v is None)
    """How many cases the set held (version 6): a run of them all is a run of the whole set."""
    trials: HashedTrials  # from version 6, each names its case's hash (`shared_cases`)
    cases: list[CaseAggregate]
    categories: list[GroupAggregate]
    scorers: list[GroupAggregate]
    total: GroupAggregate
    pass_hat_k: Fraction | None = None
    # cases with at least k valid trials, over which pass_hat_k is a mean
    pass_hat_k_cases: Count = 0
    gate_passed: bool
    exit_code: int
    scoring: dict[str, ScorerRule] | None = Field(default=None, exclude_if=lambda v: v is None)
    """How each scorer gated, in `scorers`' order: what the figures follow from (`follows`);
    None (and not written) in a record older than version 5."""
    notes: list[str] = Field(default_factory=list)
    judge: JudgeUse | None = None
    """What the run's judge did (its pin, prompt versions, calls, cache hits, tokens, budget);
    None when the run had no judge configured."""
    shard: ShardInfo | None = Field(default=None, exclude_if=lambda v: v is None)
    """A shard's record holds only its slice of the trials, aggregated as they are; None
    (and not written) for a whole run."""
    merged_from: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    """The run ids of the shard records an `ops-eval merge` record was made of, by index."""
    interrupted: Interrupted | None = Field(default=None, exclude_if=lambda v: v is None)
    """A run stopped before its end holds its finished trials only; None (and not written) for
    a run that played every planned trial."""
    data: DataKept | None = Field(default=None, exclude_if=lambda v: v is None)
    """A minimal-data run's: its trials keep keyed hashes and scrubbed labels, never text; None
    (and not written) for a run that kept everything."""

    @property
    def minimal(self) -> bool:
        """Whether the record keeps hashes and labels only (`--data minimal`)."""
        return self.data is not None

    @property
    def complete(self) -> bool:
        """Whether the record holds every trial its run planned (an interrupted one does not)."""
        return self.interrupted is None

    @field_validator("run_id")
    @classmethod
    def _run_id_is_a_file_name(cls, value: str) -> str:
        if not RUN_ID.fullmatch(value):
            raise PydanticCustomError(
                "run_id",
                "{run_id} is not 1 to 128 letters, digits, '.', '_' or '-' starting with a "
                "letter or digit (a run id is a file name and a ledger key)",
                {"run_id": quoted(value)},
            )
        return value

    @model_validator(mode="after")
    def _trials_and_cases_are_the_selected_cases(self) -> RunRecord:
        """Trials: exactly selected_cases x 1..repeats, once each; case aggregates: exactly the
        selected cases, once each, in their trials' category. Never builds the product, so a
        huge `repeats` costs nothing."""
        once_each("selected_cases", self.selected_cases)
        if self.scoring is None and self.schema_version >= CHECKED_FROM:
            raise inconsistent(
                "scoring: a version {version} record says how each scorer gates; this one does not",
                version=self.schema_version,
            )
        if self.shard is not None:
            return self._a_shard_holds_its_slice(self.shard)
        self._interrupted_after(len(self.selected_cases) * self.repeats)
        selected = set(self.selected_cases)
        keys = Counter((t.case_id, t.repeat) for t in self.trials)
        for (case, repeat), times in keys.items():
            if case not in selected or not 1 <= repeat <= self.repeats:
                raise inconsistent(
                    "trials: case {case} repeat {repeat} is not one of selected_cases x "
                    "repeats 1..{repeats}",
                    case=quoted(case),
                    repeat=repeat,
                    repeats=self.repeats,
                )
            if times > 1:
                raise inconsistent(
                    "trials: case {case} repeat {repeat} appears {times} times",
                    case=quoted(case),
                    repeat=repeat,
                    times=times,
                )
        if self.complete and len(keys) != len(selected) * self.repeats:  # some missing
            missing = next(
                (case, r)
                for case in self.selected_cases
                for r in range(1, self.repeats + 1)
                if (case, r) not in keys
            )
            raise inconsistent(
                "trials: no trial of case {case} repeat {repeat}",
                case=quoted(missing[0]),
                repeat=missing[1],
            )
        once_each("cases", [c.case_id for c in self.cases])
        category = {c.case_id: c.category for c in self.cases}
        for case in category:
            if case not in selected:
                raise inconsistent(
                    "cases: case {case} is not one of selected_cases", case=quoted(case)
                )
        for case in self.selected_cases:
            if case not in category:
                raise inconsistent("cases: no aggregate of selected case {case}", case=quoted(case))
        self._trials_in_their_cases_category(category)
        return self

    def _interrupted_after(self, planned: int) -> None:
        """An interrupted record's counts are its run's: `planned` trials, its own finished."""
        if self.interrupted is None:
            return
        if self.interrupted.planned != planned:
            raise inconsistent(
                "interrupted: planned {said} trials, but its cases and repeats make {planned}",
                said=self.interrupted.planned,
                planned=planned,
            )
        if self.interrupted.finished != len(self.trials):
            raise inconsistent(
                "interrupted: {said} trials finished, but it holds {held}",
                said=self.interrupted.finished,
                held=len(self.trials),
            )

    def _trials_in_their_cases_category(self, category: dict[str, str]) -> None:
        for t in self.trials:
            if t.category != category[t.case_id]:
                raise inconsistent(
                    "trials: case {case} repeat {repeat} has category {mine}, its case "
                    "aggregate has {theirs}",
                    case=quoted(t.case_id),
                    repeat=t.repeat,
                    mine=quoted(t.category),
                    theirs=quoted(category[t.case_id]),
                )

    def _a_shard_holds_its_slice(self, shard: ShardInfo) -> RunRecord:
        """A shard's trials: exactly its slice of selected_cases x 1..repeats, in any order,
        once each; its case aggregates: exactly the cases of those trials."""
        expected = shard_slice(self.selected_cases, self.repeats, shard.index, shard.count)
        if shard.trials != expected:
            raise inconsistent(
                "shard: its trials are not shard {index}/{count} of selected_cases x repeats "
                "1..{repeats}",
                index=shard.index,
                count=shard.count,
                repeats=self.repeats,
            )
        if not expected:
            raise inconsistent(
                "shard: shard {index}/{count} holds no trial", index=shard.index, count=shard.count
            )
        self._interrupted_after(len(expected))
        keys = Counter((t.case_id, t.repeat) for t in self.trials)
        wanted = set(expected)
        for (case, repeat), times in keys.items():
            if (case, repeat) not in wanted or times > 1:
                raise inconsistent(
                    "trials: case {case} repeat {repeat} appears {times} time(s) in shard "
                    "{index}/{count}, which holds it {held}",
                    case=quoted(case),
                    repeat=repeat,
                    times=times,
                    index=shard.index,
                    count=shard.count,
                    held="once" if (case, repeat) in wanted else "never",
                )
        missing = next((key for key in expected if key not in keys), None)
        if missing and self.complete:
            raise inconsistent(
                "trials: no trial of case {case} repeat {repeat} in shard {index}/{count}",
                case=quoted(missing[0]),
                repeat=missing[1],
                index=shard.index,
                count=shard.count,
            )
        once_each("cases", [c.case_id for c in self.cases])
        category = {c.case_id: c.category for c in self.cases}
        present = {case for case, _ in expected}
        if set(category) != present:
            odd = sorted(set(category) ^ present)[0]
            raise inconsistent(
                "cases: case {case} has an aggregate without a trial in the shard, or a trial "
                "without an aggregate",
                case=quoted(odd),
            )
        self._trials_in_their_cases_category(category)
        return self


def load_record(path: Path) -> RunRecord:
    """Read a run record; RecordError (and nothing else) when it cannot be read as one."""
    from opskit.textfiles import TextFileError, read_text

    try:
        text = read_text(path)
        data = json.loads(text)
    except TextFileError as exc:
        raise RecordError(str(exc)) from None
    except RecursionError:
        raise RecordError("not JSON (nested too deeply)") from None
    except ValueError as exc:
        raise RecordError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise RecordError("not a run record (the top level is not an object)")
    if "schema_version" not in data:
        raise RecordError("not a run record (no schema_version)")
    version = data["schema_version"]
    supported = isinstance(version, int) and not isinstance(version, bool)
    if not (supported and MIN_SCHEMA_VERSION <= version <= SCHEMA_VERSION):
        raise RecordError(
            f"schema_version {repr(version)[:40]} is not supported "
            f"(supported: {MIN_SCHEMA_VERSION} to {SCHEMA_VERSION})"
        )
    try:  # from the text, strictly: JSON's own types, no "12.5" read as a number
        record = RunRecord.model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise RecordError(f"not a run record ({first_error(exc)})") from None
    try:
        update = as_its_trials_make_it(record)
    except Disagreement as exc:
        raise RecordError(str(exc)) from None
    return record.model_copy(update=update) if update else record


def write_record(record: RunRecord, path: Path) -> None:
    """Written whole or not at all: to a temporary file beside `path`, then renamed over it, so
    a process stopped mid-write never leaves half a record."""
    import os
    import tempfile

    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(record.model_dump_json(indent=1))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
