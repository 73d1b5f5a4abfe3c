"""`contains` response checks: a declared text occurs in the answer -- the fact a case cannot do
without (an incident id, a runbook's name), not the wording around it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._response import response_scorer

if TYPE_CHECKING:
    from ..core.response_checks import ContainsCheck


def occurs(text: str, answer: str, ignore_case: bool) -> int:
    """Where `text` first occurs in `answer` (case-folded when `ignore_case`), or -1."""
    if ignore_case:
        return answer.casefold().find(text.casefold())
    return answer.find(text)


@response_scorer(
    kind="contains",
    reads_answers=True,
    passes_when="its text occurs in its turn's answer (case-folded with `ignore_case`)",
)
def contains(check: ContainsCheck, answer: str) -> str | None:
    if occurs(check.text, answer, check.ignore_case) >= 0:
        return None
    return f"{check.text!r} does not occur in the answer"
