"""`numeric_range` response checks: a number in the answer lies in lo..hi, inclusive -- the value
at a JSON pointer of the answer's JSON (or its one fenced ```json block's), or, with no pointer,
the whole answer as one number. For figures with a tolerance (a count, a ratio), not a text.

Numbers are compared exactly as written (`response_checks.Number`), never through a float: 400
nines are a number above 10, not an OverflowError, and 1.00000000000000000001 is above 1."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core.answer_numbers import NUMBER, Number, pointer_tokens
from ._response import NotJson, parse_json, response_scorer, shown

if TYPE_CHECKING:
    from ..core.response_checks import NumericRangeCheck


# RFC 6901's array index: ASCII digits, no leading zero (str.isdigit would take "５", and int()
# refuses past 4,300 digits); 18 digits are more items than any list holds.
_INDEX = re.compile(r"0|[1-9][0-9]{0,17}")


def at_pointer(document: Any, path: str) -> tuple[bool, Any]:
    """(found, the value at JSON pointer `path` in `document`)."""
    value = document
    for token in pointer_tokens(path):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and _INDEX.fullmatch(token) and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return True, value


def _plain(value: Any) -> Any:
    """A JSON value read exactly, with its numbers as `json.loads` gives them: for showing."""
    if isinstance(value, Number):
        return value.plain()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _shown(value: Any) -> str:
    try:
        return shown(_plain(value))
    except RecursionError:  # nested as deep as the parser allows: say what it is
        return "an object" if isinstance(value, dict) else "an array"


def _number(check: NumericRangeCheck, answer: str) -> Number | str:
    """The number the check reads, or why there is none."""
    if check.path is None:
        said = answer.strip()
        if not NUMBER.fullmatch(said):
            return f"the answer is {shown(said)}, not one number"
        return Number(said)
    try:
        document = parse_json(answer, exact=True)
    except NotJson as exc:
        return str(exc)
    found, value = at_pointer(document, check.path)
    where = check.shown_path()
    if not found:
        return f"nothing at {where}"
    if not isinstance(value, Number):
        return f"{where} is {_shown(value)}, not a number"
    return value


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
    return None if lo <= number <= hi else f"{number} is outside {check.shown_range()}"
