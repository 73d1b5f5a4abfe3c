"""The output guard: a link in the agent's answer may point only where the user or trusted data
pointed.

A markdown image is fetched by the chat client the moment the answer renders, and a link invites
a click: either can carry incident data to a host that an attacker named in a log line, runbook,
incident text or note. Spotlighting may miss the instruction, and a model may follow a fenced one
anyway, so this guard looks at the answer itself, after the model and before anyone reads it.

Links are found and resolved by `links` -- the same grammar the red team judges answers with --
as a browser would: `http:host`, backslashes, `user@` tricks, HTML entities, reference links,
autolinks, HTML attributes, `mailto:`, open redirects nesting another URL. *Trusted text* is what
the user wrote in this session (messages and approval answers) and the seed's trusted fields
(service names, teams and descriptions, skills, the world file); *untrusted text* is every tool
result. Tool results are not trusted wholesale: a result can repeat an argument the model took
from untrusted text (a not-found id, say). A link, image or URL is kept only when every target it
has passes one of:

1. its URL, normalised (case, slashes, entities, percent-encoding), is one trusted text gives;
2. its host is trusted (trusted text names it), it carries no data -- no query, fragment,
   credentials or nested URL -- and its host and path appear in no tool result (a bare host
   root always passes: it carries nothing).

Anything else -- an untrusted host, a trusted host carrying data the user never wrote, a URL only
a tool result held, a host from nowhere (one assembled from pieces over several log lines) -- is
replaced by a marker; `javascript:`, `data:` and `vbscript:` targets always are. So a model can
repeat the user's own links and point at a trusted host, not carry data anywhere. Each removal is
logged and recorded in session state under `LINKS_REMOVED` (host, kind, the URL cut to 200
characters), so a harness or an operator can see what the model tried to show.

Runs as the agent's `after_model_callback` on every model response -- text sent alongside a tool
call as well as the final answer -- with the text parts of one response joined, as the reader
sees them (the answer's parts, and apart from them the thoughts' parts, which a client shows
too). Streamed (partial) chunks are guarded as the stream a client renders: each chunk's text
joins what its message held back, and only text that can no longer become a link is judged and
sent (`link_stream`); the final message is guarded whole, and records the removals.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from ops_copilot.guards.link_stream import end_message, streamed_message
from ops_copilot.guards.links import Link, find_links, mentioned
from ops_copilot.guards.spotlight import strings
from ops_copilot.seed.loading import Seed
from ops_copilot.store.workspace import workspace_for

logger = logging.getLogger(__name__)

LINKS_REMOVED = "ops_copilot_links_removed"
_MARKER = {"image": "[image removed: untrusted link]", "link": "[link removed: untrusted link]"}
_MAX_PASSES = 8
_DEV_UI_MARKS = ("/*PLANNING*/", "/*ACTION*/")


@dataclass(frozen=True)
class Removal:
    host: str
    kind: str
    url: str


@dataclass(frozen=True)
class Trust:
    """What the session's text says about links: trusted text (lower-case), the URLs it gives,
    the hosts its links name, and where (host and path) links in tool results point."""

    text: str
    keys: frozenset[str]
    hosts: frozenset[str]
    untrusted: frozenset[str]

    @classmethod
    def of(cls, trusted: str, untrusted: str = "") -> Trust:
        given = [t for link in find_links(trusted) for t in link.parsed]
        return cls(
            text=trusted.lower(),
            keys=frozenset(t.key for t in given),
            hosts=frozenset(h for t in given for h in t.hosts),
            untrusted=frozenset(t.place for link in find_links(untrusted) for t in link.parsed),
        )

    def trusts(self, host: str) -> bool:
        return host in self.hosts or mentioned(host, self.text)

    def keeps(self, link: Link) -> bool:
        """The rule in the module docstring, for every target of the link."""
        for target in link.parsed:
            if target.script:
                return False
            if not target.hosts or target.key in self.keys:
                continue
            if not all(self.trusts(h) for h in target.hosts) or target.carries_data:
                return False
            if target.path != "/" and target.place in self.untrusted:
                return False
        return True


def _defang(text: str, trust: Trust) -> tuple[str, list[Removal]]:
    out: list[str] = []
    removed: list[Removal] = []
    pos = 0
    for link in find_links(text, nested=False):
        label = None
        if link.label is not None:  # a markdown link's text may hold links of its own
            lo, hi = link.label
            label, cut = _defang(text[lo:hi], trust)
            removed += cut
        out.append(text[pos : link.start])
        pos = link.end
        if trust.keeps(link):
            whole = text[link.start : link.end]
            out.append(whole if label is None else text[link.start : lo] + label + text[hi:pos])
            continue
        untrusted = [h for h in link.hosts if not trust.trusts(h)]
        host = "(script)" if link.script else (untrusted or list(link.hosts))[0]
        removed.append(Removal(host=host, kind=link.kind, url=" ".join(link.targets)[:200]))
        marker = _MARKER.get(link.kind, _MARKER["link"])
        out.append(f"{label} {marker}".strip() if label and link.kind == "link" else marker)
    out.append(text[pos:])
    return "".join(out), removed


def _clean(text: str, trust: Trust) -> tuple[str, list[Removal]]:
    """`_defang` until nothing more goes: a marker can close a markdown link that a removal
    opened. Still removing after `_MAX_PASSES`: nothing of the text can be shown safely."""
    removed: list[Removal] = []
    for _ in range(_MAX_PASSES):
        text, cut = _defang(text, trust)
        if not cut:
            return text, removed
        removed += cut
    return _MARKER["link"], removed


def defang(text: str, trusted: str, untrusted: str = "") -> tuple[str, list[Removal]]:
    """`text` with every link that `trusted` text does not vouch for replaced (see the module
    docstring); `untrusted` is the tool results' text."""
    return _clean(text, Trust.of(trusted, untrusted))


