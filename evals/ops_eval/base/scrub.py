"""The scrubber: what a minimal-data run may keep of a free text (a scorer's detail, an error,
a log line) -- a label, clamped to a declared length and cleared of secrets and personal data.

The rules (`RULES`) each name one kind of value a label must never hold: private keys, URLs
carrying credentials or a query (or fragment: tokens travel there too), JSON web tokens, API
tokens with a known prefix, `Bearer ...` credentials, `password=...`-style assignments, long
mixed-case random strings, e-mail addresses, IPv4 and IPv6 addresses (octets of 0 to 255; not
the loopback `127.x.x.x`, `::1` or `0.0.0.0`, which name no one), and international phone
numbers (a `+` and at least eight digits, not inside a word: base64 ids hold `+3266`). A match
is replaced by a marker naming its rule (`[email]`); no marker matches a rule.
A keyed hash (`hmac:<32 hex>`, `results/minimal.py`) is what a minimal run keeps in place of a
value: no rule takes it for a secret.

The promise, which tests/fuzz checks on arbitrary text: `label(text, n)` is at most `n`
characters, one line, and no rule matches anywhere in it. The text is scrubbed before it is cut
(half an e-mail address matches no rule, and would be kept). Replacing one value can join its
neighbours into another, and cutting a text short can make a prefix match that the whole did
not (`1.2.3.4567` holds no IPv4 address; `1.2.3.456` does): so the label is clamped and
scrubbed again until nothing matches, and a text that will not settle becomes `[scrubbed]`.
`findings` is the same rules as a check: `ops-eval audit-run` reads artefacts with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    marker: str


def _rule(name: str, pattern: str, marker: str) -> Rule:
    return Rule(name, re.compile(pattern, re.IGNORECASE), marker)


_HEX4 = r"[0-9a-f]{1,4}"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
RULES: tuple[Rule, ...] = (
    _rule(
        "private key",
        r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)",
        "[key]",
    ),
    _rule("URL with credentials", r"[a-z][a-z0-9+.-]*://[^\s/?#@]*@\S*", "[url]"),
    _rule("URL with a query", r"[a-z][a-z0-9+.-]*://[^\s?#]*[?#]\S*", "[url]"),
    _rule("JSON web token", r"\beyJ[a-z0-9_-]{4,}\.[a-z0-9_-]{4,}\.[a-z0-9_-]*", "[secret]"),
    _rule(
        "API token",
        r"\b(?:(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_])?[a-z0-9_-]{16,}"
        r"|gh[pousr]_[a-z0-9]{20,}|github_pat_[a-z0-9_]{20,}|xox[abposr]-[a-z0-9-]{10,}"
        r"|akia[0-9a-z]{16}|aiza[0-9a-z_-]{30,}|glpat-[a-z0-9_-]{20,}|npm_[a-z0-9]{30,})",
        "[secret]",
    ),
    _rule("bearer credential", r"\b(?:bearer|basic)\s+[a-z0-9._~+/=-]{8,}", "[secret]"),
    _rule(
        "secret assignment",
        r"[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)"
        r"[a-z0-9_.-]*[\"']?\s*[:=]\s*[\"']?(?!\d+\b|hmac:[0-9a-f]{32}\b)[^\s\"',;\]\[]{6,}",
        "[secret]",
    ),
    _rule(
        "random-looking string",
        r"(?<![a-z0-9_-])(?=[a-z0-9_-]*\d)(?=[a-z0-9_-]*[a-z])[a-z0-9_-]{32,}(?![a-z0-9_-])",
        "[secret]",
    ),
    _rule("e-mail address", r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}", "[email]"),
    _rule(
        "IPv6 address",
        rf"(?<![\w:])(?!::1(?![\w:]))(?:(?:{_HEX4}:){{7}}{_HEX4}|(?:{_HEX4}:){{0,6}}(?:{_HEX4})?::"
        rf"(?:{_HEX4}(?::{_HEX4}){{0,6}})?)(?![\w:])",
        "[ip]",
    ),
    _rule(
        "IPv4 address",
        rf"(?<![\d.])(?!127\.|0\.0\.0\.0(?![\d.]))(?:{_OCTET}\.){{3}}{_OCTET}(?![\d]|\.\d)",
        "[ip]",
    ),
    _rule(
        "phone number",
        r"(?<![\w+/=])\+(?=(?:[ .()-]*\d){8})\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}\d(?![\w])",
        "[phone]",
    ),
)
"""Every kind of value a label may not hold, scrubbed in this order (a URL before the e-mail
address inside its credentials, a token before the random string it also is)."""

LABEL_CHARS = 160
"""A label's length when the gate's policy declares none (`gate.yaml`: `label_chars`)."""
SCRUBBED = "[scrubbed]"
"""What a text becomes when its scrubbing does not settle (never seen in practice)."""
_ROUNDS = 8
_RANDOM = RULES[7]
"""Random-looking strings are told from hashes by case alone: a lowercase hex digest is no
secret, a mixed-case run of 32 is -- so that rule alone reads case."""


@dataclass(frozen=True)
class Finding:
    rule: str
    start: int
    end: int


def _matches(rule: Rule, text: str) -> list[tuple[int, int]]:
    if rule is _RANDOM:  # mixed case only: a hex digest or a plain long word is not a secret
        return [
            m.span()
            for m in rule.pattern.finditer(text)
            if any(c.isupper() for c in m.group()) and any(c.islower() for c in m.group())
        ]
    return [m.span() for m in rule.pattern.finditer(text)]


def findings(text: str) -> list[Finding]:
    """Every place a rule matches `text`, in rule order."""
    return [Finding(r.name, s, e) for r in RULES for s, e in _matches(r, text)]


def scrub(text: str) -> str:
    """`text` with every match of every rule replaced by its rule's marker, again until no rule
    matches (`SCRUBBED` if it does not settle)."""
    for _ in range(_ROUNDS):
        found = False
        for rule in RULES:
            spans = _matches(rule, text)
            for start, end in reversed(spans):
                text = text[:start] + rule.marker + text[end:]
            found = found or bool(spans)
        if not found:
            return text
    return text if not findings(text) else SCRUBBED


def label(text: str, limit: int) -> str:
    """`text` as a minimal-data run keeps it: one line, at most `limit` characters, and no rule
    matching anywhere in it."""
    one = scrub(" ".join(text.split()))  # before the cut: half a value matches no rule
    for _ in range(_ROUNDS):
        clamped = one if len(one) <= limit else one[: max(0, limit - 1)].rstrip() + "…"
        one = scrub(clamped)
        if len(one) <= limit and not findings(one):
            return one
    return SCRUBBED[:limit]
