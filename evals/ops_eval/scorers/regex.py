"""`regex` response checks: a declared pattern matches somewhere in the answer (`re.search`) --
for a fact with more than one right spelling ("SEV ?1", an id in any case)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._response import response_scorer

if TYPE_CHECKING:
    from ..core.response_checks import RegexCheck


@response_scorer(
    kind="regex",
    passes_when="its pattern matches in its turn's answer (`re.search`)",
)
def regex(check: RegexCheck, answer: str) -> str | None:
    return None if check.compiled().search(answer) else "no match in the answer"
