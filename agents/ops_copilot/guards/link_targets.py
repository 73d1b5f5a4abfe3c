"""One link target read the way a browser reads it (`parse`, WHATWG URL: tabs and newlines
dropped, `\\` as `/`, the host after the last `@`, percent-decoded, NFKC-folded, lower-cased,
IDNA encoded, no trailing dot; hosts nested in the path or query too; a `mailto:` or `xmpp:`
address goes to its domain), and HTML entities decoded as a renderer decodes them (`decode`).
`links` finds the targets in text with these.
"""

from __future__ import annotations

import encodings.idna
import html
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

SCRIPT_SCHEMES = frozenset({"javascript", "data", "vbscript"})
_WEB = frozenset({"http", "https", "ws", "wss", "ftp"})  # WHATWG's special schemes (less file)
_ENTITY = re.compile(r"&(?:#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[A-Za-z][A-Za-z0-9]{1,31};?)")
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})

_NESTED = re.compile(
    r"(?:[a-z][a-z0-9+.-]*:)?[/\\]{2}[^\s/\\?#&]+|(?:https?|ftp|wss?):[^\s/\\?#&]+|www\.[^\s/?#&]+",
    re.IGNORECASE,
)


def _entity(raw: str) -> str:
    """One HTML entity as a browser reads it. A numeric one may carry any number of leading
    zeros (`&#0000000047;` is `/`); past U+10FFFF it is U+FFFD (and `html.unescape` is never
    handed thousands of digits to convert)."""
    if not raw.startswith("&#"):
        return html.unescape(raw)
    hexa = raw[2:3] in "xX"
    digits = raw[3 if hexa else 2 :].rstrip(";").lstrip("0") or "0"
    if len(digits) > 8:
        return "\ufffd"
    return html.unescape(f"&#{'x' if hexa else ''}{digits};")


def entities_decoded_once(text: str) -> str:
    """`text` with its HTML entities decoded once, as a browser decodes an attribute's value."""
    return _ENTITY.sub(lambda e: _entity(e.group(0)), text)


def _decode_once(text: str, starts: list[int], ends: list[int]) -> tuple[str, list, list]:
    out: list[str] = []
    s2: list[int] = []
    e2: list[int] = []
    pos = 0
    for m in _ENTITY.finditer(text):
        rep = _entity(m.group(0))
        if rep == m.group(0):
            continue
        out.append(text[pos : m.start()])
        s2 += starts[pos : m.start()]
        e2 += ends[pos : m.start()]
        out.append(rep)
        s2 += [starts[m.start()]] * len(rep)
        e2 += [ends[m.end() - 1]] * len(rep)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), s2 + starts[pos:], e2 + ends[pos:]


def decode(text: str) -> tuple[str, list[int], list[int]]:
    """`text` with HTML entities decoded (up to three rounds), and for each decoded character
    where its source starts and ends in `text`."""
    starts, ends = list(range(len(text))), list(range(1, len(text) + 1))
    for _ in range(3):
        decoded, starts, ends = _decode_once(text, starts, ends)
        if decoded == text:
            break
        text = decoded
    return text, starts, ends


def _host(raw: str) -> str | None:
    host = raw[1:].split("]", 1)[0] if raw.startswith("[") else raw.split(":", 1)[0]
    host = unicodedata.normalize("NFKC", unquote(host)).translate(_DOTS).lower().rstrip(".")
    if not host:
        return None
    return ".".join(_punycode(label) for label in host.split("."))


def _punycode(label: str) -> str:
    """A host label as browsers send it: UTS 46 without transitional mapping (IDNA 2008), so
    `ß` stays `ß` (xn--...) where Python's own IDNA 2003 codec makes it `ss` -- which would let
    `busineß.example` pass for a trusted `business.example`. A label IDNA 2008 refuses (an
    underscore, a symbol) falls back to IDNA 2003, else is compared as written."""
    if not label or label.isascii():
        return label
    import idna  # only for a label that is not ASCII: most text has none

    try:
        return idna.encode(label, uts46=True, transitional=False).decode("ascii")
    except idna.IDNAError:
        pass
    try:
        return encodings.idna.ToASCII(label).decode("ascii")
    except UnicodeError:
        return label


