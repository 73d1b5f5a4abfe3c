"""`numeric_range` response checks: a number in the answer lies in lo..hi, inclusive -- the value
at a JSON pointer of the answer's JSON (or its one fenced ```json block's), or, with no pointer,
the whole answer as one number. For figures with a tolerance (a count, a ratio), not a text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..response_checks import NUMBER, pointer_tokens
from ._response import NotJson, is_number, parse_json, response_scorer, shown

if TYPE_CHECKING:
    from ..response_checks import NumericRangeCheck


def at_pointer(document: Any, path: str) -> tuple[bool, Any]:
    """(found, the value at JSON pointer `path` in `document`)."""
    value = document
    for token in pointer_tokens(path):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            if token != "0" and token.startswith("0"):
                return False, None  # RFC 6901: no leading zeros in an index
            value = value[int(token)]
        else:
            return False, None
    return True, value


def _number(check: NumericRangeCheck, answer: str) -> float | str:
    """The number the check reads, or why there is none."""
    if check.path is None:
        said = answer.strip()
        if not NUMBER.fullmatch(said):
            return f"the answer is {shown(said)}, not one number"
        return float(said)
    try:
        document = parse_json(answer)
    except NotJson as exc:
        return str(exc)
    found, value = at_pointer(document, check.path)
    if not found:
        return f"nothing at {check.path}"
    if not is_number(value):
        return f"{check.path} is {shown(value)}, not a number"
    return float(value)


@response_scorer(
    kind="numeric_range",
    passes_when="the number at its JSON pointer in its turn's answer (without one: the whole "
    "answer) lies in `lo..hi`, inclusive",
)
def numeric_range(check: NumericRangeCheck, answer: str) -> str | None:
    number = _number(check, answer)
    if isinstance(number, str):
        return number
    lo, hi = check.bounds
    return None if lo <= number <= hi else f"{number:g} is outside {check.range}"
