"""A validation problem (file, case, turn, call, field, message) and the report that collects
them. Malformed input (unreadable JSON, a schema ADK rejects) exits 2; any other problem 1."""

from __future__ import annotations

from dataclasses import dataclass, field


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
            bits.append(f"case {self.case}")
        if self.turn:
            bits.append(f"turn {self.turn}")
        if self.call:
            bits.append(f"call {self.call}" + (f" {self.field}" if self.field else ""))
        elif self.field:
            bits.append(self.field)
        return ", ".join(bits)

    def render(self) -> str:
        where = self.where()
        return f"{self.file}: {where + ': ' if where else ''}{self.message}"

    def github(self) -> str:
        line = f",line={self.line}" if self.line else ""
        text = (f"{self.where()}: " if self.where() else "") + self.message
        return f"::error file={self.file}{line}::{text.replace('%', '%25').replace(chr(10), ' ')}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    cases: int = 0

    @property
    def malformed(self) -> bool:
        return any(p.malformed for p in self.problems)

    @property
    def exit_code(self) -> int:
        return 2 if self.malformed else (1 if self.problems else 0)


def render(report: Report, fmt: str = "text") -> list[str]:
    """One line per problem: plain, or as GitHub annotations (`--format github`)."""
    return [p.github() if fmt == "github" else p.render() for p in report.problems]
