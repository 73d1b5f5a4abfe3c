"""Where a write's arguments came from, so the human approving it can see it (CaMeL's idea, in
the small).

Each argument of a write is traced through the session's events to the first of:

1. **you** -- the user's own messages name it (an id as a word of its own; a note's text
   contained in what the user wrote);
2. **a record you asked for** (`seed`) -- a read *of* it that the user asked for: a successful
   call whose argument the user named, returning that entity's record (`get_service_status(
   name='api gateway')` for api-gateway), or the one record a list read returned when the user
   named every filter it was given (`list_incidents(service='cache')` for "the cache
   incident"). Never a result whose own call already carried an id the user did not name (an
   echo proves only that the model asked for it);
3. **untrusted text** -- a log line, runbook body, incident summary or timeline, title or note
   returned by that call: where an instruction planted by anyone can come from;
4. **only mentioned** (`listed`, or `failed` for a read that found nothing) -- a seed field
   names it, but not as the subject the user asked about: a list field (`related`,
   `depends_on`, `unresolved_incidents`), another field of a record (an incident's `service`),
   the rows of a list read, the `known_services` of a not-found answer (`vouching`);
5. nowhere: no text of the session holds it (for a note's text: the agent's own words).

A write whose target came from untrusted text, was only mentioned, or that nothing named, is
*flagged*: the approval request says so before anything else, and the audit row keeps the trace.
It is a signal to the approver, not a block: the approval gate still decides. Tracing is by
value, not by data flow: a model that copies a planted id into a read first (`get_incident(
INC-008)`) cannot launder it, because an echo is no source, and a read that merely lists an id
(issue 40: `related`, `depends_on`, a failed read's known names) cannot either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ops_copilot.guards.copies import holds, runs, words
from ops_copilot.guards.visible import visible
from ops_copilot.guards.vouching import Shape, shape
from ops_copilot.seed.loading import EntityKind, normalise
from ops_copilot.tools.registry import TOOLS

Kind = Literal["user", "seed", "untrusted", "listed", "failed", "agent", "nowhere"]
PAYLOAD_KEY = "provenance"
FLAGGED_KINDS = frozenset({"untrusted", "listed", "failed", "nowhere"})


@dataclass(frozen=True)
class Source:
    """Where one argument's value came from. `where` names the call (`search_service_logs(
    service='database')`) for a record, untrusted text or a mention; empty otherwise. `field` is
    the place in that call's result (`incident.related[]`) for a mention or a list read's record;
    empty otherwise."""

    arg: str
    value: str
    kind: Kind
    where: str = ""
    field: str = ""

    @property
    def flagged(self) -> bool:
        return self.kind in FLAGGED_KINDS

    def says(self) -> str:
        shown = self.value if len(self.value) <= 60 else self.value[:57] + "..."
        said = f"{self.arg}={shown!r}"
        if self.kind == "user":
            return f"{self.arg}={shown!r} came from you"
        if self.kind == "seed" and self.field:
            return f"{said} came from {self.where}, the one record it returned for what you named"
        if self.kind == "seed":
            return f"{said} came from {self.where}, the record you asked for"
        mentioned = f"{said} is only mentioned in {self.field} of {self.where}"
        if self.kind == "listed":
            return f"{mentioned}: not from you, nor the record you asked for"
        if self.kind == "failed":
            return f"{mentioned}, a read that found nothing: not from you"
        if self.kind == "untrusted":
            return f"{self.arg}={shown!r} came from untrusted text of {self.where}, not from you"
        if self.kind == "agent":
            return f"{self.arg}: the agent's own words"
        return f"{self.arg}={shown!r} came from nowhere in this session: not from you"


@dataclass(frozen=True)
class Provenance:
    """The trace of one write call."""

    action: str
    sources: tuple[Source, ...]

    @property
    def flagged(self) -> bool:
        return any(s.flagged for s in self.sources)

    def hint(self) -> str:
        """What the approval request says, flagged sources first."""
        head = f"Approve or deny {self.action}; the approval needs a rationale and an approver."
        ordered = sorted(self.sources, key=lambda s: not s.flagged)
        lines = [f"- {s.says()}" for s in ordered]
        flagged = [s.arg for s in self.sources if s.flagged]
        if flagged:
            head = (
                f"CHECK BEFORE APPROVING: {', '.join(flagged)} of this write came neither from "
                f"you nor from a record you asked for. {head}"
            )
        return "\n".join([head, "Where its arguments came from:", *lines])

    def as_json(self) -> str:
        """The trace as the audit row keeps it."""
        return json.dumps([asdict(s) for s in self.sources], sort_keys=True)

    def payload(self) -> dict[str, Any]:
        """The request's payload: the trace under `provenance`, which an approval answer may
        carry back unchanged (a client that pre-fills the answer with it) and the tool ignores."""
        trace = {"flagged": self.flagged, "sources": [asdict(s) for s in self.sources]}
        return {PAYLOAD_KEY: trace}


def _fold(text: str) -> str:
    """`text` as a person sees it (`visible`), case and spacing aside: as values are compared."""
    return " ".join(visible(text).casefold().split())


def _leaves(
    value: Any, untrusted: frozenset[str], inside: bool = False
) -> Iterator[tuple[str, bool]]:
    """(string, is untrusted) for every string in a tool result."""
    if isinstance(value, str):
        yield value, inside
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _leaves(inner, untrusted, inside or key in untrusted)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _leaves(inner, untrusted, inside)


@dataclass(frozen=True)
class Read:
    """One tool result of the session, split into its seed fields and its untrusted text."""

    where: str  # the call, e.g. "search_service_logs(service='database')"
    tool: str
    args: dict[str, Any]
    response: Any
    trusted: tuple[str, ...]
    untrusted: tuple[str, ...]


def _show_call(name: str, args: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items() if v not in (None, ""))
    return f"{name}({shown})"


def session_reads(events: Iterable[Any]) -> tuple[list[str], list[Read]]:
    """What the user wrote in the session (messages, not approval answers), and every result
    the agent's tools returned, with its call."""
    said: list[str] = []
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    reads: list[Read] = []
    for event in events:
        content = getattr(event, "content", None)
        user = getattr(event, "author", None) == "user"
        for part in (content.parts if content else None) or []:
            if part.text and user and not part.thought:
                said.append(part.text)
            fc = part.function_call
            if fc is not None and fc.id:
                calls[fc.id] = (fc.name or "", dict(fc.args or {}))
            fr = part.function_response
            if fr is None or user or fr.name not in TOOLS:
                continue
            name, args = calls.get(fr.id or "", (fr.name, {}))
            leaves = list(_leaves(fr.response or {}, frozenset(TOOLS[fr.name].untrusted_keys)))
            reads.append(
                Read(
                    where=_show_call(name, args),
                    tool=fr.name,
                    args=args,
                    response=fr.response,
                    trusted=tuple(s for s, bad in leaves if not bad),
                    untrusted=tuple(s for s, bad in leaves if bad),
                )
            )
    return said, reads


@dataclass(frozen=True)
class _Folded:
    where: str
    args: str  # the call's own argument values, folded
    untrusted: str
    shape: Shape  # what the result vouches for, and what it only mentions (`vouching`)

    @classmethod
    def of(cls, read: Read) -> _Folded:
        kinds = TOOLS[read.tool].entities
        given = [  # as the tool resolved them: "inc 008" asked for INC-008
            normalise(kinds[k], v) if k in kinds and isinstance(v, str) else str(v)
            for k, v in read.args.items()
        ]
        return cls(
            where=read.where,
            args=_fold(" ".join(given)),
            untrusted=_fold("\n".join(read.untrusted)),
            shape=shape(read.tool, read.args, read.response),
        )


def _names(value: str, text: str) -> bool:
    """`text` (folded) names the id `value` as a word of its own."""
    return bool(re.search(rf"(?<![\w-]){re.escape(_fold(value))}(?![\w-])", text))


def _vouched(kind: EntityKind, value: str, said: str, read: _Folded) -> str | None:
    """How `read` vouches for `value`: "" as the record the user asked for, a field as the one
    record of a list read whose every filter the user named; None when it does not."""
    got = read.shape
    if any(
        k == kind and key == value and _names(as_given, said) for k, as_given, key in got.subjects
    ):
        return ""
    if len(got.rows) == 1 and got.given and all(_names(g, said) for g in got.given):
        field, key = got.rows[0]
        return field if _fold(key) == _fold(value) else None
    return None


def _trace_id(arg: str, kind: EntityKind, value: str, said: str, reads: list[_Folded]) -> Source:
    if _names(value, said):
        return Source(arg, value, "user")
    for read in reads:
        if (field := _vouched(kind, value, said, read)) is not None:
            return Source(arg, value, "seed", read.where, field)
    for read in reads:
        if _names(value, read.untrusted):
            return Source(arg, value, "untrusted", read.where)
    for read in reads:
        if _names(value, read.args):  # an echo of the call: no source
            continue
        for seen in read.shape.mentions:
            if _names(value, _fold(seen.text)):
                found = "listed" if read.shape.ok else "failed"
                return Source(arg, value, found, read.where, seen.field)
    return Source(arg, value, "nowhere")


def _trace_text(arg: str, value: str, said: str, reads: list[_Folded]) -> Source:
    """A free text (a note) is the user's when they wrote it; it came from untrusted text when
    it is contained in it or shares `copies.QUOTE_WORDS` words in a row with it, as a person
    reads both (`copies`: a prefix, a changed word, look-alike letters, invisible characters or
    words joined by underscores do not launder a copied payload); else it is the agent's own
    words."""
    folded, note = _fold(value), words(value)
    if folded and folded in said:
        return Source(arg, value, "user")
    for read in reads:
        untrusted = words(read.untrusted)
        if folded and (folded in read.untrusted or holds(untrusted, note) or runs(note, untrusted)):
            return Source(arg, value, "untrusted", read.where)
    return Source(arg, value, "agent")


def trace(action: str, args: Mapping[str, Any], events: Iterable[Any]) -> Provenance:
    """Where each string argument of the write `action` came from, given the session's events
    up to the call."""
    spec = TOOLS[action]
    words, found = session_reads(events)
    said, reads = _fold("\n".join(words)), [_Folded.of(r) for r in found]
    sources = []
    for arg, value in args.items():
        if not isinstance(value, str):
            continue
        kind = spec.entities.get(arg)
        if kind is not None:
            sources.append(_trace_id(arg, kind, normalise(kind, value), said, reads))
        else:
            sources.append(_trace_text(arg, value, said, reads))
    return Provenance(action=_show_call(action, args), sources=tuple(sources))


def session_events(tool_context: Any) -> list[Any]:
    """The session's events as a tool or callback sees them (none for a hand-built context)."""
    return list(getattr(getattr(tool_context, "session", None), "events", None) or [])
