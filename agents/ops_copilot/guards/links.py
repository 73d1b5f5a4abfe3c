"""One grammar for links in model text: every target a chat client or browser would fetch or
follow, and the host it would go to.

The output guard (what the agent lets through) and the red team's answer check (what counts as
attacker content) both read text through this module, so they cannot disagree about what a link
is: two grammars drifted apart once, and `http:evil.example` got past one while the other saw it.

`find_links` finds, after decoding HTML entities (as a renderer does, to a fixed point so that
`&amp;#104;` cannot hide an `h`): markdown links and images (nested, and the bare `](target)` of
one whose text the grammar cannot parse), reference definitions (`[1]: url`), autolinks
(`<https://...>`, `<a@b.example>`), HTML tags with a URL in any attribute (`href`, `src`,
`srcset`, `action`, `poster`; and any URL written inside another attribute's value: an event
handler's script, `style` with its `url(...)` and `image-set("...")`, `data-src`), and bare URLs:
`scheme://`, `//host` (an IPv6 host in brackets too), `http:host` (browsers add the slashes),
`mailto:`, `xmpp:`, `www.`, `host.tld/path` and a bare e-mail address, with `\\` read as `/`.

`parse` reads one target the way a browser does (WHATWG URL): tabs and newlines dropped, `\\` as
`/`, any number of slashes after a web scheme, the host after the last `@` of the authority
(which ends at the first `/`, `\\`, `?` or `#`), percent-decoded, NFKC-folded, lower-cased,
IDNA (punycode) encoded, without a trailing dot. Hosts nested in a URL's path or query (an open
redirect, percent-encoded or not) are reported too. A bare e-mail address (and an `xmpp:` URI)
is a link: GFM renders it as one, and the address itself -- `INC-002.status@attacker.example` --
carries data to whoever owns its domain the moment it is clicked.

`TAG`, `DESTINATION` and `REFERENCE` are the grammar's constructs that may hold whitespace (an
HTML tag, a markdown destination with its title, a reference definition): `link_stream` reads
them to know where streamed text may be cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from ops_copilot.guards.link_targets import Target, decode, entities_decoded_once, parse

# A character of a bare URL, or a bracketed IPv6 literal (a nested URL's host, `?to=http://[::1]/`).
_U = r"(?:[^\s<>\"'`()\[\]{}]|\[[0-9a-f:.]+\])"
_IPV6 = r"(?:[^\s/\\@\[\]<>\"'`]*@)?\[[0-9a-f:.]+(?:%[\w.~-]+)?\]"  # [user@][2001:db8::1]
_DEST = r"(?:<[^<>\n]*>|(?:[^\s()]|\((?:[^\s()]|\([^\s()]*\))*\))+)"  # markdown destination
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?"
# An HTML start tag as a browser tokenises it: attributes after a space or a `/`, a quoted value
# may hold `>` or `<`, an unquoted one a `<` that starts no tag, a stray quote is part of a name.
# Atomic and possessive, a quoted value read up to 4,096 characters, and a `<` that starts
# another tag ending the attempt: text full of `<` with no closing `>` is read in linear time
# (letting any `<` in took 70 s on 100 KB of `<a b `).
_TAG = (
    r"(?P<tag><(?P<tag_name>[a-z][\w:-]*)(?P<attrs>[\s/](?>\"[^\"]{0,4096}\"|'[^']{0,4096}'"
    r"|<(?![a-z/!?])|[^<>\"']|[\"'])*+)>)"
)
# A reference definition: its destination may stand on the next line (CommonMark).
_REF = rf"^[ \t]{{0,3}}\[(?P<ref_label>[^\]\n]+)\]:[ \t]*\n?[ \t]*(?P<ref_dest>{_DEST})[^\n]*"
_RAW_TAG = re.compile(_TAG, re.IGNORECASE)
TAG = _RAW_TAG
DESTINATION = re.compile(rf"\]\(\s*(?:{_DEST})?{_TITLE}\s*\)")
REFERENCE = re.compile(_REF, re.IGNORECASE | re.MULTILINE)
_GRAMMAR = re.compile(
    rf"(?P<md>(?P<bang>!)?\[(?P<label>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(?P<md_dest>{_DEST})?"
    rf"{_TITLE}\s*\))"
    rf"|(?P<orphan>\]\(\s*(?P<orphan_dest>{_DEST}){_TITLE}\s*\))"
    rf"|(?P<ref>{_REF})"
    r"|(?P<auto><(?P<auto_dest>[a-z][a-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>)"
    r"|(?P<style><style\b[^>]*>(?P<css>[\s\S]*?)(?:</style\s*>|\Z))"
    rf"|{_TAG}"
    rf"|(?P<url>(?<![\w.+-])(?:[a-z][a-z0-9+.-]*:)?[/\\]{{2}}{_IPV6}{_U}*"
    rf"|(?<![\w.+-])(?:[a-z][a-z0-9+.-]*:)?[/\\]{{2}}[^\s/\\<>\"'`()\[\]{{}}]{_U}*"
    rf"|(?<![\w.+-])(?:https?|ftp|wss?):[/\\]?(?=[\w\[%]){_U}+"
    rf"|(?<![\w.+-])(?:mailto|xmpp):{_U}+"
    rf"|(?<![\w@./-])www\.{_U}+"
    rf"|(?<![\w@./-])(?:[\w-]+\.)+[^\W\d_]{{2,}}(?::\d+)?(?:[/\\]{_U}*|[?#]{_U}+))"
    r"|(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",  # GFM's bare e-mail address
    re.IGNORECASE | re.MULTILINE,
)
# Every attribute of a tag: a URL attribute's value is a target; any other value (an event
# handler's script, `style`, `data-src`, a framework's binding) is read for the URLs in it.
_ATTR = re.compile(
    r"(?:^|[\s\"'/])(?P<name>[^\s\"'<>/=]+)\s*=\s*(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"'>]+)"
)
_URL_ATTRS = frozenset(
    "href src action formaction poster data background cite ping lowsrc longdesc xlink:href "  # noqa: SIM905
    "codebase dynsrc manifest icon profile".split()
)
# CSS: url(...), image-set("..."), @import "...", and a meta refresh's `url=`.
_CSS_URL = re.compile(
    r"url\(\s*['\"]?([^'\")]+)|url=\s*['\"]?([^'\";]+)|['\"]([^'\"]+)['\"]", re.IGNORECASE
)
# A markdown backslash escape (CommonMark: any ASCII punctuation), and a CSS escape (a code point
# in 1 to 6 hex digits and one optional space, a line continuation, or any other character).
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(\r\n|[\s\S]))")
_TRAILING = ".,:;!?*_~'\""


@dataclass(frozen=True)
class Link:
    """A link-like span of text: `kind` is `image` (fetched when the answer renders: markdown
    images, `<img>` and other embeds), `link` (followed on a click) or `url` (a bare address a
    client may turn into a link). `start`/`end` and `label` are positions in the original text;
    `label` is a markdown link's own text, which stays when the link goes."""

    kind: str
    targets: tuple[str, ...]
    start: int
    end: int
    label: tuple[int, int] | None = None

    @cached_property
    def parsed(self) -> tuple[Target, ...]:
        return tuple(parse(t) for t in self.targets)

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(h for p in self.parsed for h in p.hosts))

    @property
    def script(self) -> bool:
        return any(p.script for p in self.parsed)

    @property
    def leaves(self) -> bool:
        """Whether it points anywhere but the page it is on: a host, or a script."""
        return self.script or bool(self.hosts)


