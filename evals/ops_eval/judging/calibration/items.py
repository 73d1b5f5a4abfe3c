"""The calibration set: answers about the seed, each labelled pass or fail by hand (by this
project's engineer -- an AI agent working as its engineer, not an independent human rater; see
the set's header), that the judge is measured against (`evals/calibration/set.yaml`, the
project's calibration set: the only one whose reports can certify a judge, `reports.standing`).

Read once and refused precisely -- the file, the item and the field -- because a calibration is
only as good as its labels: a duplicate would count one judgement twice (the same id, or the
same question and answer under two ids -- compared after collapsing whitespace, so a re-wrapped
copy is still a copy), an unknown kind would hide what the mix is, and a kind that contradicts
its label (a `wrong` answer labelled pass) is a labelling slip the report would otherwise
present as the judge's error.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from ...base.exits import EXIT_BAD_INPUT, OpsEvalError, first_error, one_line
from ...base.strict import Strict

SET_FILE = "set.yaml"
MIN_ITEMS = 40
"""Fewer items than this certify nothing: the 95% interval of the agreement is then wider than
about +-0.11 even at 0.85, too wide to tell a judge that meets the target from one that does
not. A smaller set still runs (a quick look, a test) but its report says it certifies nothing."""

Label = Literal["pass", "fail"]
Kind = Literal[
    "correct", "terse_correct", "verbose_correct", "wrong", "unsupported", "verbose_wrong"
]
PASSING_KINDS = frozenset({"correct", "terse_correct", "verbose_correct"})
"""The kinds whose answers are right; the others (wrong, unsupported, verbose_wrong) fail."""

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
ItemId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,79}$")]


class CalibrationItem(Strict):
    """One labelled answer."""

    model_config = ConfigDict(frozen=True, strict=True)

    id: ItemId
    kind: Kind
    """What sort of answer it is (the set's mix; see the file's header)."""
    label: Label
    """The label given by hand (see the set's header for by whom): what the judge should say."""
    question: Text
    answer: Text
    """The response the judge grades."""
    rubric: Text
    """What a passing answer must do."""
    reference: Text
    """The true facts, from the seed."""
    why: Text
    """The label's reason, citing the seed file that decides it."""

    @property
    def labelled_pass(self) -> bool:
        return self.label == "pass"

    @property
    def length(self) -> int:
        """The answer's length in characters: the verbosity-bias figure's x."""
        return len(self.answer)


class CalibrationSet(Strict):
    """The file as read, with where it came from and its sha256 (what a report is tied to)."""

    model_config = ConfigDict(frozen=True)

    path: Path
    sha256: str
    items: list[CalibrationItem] = Field(min_length=1)

    @property
    def passes(self) -> int:
        return sum(item.labelled_pass for item in self.items)

    @property
    def fails(self) -> int:
        return len(self.items) - self.passes

    @property
    def one_class(self) -> Label | None:
        """The one label every item has, or None when both occur."""
        labels = {item.label for item in self.items}
        return next(iter(labels)) if len(labels) == 1 else None


def default_set_path() -> Path:
    from ...base.settings import current

    return current().evals_dir / "calibration" / SET_FILE


def _bad(path: Path, message: str) -> OpsEvalError:
    return OpsEvalError(EXIT_BAD_INPUT, one_line(f"{path}: {message}"))


def _same_text(text: str) -> str:
    """`text` with every run of whitespace one space: what makes two items the same answer."""
    return " ".join(text.split())


def load_set(path: Path) -> CalibrationSet:
    """The set at `path`; OpsEvalError (exit 2) naming the file, the item and the field of the
    first problem: unreadable or not YAML, no `items` list, an item that does not validate, an
    id used twice, the same question and answer under two ids (both named), a kind that
    contradicts its label."""
    from opskit.textfiles import TextFileError, load_yaml, read_bytes

    try:
        raw = read_bytes(path)
        data = load_yaml(path)
    except TextFileError as exc:
        raise _bad(path, str(exc)) from None
    if not isinstance(data, dict):
        raise _bad(path, "not a mapping with `version` and `items`")
    if "schema_version" in data and "trials" in data:  # a run record given as the set
        if isinstance(data.get("data"), dict):
            raise _bad(
                path,
                "a minimal-data run record (keyed hashes and labels, no text): calibration "
                "grades the text of answers labelled by hand, which it does not keep",
            )
        raise _bad(path, "a run record, not a calibration set: its answers carry no hand label")
    unknown = sorted(set(map(str, data)) - {"version", "items"})
    if unknown:
        raise _bad(path, f"unknown key(s) {', '.join(unknown)}: expected version and items")
    if data.get("version") != 1:
        raise _bad(path, f"version: expected 1, got {data.get('version')!r}")
    entries = data.get("items")
    if not isinstance(entries, list) or not entries:
        raise _bad(path, "items: expected a non-empty list of labelled answers")
    items: list[CalibrationItem] = []
    seen: dict[str, int] = {}
    asked: dict[tuple[str, str], str] = {}
    for index, entry in enumerate(entries):
        name = entry.get("id") if isinstance(entry, dict) else None
        where = f"item {name!r}" if isinstance(name, str) and name else f"items[{index}]"
        try:
            item = CalibrationItem.model_validate(entry)
        except ValidationError as exc:
            raise _bad(path, f"{where}: {first_error(exc)}") from None
        if item.id in seen:
            raise _bad(
                path,
                f"items[{index}]: id {item.id!r} used twice (also items[{seen[item.id]}], id "
                f"{item.id!r}): one judgement would count twice",
            )
        seen[item.id] = index
        same = (_same_text(item.question), _same_text(item.answer))
        if same in asked:
            raise _bad(
                path,
                f"{where}: the same question and answer as item {asked[same]!r} (whitespace "
                "aside): one judgement would count twice",
            )
        asked[same] = item.id
        if (item.kind in PASSING_KINDS) != item.labelled_pass:
            raise _bad(
                path,
                f"{where}: label: {item.label!r} contradicts kind {item.kind!r} (correct kinds "
                "pass; wrong, unsupported and verbose_wrong fail)",
            )
        items.append(item)
    return CalibrationSet(path=path, sha256=hashlib.sha256(raw).hexdigest(), items=items)