_SEED_TEXT: dict[Path, str] = {}


def seed_trusted_text(seed: Seed) -> str:
    """The seed fields the tools return as trusted: services, skills, the world file (once
    per seed folder: a seed is immutable)."""
    if seed.root in _SEED_TEXT:
        return _SEED_TEXT[seed.root]
    chunks = [
        f"{s.name} {s.team} {s.description} {' '.join(s.depends_on)}"
        for s in seed.services.values()
    ]
    for folder in seed.skill_dirs.values():
        chunks += [p.read_text("utf-8", errors="replace") for p in sorted(folder.rglob("*.md"))]
    chunks.append((seed.root / "world.yaml").read_text("utf-8", errors="replace"))
    text = _SEED_TEXT[seed.root] = "\n".join(chunks)
    return text


def session_text(events: Iterable[Any], seed: Seed) -> tuple[str, str]:
    """(trusted, untrusted): what the user wrote in the session (messages and approval answers)
    with the seed's trusted fields; and every tool result."""
    trusted: list[str] = [seed_trusted_text(seed)]
    untrusted: list[str] = []
    for event in events:
        content = getattr(event, "content", None)
        if content is None:
            continue
        user = getattr(event, "author", None) == "user"
        for part in content.parts or []:
            if part.text and user:
                trusted.append(part.text)
            if part.function_response is not None:
                (trusted if user else untrusted).extend(strings(part.function_response.response))
    return "\n".join(trusted), "\n".join(untrusted)


def _trust(callback_context: Any) -> Trust:
    session = callback_context.session
    return Trust.of(*session_text(session.events, workspace_for(callback_context).seed))


def _joined(parts: list[types.Part]) -> dict[bool, str]:
    """The text of `parts` joined per kind: the answer (False) and the thoughts (True)."""
    joined = {False: "", True: ""}
    for part in parts:
        if part.text:
            joined[bool(part.thought)] += part.text
    return {kind: text for kind, text in joined.items() if text}


def _as_shown(thought: bool, text: str) -> str:
    """Text as a client shows it. The dev UI (`adk web`) drops the planner's `/*PLANNING*/` and
    `/*ACTION*/` marks from a thought, joining what stood around them
    (`status.acme.com/*PLANNING*/.evil.example` is one host there): they are dropped here first,
    to a fixed point, so the thought judged is the thought shown."""
    while thought and any(mark in text for mark in _DEV_UI_MARKS):
        for mark in _DEV_UI_MARKS:
            text = text.replace(mark, "")
    return text


