"""JSON as every reader agrees on it: no NaN or Infinity (nor a number too big for a float, which
Python reads as infinity) and no key twice in one object. Python's `json` takes all three --
the first two as numbers JSON has no words for, the last by keeping whichever came last, where
another reader may keep the first -- so an eval set holding one would validate here and mean
something else to ADK or to a person. `loads` refuses them, naming where (`eval_cases[0].args`).
"""

from __future__ import annotations

import json
import math
from typing import Any


class NotStrictJson(ValueError):
    """JSON that reads, but not as every reader would: the message names where, and why."""


class _NonFinite:
    """A number JSON cannot hold, as it was written, kept until its place is known."""

    def __init__(self, written: str) -> None:
        self.written = written


class _Twice(dict[str, Any]):
    """An object in which `key` appeared twice."""

    key = ""


def _number(written: str) -> float | _NonFinite:
    value = float(written)
    return value if math.isfinite(value) else _NonFinite(written)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            twice = _Twice(pairs)
            twice.key = key
            return twice
        seen[key] = value
    return seen


def _first_problem(value: Any, path: str) -> tuple[str, str] | None:
    """(where, why) of the first number JSON cannot hold or key twice, depth first, in the
    order written."""
    if isinstance(value, _NonFinite):
        return path, f"{value.written} is not a JSON number (JSON has no NaN or Infinity)"
    if isinstance(value, _Twice):
        return path, f"key {value.key!r} appears twice in one object"
    if isinstance(value, dict):
        items = [(f"{path}.{k}" if path else k, v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
    else:
        return None
    for where, item in items:
        found = _first_problem(item, where)
        if found is not None:
            return found
    return None


def loads(text: str) -> Any:
    """`json.loads`, strictly: NotStrictJson (`<where>: <why>`) for NaN, Infinity or a key twice
    in one object; json.JSONDecodeError and RecursionError as json raises them."""
    data = json.loads(
        text, parse_constant=_NonFinite, parse_float=_number, object_pairs_hook=_pairs
    )
    problem = _first_problem(data, "")
    if problem is not None:
        where, why = problem
        raise NotStrictJson(f"{where or 'top level'}: {why}")
    return data
