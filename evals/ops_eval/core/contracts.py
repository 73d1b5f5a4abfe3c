"""Trajectory contracts: what a case (or a whole set) promises beyond its exact expected calls.

A case declares them in `meta.contracts`; a set may declare defaults in `contracts.yaml` beside
it. The eval-set file stays an ADK EvalSet: `adk eval` ignores `meta` and still scores the exact
expected arguments, while `ops-eval` applies the contracts in scorers of their own, beside the
unchanged trajectory gate.

    "contracts": {
      "args": {"get_service_status": {"name": {"match": "normalised"}},
               "save_incident_note": {"note": {"match": "contains", "text": "pool"}}},
      "forbidden": [{"tool": "restart_service"}, {"writes": true},
                    {"tool": "resolve_incident", "args": {"incident_id": "INC-002"}}],
      "order": ["read_before_write"],
      "mode": "SUBSET",
      "budget": {"tool_calls": 6, "model_calls": 8, "tokens": 20000, "seconds": 60},
      "faults": [{"tool": "get_service_status", "kind": "error", "when": "first"}]
    }

This module holds the format only (one source of truth for its shape); the scorers, the fault
injection and the validator rules give it meaning.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from opskit.textfiles import resolved

from ..base.strict import Strict

CONTRACTS_FILE = "contracts.yaml"


class _Strict(Strict):
    model_config = ConfigDict(frozen=True)


class Exact(_Strict):
    """The argument equals the expected value (the default for every argument)."""

    match: Literal["exact"]


class AnyValue(_Strict):
    """Any value, or none at all: the argument is not compared."""

    match: Literal["any"]


class OneOf(_Strict):
    """One of the listed values (each an entity of the argument's kind, or a declared negative)."""

    match: Literal["one_of"]
    values: list[Any] = Field(min_length=1)


class Regex(_Strict):
    """The whole value matches the pattern (`re.fullmatch`)."""

    match: Literal["regex"]
    pattern: str = Field(min_length=1)


class Normalised(_Strict):
    """Equal after the tools' own normalisation (case, whitespace, id format)."""

    match: Literal["normalised"]


class Contains(_Strict):
    """Free text that contains `text`, compared case- and whitespace-insensitively."""

    match: Literal["contains"]
    text: str = Field(min_length=1)


Matcher = Annotated[
    Exact | AnyValue | OneOf | Regex | Normalised | Contains, Field(discriminator="match")
]
ArgMatchers = dict[str, dict[str, Matcher]]
"""tool name -> argument name -> matcher."""


class Forbidden(_Strict):
    """A call that must not happen anywhere in the trajectory: a tool (with these arguments, when
    given; compared with the tools' normalisation), or, with `writes: true`, any write."""

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    writes: bool = False

    @model_validator(mode="after")
    def _one_target(self) -> Forbidden:
        if self.writes == (self.tool is not None):
            raise ValueError("name either a tool or `writes: true`, not both or neither")
        if self.writes and self.args:
            raise ValueError("`writes: true` takes no arguments")
        return self


OrderRule = Literal["read_before_write"]
"""`read_before_write`: no write before a read of the same target (diagnose, then remediate)."""

MatchMode = Literal["EXACT", "IN_ORDER", "ANY_ORDER", "SUBSET", "SUPERSET"]


class Budget(_Strict):
    """Per-turn ceilings; exceeding one fails the trial with the figure."""

    tool_calls: int | None = Field(default=None, gt=0)
    model_calls: int | None = Field(default=None, gt=0)
    tokens: int | None = Field(default=None, gt=0)
    seconds: float | None = Field(default=None, gt=0)


FaultKind = Literal["error", "timeout", "empty"]


class Fault(_Strict):
    """A tool call the harness makes fail at the tool boundary (never by editing the seed)."""

    tool: str
    kind: FaultKind
    when: Literal["first", "every"] = "first"
    args: dict[str, Any] = Field(default_factory=dict)
    """Only calls with these arguments (normalised) fail; empty: every call of the tool."""


class Contracts(_Strict):
    """A case's `meta.contracts`, or a set's `contracts.yaml` (which has no `mode` or `faults`)."""

    args: ArgMatchers = Field(default_factory=dict)
    forbidden: list[Forbidden] = Field(default_factory=list)
    order: list[OrderRule] = Field(default_factory=list)
    mode: MatchMode | None = None
    """A second reading of the trajectory, reported beside the gate (whose mode stays
    `test_config.json`'s)."""
    budget: Budget | None = None
    faults: list[Fault] = Field(default_factory=list)

    def merged_over(self, base: Contracts | None) -> Contracts:
        """These contracts on top of a set's: matchers and budget figures override per key,
        forbidden calls and order rules add up."""
        if base is None:
            return self
        args = {tool: dict(by_arg) for tool, by_arg in base.args.items()}
        for tool, by_arg in self.args.items():
            args.setdefault(tool, {}).update(by_arg)
        budget = None
        if base.budget or self.budget:
            figures = (base.budget.model_dump(exclude_none=True) if base.budget else {}) | (
                self.budget.model_dump(exclude_none=True) if self.budget else {}
            )
            budget = Budget(**figures)
        return Contracts(
            args=args,
            forbidden=[*base.forbidden, *self.forbidden],
            order=list(dict.fromkeys([*base.order, *self.order])),
            mode=self.mode or base.mode,
            budget=budget,
            faults=[*base.faults, *self.faults],
        )


class SetContracts(Contracts):
    """`contracts.yaml` beside an eval set: defaults for every case of the sets in that folder."""

    @field_validator("faults", "mode")
    @classmethod
    def _case_only(cls, value: Any) -> Any:
        if value:
            raise ValueError("is declared per case, not per set")
        return value


class FileError(NamedTuple):
    """One problem of a broken `contracts.yaml`: where in the file (None: the file itself)."""

    field: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def set_contracts_path(set_path: Path) -> Path:
    """`contracts.yaml` beside the set, or -- for an ad-hoc set (one whose folder lacks its own
    criteria or negatives, so falls back to the project's for them) -- the project's, as the
    validator's other context files do (`validation.files.Fallbacks`)."""
    folder = set_path.parent
    own = folder / CONTRACTS_FILE
    if own.exists():
        return own
    from ..base.settings import current

    project = current().evals_dir
    if resolved(folder) == resolved(project):
        return own
    if all((folder / name).exists() for name in ("test_config.json", "negatives.yaml")):
        return own  # a set folder of its own: no contracts.yaml means none
    theirs = project / CONTRACTS_FILE
    return theirs if theirs.is_file() else own


def read_set_contracts(set_path: Path) -> tuple[SetContracts | None, list[FileError]]:
    """(the contracts that apply to the set at `set_path` (`set_contracts_path`), or None without
    the file; each reason the file is broken). Read once per version of the file: every rule of
    every case asks for it."""
    path = set_contracts_path(set_path)
    try:
        stat = path.stat()
    except OSError:
        return None, []
    contracts, errors = _read(str(path), stat.st_mtime_ns, stat.st_size)
    return contracts, list(errors)


@cache
def _read(
    path: str, _mtime_ns: int, _size: int
) -> tuple[SetContracts | None, tuple[FileError, ...]]:
    from opskit.textfiles import YamlFileError, load_yaml

    try:
        return SetContracts.model_validate(load_yaml(Path(path)) or {}), ()
    except YamlFileError as exc:
        return None, (FileError(None, str(exc)),)
    except ValidationError as exc:
        return None, tuple(
            FileError(".".join(str(p) for p in err["loc"]) or None, err["msg"])
            for err in exc.errors()
        )