def _with_texts(parts: list[types.Part], texts: dict[bool, str]) -> list[types.Part]:
    """`parts` with each kind of text in `texts` put in the first of its parts (the others of
    that kind dropped; all of them when its text is empty); other parts as they were."""
    out: list[types.Part] = []
    placed: set[bool] = set()
    for part in parts:
        kind = bool(part.thought)
        if not part.text or kind not in texts:
            out.append(part)
        elif kind not in placed:
            placed.add(kind)
            if texts[kind]:
                out.append(part.model_copy(update={"text": texts[kind]}))
    return out


def _record(callback_context: Any, removed: list[Removal]) -> None:
    logger.warning(
        "output guard removed %d link(s) the user and trusted data did not give: %s",
        len(removed),
        ", ".join(sorted({r.host for r in removed})),
    )
    earlier = list(callback_context.state.get(LINKS_REMOVED) or [])
    callback_context.state[LINKS_REMOVED] = earlier + [
        {"host": r.host, "kind": r.kind, "url": r.url} for r in removed
    ]


def _guard_chunk(callback_context: Any, llm_response: LlmResponse) -> LlmResponse | None:
    """A partial response: each kind of its text joins what the message held back, and only
    the part now settled is judged and sent (`link_stream`); a chunk left with nothing is not
    sent at all. Removals are recorded once, by the final response, which holds the same
    links."""
    content = llm_response.content
    given = list((content.parts if content else None) or [])
    deltas = _joined(given)
    if not deltas:
        return None
    assert content is not None
    message = streamed_message(callback_context)
    texts: dict[bool, str] = {}
    for kind, delta in deltas.items():
        ready = _as_shown(kind, message.held(kind).feed(delta)) if message else ""
        if ready and message and find_links(ready, nested=False):
            message.trust = message.trust or _trust(callback_context)
            # Judged without the whitespace that ends it, which stays: the next piece starts
            # after whitespace whatever cleaning made of this one (even all of it one marker).
            body = ready.rstrip(" \t\n\r\f\v")
            ready = _clean(body, message.trust)[0] + ready[len(body) :]
        texts[kind] = ready
    parts = _with_texts(given, texts)
    kept = content.model_copy(update={"parts": parts}) if parts else None
    return llm_response.model_copy(update={"content": kept})


def guard_links(callback_context: Any, llm_response: LlmResponse) -> LlmResponse | None:
    """ADK `after_model_callback`: the response with untrusted links replaced, or None when
    it holds none.

    A response's text parts reach the reader joined (`adk run` and the harness join them with
    nothing between), so a URL can be split across two parts that each look harmless: the
    parts are judged joined, as the reader sees them, and the cleaned whole replaces the first
    text part (the other text parts are dropped) when anything was removed. Thought parts,
    which the dev UI shows joined apart from the answer, are judged the same way on their own.
    A partial (streamed) response is judged as part of its stream (`_guard_chunk`)."""
    if llm_response.partial:
        return _guard_chunk(callback_context, llm_response)
    end_message(callback_context)
    content = llm_response.content
    given = list((content.parts if content else None) or [])
    joined = _joined(given)
    shown = {kind: _as_shown(kind, text) for kind, text in joined.items()}
    texts = {kind: text for kind, text in shown.items() if text != joined[kind]}  # marks dropped
    removed: list[Removal] = []
    if any(find_links(t, nested=False) for t in shown.values()):  # else the session is not read
        trust = _trust(callback_context)
        for kind, text in shown.items():
            cleaned, cut = _clean(text, trust)
            if cut:
                texts[kind], removed = cleaned, removed + cut
    if removed:
        _record(callback_context, removed)
    if not texts:
        return None
    assert content is not None
    parts = _with_texts(given, texts)
    return llm_response.model_copy(update={"content": content.model_copy(update={"parts": parts})})
