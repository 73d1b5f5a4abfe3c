"""Fuzz target: the scrubber (`base.scrub`). For any text -- arbitrary Unicode, and text built
from the very values the rules name (e-mail and IP addresses, tokens, keys, URLs with
credentials or a query, phone numbers) glued to each other and to punctuation, so that a
replacement or a cut can join neighbours into a new match -- `label(text, n)` is at most `n`
characters, one line, and no rule matches anywhere in it. Never raises."""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from ops_eval.base.scrub import findings, label, scrub

VALUES = st.sampled_from(
    [
        "alice.smith@example.com",
        "a@b.io",
        "10.0.3.7",
        "192.168.001.254",
        "fe80::1ff:fe23:4567:890a",
        "2001:db8::8a2e:370:7334",
        "::1",
        "https://bob:hunter2@db.internal/x",
        "postgres://u:p@h:5432/db",
        "https://api.example.com/v1?token=abc123",
        "http://x.io/#access_token=zzz",
        "sk-live-4eC39HqLyjWDarjtT1zdp7dc",
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "AKIAIOSFODNN7EXAMPLE",
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "xoxb-1234567890-abcdefghij",
        "eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM",
        "Bearer abcdefghijklmnop",
        "password=S3cretPass!",
        'api_key: "k-9f8e7d6c5b"',
        "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3",
        "+44 20 7946 0958",
        "+1 (555) 123-4567",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
        "hmac:0123456789abcdef0123456789abcdef",
    ]
)
GLUE = st.sampled_from(["", " ", ".", ":", "@", "/", "?", "=", "-", "_", "\n", "'", '"', "1", "a"])
BUILT = st.lists(st.one_of(VALUES, GLUE, st.text(max_size=8)), max_size=12).map("".join)
LIMITS = st.integers(min_value=16, max_value=400)


@given(text=st.one_of(BUILT, st.text(max_size=400)), limit=LIMITS)
def test_a_label_never_holds_what_a_rule_matches(text: str, limit: int) -> None:
    kept = label(text, limit)
    event("scrubbed" if findings(text) else "nothing to scrub")
    assert len(kept) <= limit
    assert "\n" not in kept and "\r" not in kept
    assert findings(kept) == []


@given(text=st.one_of(BUILT, st.text(max_size=400)))
def test_scrub_leaves_no_match_and_keeps_clean_text_as_it_is(text: str) -> None:
    cleaned = scrub(text)
    assert findings(cleaned) == []
    if not findings(text):
        assert cleaned == text
