"""What `audit_chain.verify` reports: the first `Break` (its kind and where), in a `Verdict`.

Kept apart from the checks so the status replay (`audit_statuses`) and the chain checks
(`audit_chain`) report in the same words without importing each other.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Kind = Literal[
    "schema", "deleted", "inserted", "altered", "relinked", "unexplained_status", "rewound"
]


class Break(BaseModel):
    """The first sign of tampering: which kind, where (a ledger row, a target, a schema object)."""

    kind: Kind
    table: str
    row: int | None = None
    target: str | None = None
    detail: str

    def __str__(self) -> str:
        where = f"{self.table} row {self.row}" if self.row is not None else self.table
        if self.target is not None:
            where += f" {self.target}"
        return f"{where}: {self.kind} ({self.detail})"


class Verdict(BaseModel):
    """What `verify` found; `head` is the anchor to keep outside the file (empty when broken)."""

    audit_rows: int
    notes: int
    head: str = ""
    first: Break | None = None

    @property
    def ok(self) -> bool:
        return self.first is None


def kind_of(value: object) -> str:
    """A wrong value's type in SQLite's words."""
    return {bytes: "a blob", int: "an integer", float: "a real number"}.get(
        type(value), "null" if value is None else type(value).__name__
    )
