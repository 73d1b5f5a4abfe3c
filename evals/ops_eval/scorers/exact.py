"""`exact` response checks: the whole answer, surrounding whitespace aside, is the declared text
-- for answers with one right form (a yes, an id, a fixed phrase)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._response import response_scorer, shown

if TYPE_CHECKING:
    from ..core.response_checks import ExactCheck


@response_scorer(
    kind="exact",
    passes_when="its turn's answer, stripped, is its text",
)
def exact(check: ExactCheck, answer: str) -> str | None:
    said = answer.strip()
    return None if said == check.text else f"the answer is {shown(said)}"
