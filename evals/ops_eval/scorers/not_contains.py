"""`not_contains` response checks: a declared text does not occur in the answer -- what must
never be said (a planted instruction repeated, a status claimed for something that does not
exist)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._response import response_scorer
from .contains import occurs

if TYPE_CHECKING:
    from ..core.response_checks import NotContainsCheck

_AROUND = 30  # characters of the answer shown either side of the occurrence


@response_scorer(
    kind="not_contains",
    reads_answers=True,
    passes_when="its text does not occur in its turn's answer (case-folded with `ignore_case`)",
)
def not_contains(check: NotContainsCheck, answer: str) -> str | None:
    at = occurs(check.text, answer, check.ignore_case)
    if at < 0:
        return None
    start, end = max(0, at - _AROUND), at + len(check.text) + _AROUND
    return f"{check.text!r} occurs in the answer: {answer[start:end]!r}"