def _readings(target: str) -> list[str]:
    """A markdown target as written and with its backslash escapes undone, as a CommonMark
    renderer does (`status.acme.com\\.evil.example` is one host to it, `\\` a `/` to a browser
    reading it raw): a link is judged by every host either reading gives."""
    return list(dict.fromkeys([target, _MD_ESCAPE.sub(r"\1", target)]))


def _css_char(m: re.Match[str]) -> str:
    if m.group(1):
        code = int(m.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return "" if m.group(2) in ("\n", "\r\n", "\r", "\f") else m.group(2)


def _css_targets(css: str) -> list[str]:
    """The URLs in CSS (or a script) as written and with CSS escapes undone (`\\68ttps\\3a`):
    `url(...)`, quoted strings (`image-set("...")`, `@import '...'`) and bare URLs."""
    found: list[str] = []
    for form in dict.fromkeys([css, _CSS_ESCAPE.sub(_css_char, css)]):
        found += [u for groups in _CSS_URL.findall(form) for u in groups if u]
        found += [t for link in find_links(form) for t in link.targets]
    return found


def _tag_targets(attrs: str) -> list[str]:
    """Every URL a tag's attributes hold: the value of a URL attribute, each candidate of a
    `srcset`, and the URLs written anywhere in any other value (script, CSS, data-*, an
    iframe's `srcdoc` document) -- each value's entities decoded once, as a browser does."""
    found = []
    for m in _ATTR.finditer(attrs):
        name = m.group("name").lower()
        value = entities_decoded_once(m.group("value").strip("\"'"))
        if name in _URL_ATTRS:
            found.append(value)
        elif name.endswith("srcset"):
            found += [c.split()[0] for c in value.split(",") if c.split()]
        else:
            found += _css_targets(value)
    return list(dict.fromkeys(found))


def _tag_kind(name: str) -> str:
    """A tag that is followed on a click is a link; any other with a URL fetches it: an image."""
    return "link" if name.lower() in ("a", "area", "form", "button") else "image"


def _raw_tags(text: str, links: list[Link]) -> list[Link]:
    """`links` with the tags of `text` read as a browser tokenises them -- attributes first,
    then each value's entities (`src=/&#9;/evil.example` is one value whose tab the URL parser
    drops, where decoding first ends it at the tab) -- in place of what the decoded reading found
    inside them. A tag inside another link (a markdown label) is left to that link's reading."""
    for m in _RAW_TAG.finditer(text):
        tag = Link(_tag_kind(m.group("tag_name")), tuple(_tag_targets(m.group("attrs"))),
                   m.start(), m.end())  # fmt: skip
        inside = [o for o in links if o.start < tag.end and tag.start < o.end]
        if not tag.leaves or any(o.start < tag.start or o.end > tag.end for o in inside):
            continue
        links = [o for o in links if o not in inside] + [tag]
    return sorted(links, key=lambda o: o.start)


def _match(m: re.Match[str]) -> tuple[str, list[str], tuple[int, int] | None, int]:
    """(kind, targets, label span, end) of one grammar match, in decoded positions."""
    if m.group("md"):
        dest = (m.group("md_dest") or "").strip("<>")
        return ("image" if m.group("bang") else "link"), _readings(dest), m.span("label"), m.end()
    if m.group("orphan"):
        return "link", _readings(m.group("orphan_dest").strip("<>")), None, m.end()
    if m.group("ref"):
        return "link", _readings(m.group("ref_dest").strip("<>")), None, m.end()
    if m.group("auto"):
        dest = m.group("auto_dest")
        return "link", [dest if ":" in dest else f"mailto:{dest}"], None, m.end()
    if m.group("style"):  # a stylesheet fetches what it names as the answer renders
        return "image", list(dict.fromkeys(_css_targets(m.group("css")))), None, m.end()
    if m.group("tag"):
        return _tag_kind(m.group("tag_name")), _tag_targets(m.group("attrs")), None, m.end()
    if m.group("email"):  # a client makes it a mail-to link
        return "url", [f"mailto:{m.group('email')}"], None, m.end()
    url = m.group("url").rstrip(_TRAILING)
    return "url", _readings(url), None, m.start() + len(url)


def find_links(text: str, nested: bool = True) -> list[Link]:
    """Every link-like span of `text` that points somewhere, in order; relative links and tags
    without a URL left out. Links inside a markdown link's text follow it (`nested`); without
    `nested`, a markdown link whose text holds any is listed even when it points nowhere, so a
    caller that rewrites text can recurse into its label."""
    decoded, starts, ends = decode(text)
    links = []
    for m in _GRAMMAR.finditer(decoded):
        kind, targets, label, end = _match(m)
        if not targets or end <= m.start():
            continue
        inner: list[Link] = []
        label_span = None
        if label is not None and label[1] > label[0]:
            label_span = lo, hi = starts[label[0]], ends[label[1] - 1]
            inner = [
                Link(
                    i.kind,
                    i.targets,
                    i.start + lo,
                    i.end + lo,
                    i.label and (i.label[0] + lo, i.label[1] + lo),
                )  # fmt: skip
                for i in find_links(text[lo:hi], nested)
            ]
        link = Link(kind, tuple(targets), starts[m.start()], ends[end - 1], label_span)
        if link.leaves or (inner and not nested):
            links.append(link)
        if nested:
            links += inner
    return _raw_tags(text, links)


def mentioned(host: str, text: str) -> bool:
    """`host` appears in lower-case `text` as a whole host name (not inside a longer one)."""
    return bool(re.search(rf"(?<![a-z0-9.-]){re.escape(host)}(?![a-z0-9-]|\.[a-z0-9])", text))
