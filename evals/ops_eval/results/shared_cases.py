"""Which cases two runs share: the cases each played at the same content hash.

A record of version `HASHED_FROM` or later names, on every trial, its case's content hash
(`core.case_version.case_sha256`: what decides its verdict) and the version the set's lock gives
that content (`core.case_lock.versions`; None when the lock does not hold it). So two runs of a
set that grew, or whose case was corrected, can still be compared -- on the cases they share,
the others named: a case added since the baseline (or not played by it), removed (played by the
baseline only) or changed (played by both at different hashes) is left out of the comparison,
never silently compared. A case edited without a new version still has a new hash: it is named
as changed, "unlocked" beside its hash, so a silent edit cannot pass as the case it replaced.

An older record has no case hashes (`case_versions` is None): it is compared as a whole, as
before. The gate (`deciding.gate`), `ops-eval ab` (`judging.ab`), merge and history read this.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationInfo

from .record_parts import TrialRecord, inconsistent, quoted

HASHED_FROM = 6  # the first schema version whose trials name their case's hash and version
SHORT = 12  # characters of a hash shown beside an unlocked case


class Played(Protocol):
    """What of a run record (`records.RunRecord`, which reads this module) says what it played."""

    schema_version: int
    trials: list[TrialRecord]


Record = TypeVar("Record", bound=BaseModel)


@dataclass(frozen=True, order=True)
class CaseVersion:
    """A case as one run played it: its locked version (None: not in the lock at this content)
    and its content hash."""

    version: int | None
    sha256: str

    def label(self) -> str:
        """`v2`, or `unlocked 1a2b3c4d5e6f` for content the set's lock does not hold."""
        if self.version is not None:
            return f"v{self.version}"
        return f"unlocked {self.sha256[:SHORT]}"


def hashed_trials(trials: list[TrialRecord], info: ValidationInfo) -> list[TrialRecord]:
    """The record's trials, checked (a pydantic after-validator of `RunRecord.trials`): from
    version `HASHED_FROM` on, each names its case's hash, and every trial of a case names the
    same hash and version -- a record is of one version of each case."""
    if info.data.get("schema_version", HASHED_FROM) < HASHED_FROM:
        return trials
    seen: dict[str, CaseVersion] = {}
    for t in trials:
        if t.case_sha256 is None:
            raise inconsistent(
                "trials: case {case} repeat {repeat} names no case_sha256 (a version {version} "
                "record names each trial's case hash)",
                case=quoted(t.case_id),
                repeat=t.repeat,
                version=HASHED_FROM,
            )
        mine = CaseVersion(t.case_version, t.case_sha256)
        if seen.setdefault(t.case_id, mine) != mine:
            raise inconsistent(
                "trials: case {case} is played at two versions in one record ({a}, {b})",
                case=quoted(t.case_id),
                a=seen[t.case_id].label(),
                b=mine.label(),
            )
    return trials


HashedTrials = Annotated[list[TrialRecord], AfterValidator(hashed_trials)]
"""A record's trials, as `RunRecord.trials` reads them."""


def case_versions(record: Played) -> dict[str, CaseVersion] | None:
    """case id -> the version the record played, in the record's trial order; None for a
    record older than `HASHED_FROM` (no case hashes: compared as a whole)."""
    if record.schema_version < HASHED_FROM:
        return None
    return {
        t.case_id: CaseVersion(t.case_version, t.case_sha256)
        for t in record.trials
        if t.case_sha256 is not None
    }


def _labels(items: Iterable[tuple[str, CaseVersion]]) -> str:
    return ", ".join(f"{case} {v.label()}" for case, v in items)


def _pair(before: CaseVersion, after: CaseVersion) -> str:
    """`v1 -> v2`; with the hashes when the labels alone would not tell them apart."""
    if before.label() != after.label():
        return f"{before.label()} -> {after.label()}"
    return f"{before.label()} ({before.sha256[:SHORT]}) -> {after.label()} ({after.sha256[:SHORT]})"


@dataclass(frozen=True)
class Shared:
    """The cases two runs share at the same hash, and the ones left out, each named."""

    shared: list[str]  # in the candidate's order
    added: list[tuple[str, CaseVersion]] = field(default_factory=list)
    removed: list[tuple[str, CaseVersion]] = field(default_factory=list)
    changed: list[tuple[str, CaseVersion, CaseVersion]] = field(default_factory=list)

    @property
    def left_out(self) -> int:
        return len(self.added) + len(self.removed) + len(self.changed)

    def lines(self) -> list[str]:
        """`added: new-case v1`, `changed: status v1 -> v2`, `removed: ...`; [] when none."""
        lines = [f"added: {_labels(self.added)}"] if self.added else []
        if self.changed:
            lines.append(f"changed: {', '.join(self.lines_of('changed'))}")
        if self.removed:
            lines.append(f"removed: {_labels(self.removed)}")
        return lines

    def lines_of(self, kind: str) -> list[str]:
        """One `case version` per case of `kind` (added, removed; changed: `case v1 -> v2`)."""
        if kind == "changed":
            return [f"{c} {_pair(b, a)}" for c, b, a in self.changed]
        return [f"{c} {v.label()}" for c, v in getattr(self, kind)]

    def summary(self) -> str:
        """`over 25 shared cases (1 added, left out: new-case v1)`: what a verdict is over."""
        noun = "case" if len(self.shared) == 1 else "cases"
        head = f"over {len(self.shared)} shared {noun}"
        if not self.left_out:
            return head
        kinds = (("added", self.added), ("changed", self.changed), ("removed", self.removed))
        counts = [f"{len(items)} {word}" for word, items in kinds if items]
        named = [(c, v) for c, v in self.added] + [(c, a) for c, _, a in self.changed]
        named += self.removed
        return f"{head} ({', '.join(counts)}, left out: {_labels(named)})"

    def as_dict(self) -> dict[str, Any]:
        def one(v: CaseVersion) -> dict[str, Any]:
            return {"version": v.version, "sha256": v.sha256}

        return {
            "shared": self.shared,
            "added": [{"case": c, **one(v)} for c, v in self.added],
            "removed": [{"case": c, **one(v)} for c, v in self.removed],
            "changed": [
                {"case": c, "baseline": one(b), "candidate": one(a)} for c, b, a in self.changed
            ],
        }


def shared_cases(baseline: Played, candidate: Played) -> Shared | None:
    """What the two runs share, case by case; None when either is older than `HASHED_FROM`
    (compared as a whole, as before)."""
    before, after = case_versions(baseline), case_versions(candidate)
    if before is None or after is None:
        return None
    return Shared(
        shared=[c for c, v in after.items() if before.get(c) == v],
        added=[(c, v) for c, v in after.items() if c not in before],
        removed=[(c, v) for c, v in before.items() if c not in after],
        changed=[(c, before[c], v) for c, v in after.items() if c in before and before[c] != v],
    )


def restricted(record: Record, cases: Iterable[str]) -> Record:
    """The record with only the trials and case aggregates of `cases` (for a comparison: not
    validated again, never written)."""
    keep = set(cases)
    data: Any = record
    return record.model_copy(
        update={
            "trials": [t for t in data.trials if t.case_id in keep],
            "cases": [c for c in data.cases if c.case_id in keep],
            "selected_cases": [c for c in data.selected_cases if c in keep],
        }
    )
