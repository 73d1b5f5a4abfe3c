"""A validation problem (file, case, turn, call, field, message) and the report that collects
them. Malformed input (unreadable JSON, a schema ADK rejects) exits 2; any other problem 1.
Warnings (a fallback the validator took) are reported but change no exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..base.exits import one_line

CASE_LABEL_LIMIT = 60  # characters of a case id shown in a problem line


def json_type(value: Any) -> str:
    """A value's JSON type, as a message names it ("an object", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    kinds = {str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    case: str | None = None
    turn: int | None = None
    call: int | None = None
    field: str | None = None
    line: int | None = None
    malformed: bool = False

    def where(self) -> str:
        bits = []
        if self.case:
            case = self.case  # a runaway id must not swamp the line
            if len(case) > CASE_LABEL_LIMIT:
                case = case[:CASE_LABEL_LIMIT] + "…"
            bits.append(f"case {case}")
        if self.turn:
            bits.append(f"turn {self.turn}")
        if self.call:
            bits.append(f"call {self.call}" + (f" {self.field}" if self.field else ""))
        elif self.field:
            bits.append(self.field)
        return ", ".join(bits)

    def render(self) -> str:
        where = self.where()
        return one_line(f"{self.file}: {where + ': ' if where else ''}{self.message}")

    def github(self) -> str:
        line = f",line={self.line}" if self.line else ""
        text = (f"{self.where()}: " if self.where() else "") + self.message
        return one_line(f"::error file={self.file}{line}::{text.replace('%', '%25')}")


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    cases: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def malformed(self) -> bool:
        return any(p.malformed for p in self.problems)

    @property
    def exit_code(self) -> int:
        return 2 if self.malformed else (1 if self.problems else 0)


def render(report: Report, fmt: str = "text") -> list[str]:
    """One line per problem: plain, or as GitHub annotations (`--format github`)."""
    return [p.github() if fmt == "github" else p.render() for p in report.problems]


def render_warnings(report: Report, fmt: str = "text") -> list[str]:
    """One line per warning, for stderr: `warning: ...`, or a GitHub warning annotation."""
    if fmt == "github":
        return [one_line(f"::warning::{w.replace('%', '%25')}") for w in report.warnings]
    return [one_line(f"warning: {w}") for w in report.warnings]
