"""Expected calls against actual ones, aligned for reading, IN_ORDER fashion."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.calls import ToolCall


@dataclass(frozen=True)
class Row:
    status: str  # match | args | missing | extra
    expected: ToolCall | None
    actual: ToolCall | None

    def diff_keys(self) -> set[str]:
        """The arguments that differ, on an `args` row."""
        if self.status != "args" or not self.expected or not self.actual:
            return set()
        keys = set(self.expected.args) | set(self.actual.args)
        return {k for k in keys if self.expected.args.get(k) != self.actual.args.get(k)}


def align(expected: list[ToolCall], actual: list[ToolCall]) -> list[Row]:
    """Matched calls, calls whose arguments differ, missing expected calls, extra actual ones."""
    rows: list[Row] = []
    pos = 0
    for exp in expected:
        same = next((i for i in range(pos, len(actual)) if actual[i].same(exp)), None)
        near = (
            same
            if same is not None
            else next((i for i in range(pos, len(actual)) if actual[i].name == exp.name), None)
        )
        if near is None:
            rows.append(Row("missing", exp, None))
            continue
        rows += [Row("extra", None, a) for a in actual[pos:near]]
        rows.append(Row("match" if same is not None else "args", exp, actual[near]))
        pos = near + 1
    rows += [Row("extra", None, a) for a in actual[pos:]]
    return rows
