"""`json_equal` response checks: the answer's JSON (or its one fenced ```json block's) is the
declared value -- key order irrelevant, 1 equal to 1.0, and a boolean never equal to a number
(JSON's equality, not Python's, where True == 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._response import NotJson, is_number, parse_json, response_scorer, shown

if TYPE_CHECKING:
    from ..core.response_checks import JsonEqualCheck


def difference(expected: Any, actual: Any, at: str = "") -> str | None:
    """Where and how `actual` differs from `expected` as JSON values (a JSON pointer), or
    None when they are equal."""
    where = at or "the top level"
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            step = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key not in actual:
                return f"{step} is missing"
            if key not in expected:
                return f"{step} is not expected"
            found = difference(expected[key], actual[key], step)
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{where} has {len(actual)} items, not {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = difference(e, a, f"{at}/{i}")
            if found:
                return found
        return None
    same = (
        expected == actual
        if is_number(expected) and is_number(actual)
        else type(expected) is type(actual) and expected == actual
    )
    return None if same else f"{where} is {shown(actual)}, not {shown(expected)}"


@response_scorer(
    kind="json_equal",
    passes_when="its turn's answer's JSON equals its value (key order aside; a boolean is no "
    "number)",
)
def json_equal(check: JsonEqualCheck, answer: str) -> str | None:
    try:
        actual = parse_json(answer)
    except NotJson as exc:
        return str(exc)
    return difference(check.value, actual)
