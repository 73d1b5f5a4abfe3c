"""Where in a tool result each id sits: as the subject of the record the call asked for, as one
record of a list read, or only mentioned -- the structure write provenance needs to tell which
reads vouch for a write's target (issue 40).

A seed field proves only that the seed knows an entity, not that anyone asked about it: every
incident is in some `related` list, every service in some `depends_on` or in the
`known_services` of a read that found nothing, so a model obeying a planted instruction can
always find a read that mentions its target. What vouches for a target is a read *of* it: the
record a successful call returned for the entity it asked for, named in that record's own
fields (not inside a list of it), or the one record a list read returned. Whether the user asked
for that read -- named its argument, or every filter of the list -- is `provenance`'s to judge,
with its own comparison of text; this module only reads structure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ops_copilot.seed.loading import EntityKind, normalise
from ops_copilot.tools.registry import TOOLS

ID_KEYS = ("id", "name", "slug")
"""The keys a record of a tool result names its own entity by (`tools`' result shapes)."""


@dataclass(frozen=True)
class Mention:
    """One seed-field string of a result and where it sits (`incident.related[]`)."""

    field: str
    text: str


@dataclass(frozen=True)
class Shape:
    """One tool result, read for what it can vouch for."""

    ok: bool
    """The call found what it asked for; a read that found nothing vouches for nothing."""
    subjects: tuple[tuple[EntityKind, str, str], ...]
    """(kind, the argument as the call wrote it, the id it resolved to) for each entity the
    call asked for whose own record the result returned: named outside any list."""
    given: tuple[str, ...]
    """Every argument value the call gave, as written (a list read's filters)."""
    rows: tuple[tuple[str, str], ...]
    """(field, id) of each record a list read returned (`incidents[].id`)."""
    mentions: tuple[Mention, ...]
    """Every seed-field string of the result (untrusted text left out), with its place."""


def _walk(value: Any, untrusted: frozenset[str], path: str = "") -> Iterator[Mention]:
    if isinstance(value, str):
        yield Mention(path, value)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            if key not in untrusted:
                yield from _walk(inner, untrusted, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _walk(inner, untrusted, f"{path}[]")


def _rows(response: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for key, value in response.items():
        if not isinstance(value, list):
            continue
        for record in value:
            idkey = next((k for k in ID_KEYS if isinstance(record, Mapping) and k in record), None)
            if idkey is not None and isinstance(record[idkey], str):
                yield f"{key}[].{idkey}", record[idkey]


def shape(tool: str, args: Mapping[str, Any], response: Any) -> Shape:
    """What the result of `tool(**args)` holds where."""
    spec = TOOLS[tool]
    result = response if isinstance(response, Mapping) else {}
    ok = result.get("status") == "ok"
    mentions = tuple(_walk(result, frozenset(spec.untrusted_keys)))
    own = {m.text for m in mentions if "[]" not in m.field}  # the record's own fields
    subjects = tuple(
        (kind, value, normalise(kind, value))
        for arg, kind in spec.entities.items()
        if isinstance(value := args.get(arg), str) and value.strip()
        if ok and normalise(kind, value) in own
    )
    return Shape(
        ok=ok,
        subjects=subjects,
        given=tuple(str(v) for v in args.values() if v not in (None, "")),
        rows=tuple(_rows(result)) if ok else (),
        mentions=mentions,
    )
