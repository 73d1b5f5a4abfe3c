"""The labelled set of real answers: trials of live runs kept whole (`answers.jsonl`), and what a
person decided about each (`answers.yaml`, whose header holds the labelling rules and the split).

Two files because they are two kinds of thing: a trial is evidence copied from a run record as
it was played -- prompts, calls with their results, approvals, answers -- and is never edited;
a label is a judgement, given by hand under written rules, with its reason. Every trial has
exactly one label entry and every label names a trial; anything else is refused, precisely
(file, item, field), because a measurement is only as good as its labels.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ...base.exits import EXIT_BAD_INPUT, OpsEvalError, first_error, one_line
from ...base.strict import Strict
from ...core.calls import Turn
from ...core.trial import Conversation

TRIALS_FILE = "answers.jsonl"
LABELS_FILE = "answers.yaml"

Verdict = Literal["pass", "fail"]
Optional = Literal["pass", "fail", "n/a"]
GuardLabel = Literal["clean", "flag"]
Split = Literal["tune", "held-out"]
ItemId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._#-]{0,159}$")]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def split_of(case_id: str) -> Split:
    """The half a case falls in (the set's header): decided by its id alone, before labelling."""
    return (
        "tune"
        if int(hashlib.sha256(case_id.encode()).hexdigest()[0], 16) % 2 == 0
        else ("held-out")
    )


class Source(Strict):
    """Where a trial came from."""

    model_config = ConfigDict(frozen=True)

    tag: Text
    """The collector's short name for the run it came from (`--tag`)."""
    run: Text
    """The run record's run id."""
    model: Text
    """The model as the run record names it (a GGUF's name carries its sha256)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """The sampling temperature the run was made with, as the collector declared it."""
    repeat: int = Field(ge=1)
    user: Literal["scripted", "model"] | None = None
    """Who played a scenario's user; None for a scripted case."""
    git_commit: str | None = None


class AnswerTrial(Strict):
    """One trial of a live run, as played (a line of `answers.jsonl`)."""

    model_config = ConfigDict(frozen=True)

    id: ItemId
    set: Text
    """The eval set file's name (`ops.evalset.json`), in the evals folder."""
    case: Text
    source: Source
    turns: list[Turn] = Field(min_length=1)
    conversation: Conversation | None = None

    @property
    def answers(self) -> list[str]:
        """The model's own words at the end of each turn it answered itself (the approval
        pause's text is the harness's, and is no answer)."""
        return [t.answer for t in self.turns if not t.response_synthesized]

    def same_as(self) -> tuple[str, str, tuple[str, ...]]:
        """What makes two trials one answer: the case and every answer, whitespace aside."""
        return self.set, self.case, tuple(" ".join(a.split()) for a in self.answers)


class Labels(Strict):
    """What a person decided about one trial (an entry of `answers.yaml`; the rules are in the
    file's header)."""

    model_config = ConfigDict(frozen=True)

    id: ItemId
    complete: Verdict
    facts: Optional
    grounded: Optional
    guard: list[GuardLabel] = Field(min_length=1)
    """One per turn the agent answered itself, in order."""
    checks: dict[Literal["contains", "not_contains"], Verdict] = {}
    """Per kind of response check the case declares: does the answer do what they mean?"""
    why: Text


class LabelledSet(Strict):
    """Both files, read and matched; `sha256` covers both (what a report is tied to)."""

    model_config = ConfigDict(frozen=True)

    folder: Path
    sha256: str
    trials: list[AnswerTrial]
    labels: dict[str, Labels]

    def split(self, trial: AnswerTrial) -> Split:
        return split_of(trial.case)


def default_folder() -> Path:
    from ...base.settings import current

    return current().evals_dir / "calibration"


def _bad(path: Path, message: str) -> OpsEvalError:
    return OpsEvalError(EXIT_BAD_INPUT, one_line(f"{path}: {message}"))


def read_trials(path: Path) -> list[AnswerTrial]:
    """Every trial of `path` (JSON lines); the line and field of the first that is not one, an
    id used twice, or the same answers to one case twice (identical answers count once)."""
    from opskit.textfiles import TextFileError, read_text

    try:
        text = read_text(path) if path.exists() else ""
    except TextFileError as exc:
        raise _bad(path, str(exc)) from None
    trials: list[AnswerTrial] = []
    ids: dict[str, int] = {}
    same: dict[tuple[str, str, tuple[str, ...]], str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            trial = AnswerTrial.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise _bad(path, f"line {number}: not JSON ({exc.msg})") from None
        except ValidationError as exc:
            raise _bad(path, f"line {number}: {first_error(exc)}") from None
        if trial.id in ids:
            raise _bad(
                path, f"line {number}: id {trial.id!r} used twice (also line {ids[trial.id]})"
            )
        if (key := trial.same_as()) in same:
            raise _bad(
                path,
                f"line {number}: {trial.id!r} has the same answers to {trial.case} as "
                f"{same[key]!r}: identical answers count once",
            )
        ids[trial.id], same[key] = number, trial.id
        trials.append(trial)
    return trials


def read_labels(path: Path) -> dict[str, Labels]:
    """The label entries of `path` by id; the entry and field of the first problem."""
    from opskit.textfiles import TextFileError, load_yaml

    try:
        data = load_yaml(path)
    except TextFileError as exc:
        raise _bad(path, str(exc)) from None
    if not isinstance(data, dict) or data.get("version") != 1:
        raise _bad(path, "expected a mapping with `version: 1` and `labels`")
    if unknown := sorted(set(map(str, data)) - {"version", "labels"}):
        raise _bad(path, f"unknown key(s) {', '.join(unknown)}: expected version and labels")
    entries = data.get("labels")
    if not isinstance(entries, list):
        raise _bad(path, "labels: expected a list")
    found: dict[str, Labels] = {}
    for index, entry in enumerate(entries):
        name = entry.get("id") if isinstance(entry, dict) else None
        where = f"label {name!r}" if isinstance(name, str) else f"labels[{index}]"
        try:
            labels = Labels.model_validate(entry)
        except ValidationError as exc:
            raise _bad(path, f"{where}: {first_error(exc)}") from None
        if labels.id in found:
            raise _bad(path, f"{where}: id used twice: one judgement would count twice")
        found[labels.id] = labels
    return found


def load_labelled(folder: Path | None = None) -> LabelledSet:
    """Both files of `folder` (default: the project's `evals/calibration`), matched: every
    trial labelled, every label a trial's, a guard label for each answer. OpsEvalError (exit 2)
    naming the file and the item otherwise."""
    from opskit.textfiles import read_bytes

    folder = folder or default_folder()
    trials_path, labels_path = folder / TRIALS_FILE, folder / LABELS_FILE
    trials, labels = read_trials(trials_path), read_labels(labels_path)
    known = {t.id for t in trials}
    for trial in trials:
        entry = labels.get(trial.id)
        if entry is None:
            raise _bad(labels_path, f"trial {trial.id!r} of {trials_path.name} has no label entry")
        if len(entry.guard) != len(trial.answers):
            raise _bad(
                labels_path,
                f"label {trial.id!r}: guard: {len(entry.guard)} label(s) for "
                f"{len(trial.answers)} answer(s) the agent gave",
            )
    if stray := sorted(set(labels) - known):
        raise _bad(labels_path, f"label {stray[0]!r} names no trial of {trials_path.name}")
    digest = hashlib.sha256()
    for path in (trials_path, labels_path):
        digest.update(read_bytes(path) if path.exists() else b"")
    return LabelledSet(folder=folder, sha256=digest.hexdigest(), trials=trials, labels=labels)