@dataclass(frozen=True)
class Target:
    """One link target as a browser reads it."""

    scheme: str  # lower-case; "" for a relative or scheme-relative target
    host: str | None  # None: the target goes to no other host (relative, #anchor, tel:)
    path: str  # percent-decoded; "/" when empty
    query: str  # percent-decoded query and fragment ("" when none)
    userinfo: bool
    nested: tuple[str, ...]  # hosts of URLs inside the path or query

    @property
    def script(self) -> bool:
        return self.scheme in SCRIPT_SCHEMES

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(([self.host] if self.host else []) + list(self.nested)))

    @property
    def carries_data(self) -> bool:
        """Something beyond host and path: a query, a fragment, credentials, a nested URL."""
        return bool(self.query or self.userinfo or self.nested)

    @property
    def key(self) -> str:
        """The target for comparison: host, path and query (web schemes alike)."""
        scheme = f"{self.scheme}:" if self.scheme not in _WEB else ""
        return f"{scheme}{self.host or ''}{self.path}{self.query}".lower()

    @property
    def place(self) -> str:
        """Host and path: where the target goes, without the data it carries."""
        return f"{self.host or ''}{self.path}".lower()


def _nested(text: str, depth: int) -> tuple[str, ...]:
    if depth > 1:
        return ()
    found: list[str] = []
    for form in dict.fromkeys([text, unquote(text), unquote(unquote(text))]):
        for m in _NESTED.finditer(form):
            found += parse(m.group(0), depth + 1).hosts
    return tuple(dict.fromkeys(found))


def _address_hosts(scheme: str, to: str) -> list[str]:
    """The domains an address target goes to: each `mailto:` recipient's, after its last `@`;
    an `xmpp:` Jabber id's (`node@domain/resource`, the resource cut off), and with the
    `xmpp://account@host/jid` form the account's host too."""
    if scheme == "mailto":
        return [a.rsplit("@", 1)[-1] for a in to.split(",") if "@" in a]
    jids = to.split("/")[2:4] if to.startswith("//") else to.split("/")[:1]
    return [jid.rsplit("@", 1)[-1] for jid in jids]


def parse(target: str, depth: int = 0) -> Target:
    """How a browser resolves `target` (already entity-decoded): scheme, host, path, data."""
    t = re.sub(r"^[\x00-\x20]+|[\x00-\x20]+$|[\t\n\r]", "", target).replace("\\", "/")
    m = re.match(r"([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))", t, re.IGNORECASE)
    scheme = m.group(1).lower() if m else ""
    rest = t[m.end() :] if m else t
    authority = None
    if scheme in ("mailto", "xmpp"):
        to, _, query = rest.partition("?")
        hosts = [h for h in map(_host, _address_hosts(scheme, unquote(to))) if h]
        query = f"?{unquote(query)}" if query else ""
        return Target(scheme, hosts[0] if hosts else None, unquote(to), query, False,
                      tuple(hosts[1:]) + _nested(query, depth))  # fmt: skip
    if scheme in _WEB or (not scheme and rest.startswith("//")):
        authority = rest.lstrip("/")
    elif scheme and rest.startswith("//"):
        authority = rest[2:]
    elif not scheme and re.match(
        r"(www\.|(?:[\w-]+\.)+[^\W\d_]{2,}(?::\d+)?([/?#]|$)|[\w.-]+:\d+(/|$))", rest, re.IGNORECASE
    ):
        authority = rest
    if authority is None:
        cut = re.search(r"[?#]", rest)
        path, query = (rest[: cut.start()], rest[cut.start() :]) if cut else (rest, "")
        return Target(scheme, None, unquote(path), unquote(query), False, _nested(rest, depth))
    end = re.search(r"[/?#]", authority)
    auth, tail = (authority[: end.start()], authority[end.start() :]) if end else (authority, "")
    userinfo = "@" in auth
    host = _host(auth.rsplit("@", 1)[-1])
    cut = re.search(r"[?#]", tail)
    path, query = (tail[: cut.start()], tail[cut.start() :]) if cut else (tail, "")
    return Target(scheme, host, unquote(path) or "/", unquote(query), userinfo,
                  _nested(tail, depth))  # fmt: skip
