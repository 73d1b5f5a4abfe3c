"""The output guard: a link in the agent's answer may point only where the user or trusted data
pointed.

A markdown image is fetched by the chat client the moment the answer renders, and a link invites
a click: either can carry incident data to a host that an attacker named in a log line, runbook,
incident text or note. Spotlighting may miss the instruction, and a model may follow a fenced one
anyway, so this guard looks at the answer itself, after the model and before anyone reads it.

A link, image or URL in the model's text is kept only when its host appears in what the user
wrote in this session (messages and approval answers) or in the seed's trusted fields (service
names, teams and descriptions, skills, the world file): the text that tools return without
fencing it as untrusted. Tool results themselves are not trusted wholesale, because a result can
repeat an argument the model took from untrusted text (a not-found id, say). Hosts that came
only from untrusted text -- or from nowhere, such as one assembled from pieces spread over
several log lines -- are replaced by a marker; `javascript:` and `data:` targets always are. Each
removal is logged and recorded in session state under `LINKS_REMOVED` (host, kind, the URL cut
to 200 characters), so a harness or an operator can see what the model tried to show.

Runs as the agent's `after_model_callback` on every model response, intermediate text included.
With streaming on, a URL split across partial chunks is only caught in the final response.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from .seed import Seed
from .workspace import workspace_for

logger = logging.getLogger(__name__)

LINKS_REMOVED = "ops_copilot_links_removed"
_URL_CHARS = r"[^\s<>()\[\]{}'\"`]"

# One alternation, scanned left to right, so a markdown link's URL is not matched again as a
# bare URL. Kinds: image (markdown or <img>), link (markdown, <a>, autolink), url (bare).
_LINK = re.compile(
    r"(?P<image>!\[[^\]\n]*\]\(\s*<?(?P<image_url>[^)\s>]*)>?(?:\s+[\"'][^\"']*[\"'])?\s*\))"
    r"|(?P<link>\[(?P<text>[^\]\n]*)\]\(\s*<?(?P<link_url>(?:[^()\s>]|\([^()\s]*\))*)>?"
    r"(?:\s+[\"'][^\"']*[\"'])?\s*\))"
    r"|(?P<tag><(?P<tag_name>img|a|iframe|source|video|audio)\b[^>]*?"
    r"(?:src|href|srcset)\s*=\s*[\"']?(?P<tag_url>[^\"'\s>]+)[^>]*>)"
    r"|(?P<url>(?:\b[a-z][a-z0-9+.-]*:)?//" + _URL_CHARS + r"+"
    r"|\bwww\." + _URL_CHARS + r"+"
    r"|(?<![\w@./-])(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/" + _URL_CHARS + r"*)",
    re.IGNORECASE,
)
_SCRIPT = re.compile(r"^\s*(javascript|data|vbscript):", re.IGNORECASE)
_MARKER = {"image": "[image removed: untrusted link]", "link": "[link removed: untrusted link]"}


@dataclass(frozen=True)
class Removal:
    host: str
    kind: str
    url: str


def host_of(target: str) -> str | None:
    """The host a link target points at; None for a relative link (no host)."""
    target = target.strip()
    if target.lower().startswith("www."):
        target = "//" + target
    elif not re.match(r"^([a-z][a-z0-9+.-]*:)?//", target, re.IGNORECASE):
        if re.match(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/", target, re.IGNORECASE):
            target = "//" + target
        else:
            return None
    try:
        return urlsplit(target).hostname or None
    except ValueError:
        return "(unparseable)"


def _mentioned(host: str, trusted: str) -> bool:
    """The host appears in trusted text as a whole host name (not inside a longer one)."""
    return bool(re.search(rf"(?<![a-z0-9.-]){re.escape(host)}(?![a-z0-9-]|\.[a-z0-9])", trusted))


def defang(text: str, trusted: str) -> tuple[str, list[Removal]]:
    """`text` with every link whose host `trusted` (lowercase) does not mention replaced."""
    removed: list[Removal] = []

    def replace(m: re.Match[str]) -> str:
        kind = "url" if m.group("url") else "link"
        if m.group("image") or (m.group("tag") and m.group("tag_name").lower() != "a"):
            kind = "image"
        target = m.group("image_url") or m.group("link_url") or m.group("tag_url") or m.group(0)
        script = bool(_SCRIPT.match(target))
        host = "(script)" if script else host_of(target)
        if host is None or (not script and _mentioned(host.lower(), trusted)):
            return m.group(0)
        removed.append(Removal(host=host.lower(), kind=kind, url=target[:200]))
        if m.group("link"):
            return f"{m.group('text')} {_MARKER['link']}".strip()
        return _MARKER.get(kind, "[link removed: untrusted link]")

    return _LINK.sub(replace, text), removed


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


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
    text = _SEED_TEXT[seed.root] = "\n".join(chunks).lower()
    return text


def trusted_text(events: Iterable[Any], seed: Seed) -> str:
    """Everything the user wrote in the session (messages and approval answers) and the seed's
    trusted fields, lowercased."""
    chunks: list[str] = [seed_trusted_text(seed)]
    for event in events:
        content = getattr(event, "content", None)
        if getattr(event, "author", None) != "user" or content is None:
            continue
        for part in content.parts or []:
            if part.text:
                chunks.append(part.text)
            if part.function_response is not None:
                chunks.extend(_strings(part.function_response.response))
    return "\n".join(chunks).lower()


def guard_links(callback_context: Any, llm_response: LlmResponse) -> LlmResponse | None:
    """ADK `after_model_callback`: the response with untrusted links replaced, or None when
    it holds none."""
    content = llm_response.content
    if content is None or not any(p.text and not p.thought for p in content.parts or []):
        return None
    session = callback_context.session
    trusted = trusted_text(session.events, workspace_for(callback_context).seed)
    parts: list[types.Part] = []
    removed: list[Removal] = []
    for part in content.parts or []:
        if part.text and not part.thought:
            text, cut = defang(part.text, trusted)
            if cut:
                removed += cut
                part = part.model_copy(update={"text": text})
        parts.append(part)
    if not removed:
        return None
    logger.warning(
        "output guard removed %d link(s) to untrusted host(s): %s",
        len(removed),
        ", ".join(sorted({r.host for r in removed})),
    )
    earlier = list(callback_context.state.get(LINKS_REMOVED) or [])
    callback_context.state[LINKS_REMOVED] = earlier + [
        {"host": r.host, "kind": r.kind, "url": r.url} for r in removed
    ]
    return llm_response.model_copy(update={"content": content.model_copy(update={"parts": parts})})
