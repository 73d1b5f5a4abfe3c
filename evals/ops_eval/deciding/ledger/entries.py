"""What the gate ledger holds, one pydantic model per kind of line: a gate run's verdict, a
pinned baseline, an override. `chain` chains and stores them; these say what a line must
hold to be read back at all (a real UTC time, hashes that are hashes, a verdict that agrees
with its failures)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Literal, TypeVar

from pydantic import (
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ...agents.ops_world import (
    APPROVER_MAX_CHARS,
    RATIONALE_MAX_CHARS,
    normalise_text,
    rationale_problem,
    visible_chars,
)
from ...base.strict import Strict

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Verdict = Literal["regressed", "inconclusive_noise", "improved", "pass"]
"""A comparison's verdict (`compare.decide`)."""
PIN_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
"""A pin's name: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit."""
# Where a pin's copy may be: a record file directly under the ledger's `baselines/` folder.
_PINNED_PATH = re.compile(r"^baselines/[A-Za-z0-9][A-Za-z0-9._-]*\.json$")


def utc_now() -> str:
    """Now, as ISO-8601 in UTC to the second: what `at` holds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class _Entry(Strict):
    model_config = ConfigDict(frozen=True)

    at: str = Field(default_factory=utc_now)

    @field_validator("at")
    @classmethod
    def _utc_time(cls, value: str) -> str:
        """`at` orders nothing (the file's order does), but a human reads it: a real UTC time."""
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value[:40]!r} is not an ISO-8601 time") from None
        if parsed.utcoffset() is None or parsed.utcoffset().total_seconds() != 0:
            raise ValueError(f"{value[:40]!r} is not in UTC")
        return value


class _Decided(_Entry):
    """What decided a verdict: the candidate and baseline (by id and by the sha256 of their
    files), the effective policy (the sha256 of `GateConfig` as applied, flags included) and the
    changes allowed. An override binds to all of them: it accepts one decision, not whatever a
    later file, policy or flag makes of the same run ids."""

    candidate: str = Field(min_length=1)
    candidate_sha256: Sha256
    baseline: str | None
    baseline_sha256: Sha256 | None
    policy_sha256: Sha256
    allowed: list[str] = []

    @property
    def inputs(self) -> tuple[object, ...]:
        return tuple(
            tuple(sorted(self.allowed)) if name == "allowed" else getattr(self, name)
            for name in DECIDED_FIELDS
        )


DECIDED_FIELDS = tuple(name for name in _Decided.model_fields if name not in _Entry.model_fields)


class VerdictEntry(_Decided):
    """One gate run: what decided it (`_Decided`), the comparison's verdict, whether the gate
    passed (exit 0) and, when it did not, why."""

    kind: Literal["verdict"] = "verdict"
    verdict: Verdict
    passed: bool
    failures: list[str] = []

    @field_validator("failures")
    @classmethod
    def _said(cls, failures: list[str]) -> list[str]:
        if any(not f.strip() for f in failures):
            raise ValueError("holds an empty reason")
        return failures

    @model_validator(mode="after")
    def _consistent(self) -> VerdictEntry:
        """A baseline is named by id and hash together; a gate fails for a reason, and passes
        with none -- a failed verdict nobody can explain cannot be overridden knowingly."""
        if (self.baseline is None) != (self.baseline_sha256 is None):
            raise ValueError("baseline and baseline_sha256 are given together or not at all")
        if self.passed == bool(self.failures):
            raise ValueError(
                "failures lists why the gate failed: empty when it passed, not when it failed"
            )
        return self


class PinEntry(_Entry):
    """A run pinned as a named baseline: `path` (relative to the ledger's folder) is a byte-for-
    byte copy of its record, `sha256` its hash, so a later change of the copy is caught."""

    kind: Literal["pin"] = "pin"
    name: str = Field(pattern=f"^{PIN_NAME}$")
    run: str = Field(min_length=1)
    sha256: Sha256
    path: str
    by: str | None = None

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        """A pin points into the ledger's `baselines/` folder, never elsewhere on the disk."""
        if not _PINNED_PATH.fullmatch(value) or ".." in value:
            raise ValueError(f"{value[:80]!r} is not a file under baselines/")
        return value


def name_problem(name: str) -> str | None:
    """Why `name`, already normalised (`normalise_text`), cannot say who did it: the bar of an
    approver's name in the audit log. None when it can."""
    if not name or not visible_chars(name):
        return "names nobody (no visible characters)"
    if not name.isprintable():
        return "holds characters that do not print"
    if len(name) > APPROVER_MAX_CHARS:
        return f"{len(name)} characters; at most {APPROVER_MAX_CHARS}"
    return None


