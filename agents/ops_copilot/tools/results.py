"""Tool result shapes shared by every tool, and how an argument becomes a seed id.

Every tool returns a dict with a `status`: `ok`, `not_found` (the entity does not exist -- the
model is told so plainly, never given a guess), `invalid_argument`, or `refused` (a write that
did not run). Ids are normalised (case, spaces) and only ever compared against the seed, so
nothing a model passes can address a file.
"""

from __future__ import annotations

from typing import Any

from ops_copilot.seed.loading import EntityKind, Seed, normalise

MAX_ID_CHARS = 100

Result = dict[str, Any]


def not_found(kind: EntityKind, value: str, seed: Seed) -> Result:
    result: Result = {
        "status": "not_found",
        "entity": kind,
        "id": value,
        "exists": False,
        "message": (
            f"There is no {kind} {value!r} in the ops database. It does not exist: tell the user "
            f"so, and do not guess, invent or substitute another {kind}."
        ),
    }
    if kind != "incident":
        result[f"known_{kind}s"] = sorted(seed.ids(kind))
    return result


def invalid(arg: str, message: str) -> Result:
    return {"status": "invalid_argument", "argument": arg, "message": message}


def resolve(kind: EntityKind, arg: str, value: Any, seed: Seed) -> str | Result:
    """The canonical id for `value`, or the result to return instead (not found, invalid)."""
    if not isinstance(value, str) or not value.strip():
        return invalid(arg, f"{arg} must be a non-empty string naming a {kind}.")
    if len(value) > MAX_ID_CHARS:
        return invalid(arg, f"{arg} is longer than {MAX_ID_CHARS} characters; no {kind} is.")
    key = normalise(kind, value)
    if key not in seed.ids(kind):
        return not_found(kind, value.strip(), seed)
    return key
