"""`json_valid` response checks: the answer is JSON (RFC 8259: no NaN or Infinity), or one
fenced ```json block holding JSON -- the least a structured answer owes its reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._response import NotJson, parse_json, response_scorer

if TYPE_CHECKING:
    from ..core.response_checks import JsonValidCheck


@response_scorer(
    kind="json_valid",
    passes_when="its turn's answer (or the one fenced json block it is) is JSON",
)
def json_valid(check: JsonValidCheck, answer: str) -> str | None:
    try:
        parse_json(answer)
    except NotJson as exc:
        return str(exc)
    return None