def reason_problem(reason: str) -> str | None:
    """Why `reason`, already normalised, does not say why: the bar of an approval's rationale
    (at least 10 visible characters, 3 of them letters or digits; at most 500). None when it
    does."""
    problem = rationale_problem(reason)
    if problem:
        return problem
    if len(reason) > RATIONALE_MAX_CHARS:
        return f"{len(reason)} characters; at most {RATIONALE_MAX_CHARS}"
    if not reason.isprintable():
        return "holds characters that do not print"
    return None


class OverrideEntry(_Decided):
    """A human accepted a failed verdict: the decision it accepts (`_Decided`), the verdict and
    failures as recorded, who and why. The gate shows it as the effective verdict of a later run
    of the same decision -- never of one that fails for a reason it did not accept."""

    kind: Literal["override"] = "override"
    verdict: str
    failures: list[str]
    by: str = Field(min_length=1)
    reason: str = Field(min_length=1)

    @field_validator("by", "reason")
    @classmethod
    def _as_the_cli_takes_them(cls, value: str, info: ValidationInfo) -> str:
        """Read back under the rules `gate override` writes by: a line appended by hand with a
        one-letter reason or an invisible name is refused, not shown as an accepted override."""
        if normalise_text(value) != value:
            raise ValueError("not in normal form (NFKC, invisible characters dropped)")
        problem = (name_problem if info.field_name == "by" else reason_problem)(value)
        if problem:
            raise ValueError(problem)
        return value

    def covers(self, verdict: VerdictEntry) -> bool:
        """Whether this override accepts `verdict`: the same decision, no new failure."""
        return verdict.inputs == self.inputs and set(verdict.failures) <= set(self.failures)


Entry = Annotated[VerdictEntry | PinEntry | OverrideEntry, Field(discriminator="kind")]
ENTRY_ADAPTER: TypeAdapter[VerdictEntry | PinEntry | OverrideEntry] = TypeAdapter(Entry)
E = TypeVar("E", VerdictEntry, PinEntry, OverrideEntry)
AnyEntry = VerdictEntry | PinEntry | OverrideEntry


# --- lookups over a list of entries, and the rules between entries -------------------------


def latest_verdict(
    entries: Sequence[AnyEntry], run_id: str, baseline: str | None | object = ...
) -> VerdictEntry | None:
    """The last verdict recorded for `run_id` as candidate; against `baseline` only when given
    (None: against no baseline; leave it out: against any)."""
    for entry in reversed(entries):
        if (
            isinstance(entry, VerdictEntry)
            and entry.candidate == run_id
            and (baseline is ... or entry.baseline == baseline)
        ):
            return entry
    return None


def find_override(entries: Sequence[AnyEntry], verdict: VerdictEntry) -> OverrideEntry | None:
    """The latest override that accepts `verdict` (`OverrideEntry.covers`), if any."""
    for entry in reversed(entries):
        if isinstance(entry, OverrideEntry) and entry.covers(verdict):
            return entry
    return None


def pins(entries: Sequence[AnyEntry]) -> dict[str, PinEntry]:
    """Name -> its latest pin (a re-pin wins), in the order the names were first pinned."""
    found: dict[str, PinEntry] = {}
    for entry in entries:
        if isinstance(entry, PinEntry):
            found[entry.name] = entry
    return found


def unaccepted(before: Sequence[AnyEntry], override: OverrideEntry) -> str | None:
    """Why `override` could not have been appended after the entries `before` it, by the rules
    `gate override` appends by (`overrides.record_override`); None when it could. It must accept
    the latest verdict of its run, as recorded, which failed and no earlier override covers."""
    verdict = latest_verdict(before, override.candidate)
    if verdict is None:
        return "no gate verdict of its run comes before it"
    if verdict.passed:
        return f"the latest verdict of run {override.candidate} before it passed"
    if find_override(before, verdict) is not None:
        return "that verdict was already overridden (an override is recorded once)"
    recorded = (verdict.inputs, verdict.verdict, verdict.failures)
    if recorded != (override.inputs, override.verdict, override.failures):
        return f"it does not accept the latest verdict of run {override.candidate} as recorded"
    return None


def broken_rule(entries: Sequence[AnyEntry]) -> tuple[int, str] | None:
    """(index, why) of the first entry that breaks a rule between entries -- an override that
    `gate override` would have refused where it stands -- or None. A ledger is read through
    this, so a hand-appended second override, or one before any failed verdict, is refused."""
    for index, entry in enumerate(entries):
        if isinstance(entry, OverrideEntry):
            why = unaccepted(entries[:index], entry)
            if why:
                return index, f"an override that `gate override` would refuse: {why}"
    return None
