"""The scrubber's rules one by one: each kind of value it names is replaced by its marker, and
the text a run's labels are made of -- scorer details, hashes, counts, tool names -- is kept."""

from __future__ import annotations

import pytest

from ops_eval.base.scrub import RULES, SCRUBBED, findings, label, scrub

CAUGHT = [
    ("write to alice.smith@example.com now", "write to [email] now"),
    ("from 10.0.3.7:8080", "from [ip]:8080"),
    ("host fe80::1ff:fe23:4567:890a down", "host [ip] down"),
    ("dsn postgres://app:hunter2@db.internal:5432/main", "dsn [url]"),
    ("see https://x.example.com/cb?code=abc&state=1 first", "see [url] first"),
    ("see http://x.io/#access_token=zzz", "see [url]"),
    ("key sk-live-4eC39HqLyjWDarjtT1zdp7dc", "key [secret]"),
    ("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "[secret]"),
    ("aws AKIAIOSFODNN7EXAMPLE", "aws [secret]"),
    ("auth: Bearer abcdefghijklmnop", "auth: [secret]"),
    ("password=S3cretPass! then", "[secret] then"),
    ('{"api_key": "k-9f8e7d6c5b"}', '{"[secret]"}'),
    ("jwt eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM", "jwt [secret]"),
    ("blob aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3 end", "blob [secret] end"),
    ("call +44 20 7946 0958 today", "call [phone] today"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- x", "[key] x"),
]
KEPT = [
    "IN_ORDER, per turn [1.0]",
    "no answer says 'The checkout service is degraded.'",
    "never called: get_service_status(name=checkout)",
    "budget: prompt_tokens=1234 of 4000",
    "0+0 tokens: hmac:2731082a27010623fee824134dc4eb8d",
    "sha256 3f786850e387550fdab836ed7e6dc881de23001b",
    "INC-002 at 2026-11-29T10:06:01Z, 5000 ms, 200/200 clients",
    "version 1.2.3 of the tool schema",
    "https://docs.example.com/runbooks/high-latency",
    "restart_service inventory down->operational by oncall-lead",
    '"trace_id": "VzF1rtfmI+3266k9j74xOA=="',  # MLflow's base64 ids are no phone numbers
    "0.17.091.890 I slot print_timing: id 0",  # llama.cpp's log times are no IPv4 addresses
    "llama.cpp's server is listening at http://127.0.0.1:43899",  # loopback names no one
    "1.2.3.4.5 and ::1 and 0.0.0.0",
]


@pytest.mark.parametrize(("text", "kept"), CAUGHT)
def test_each_kind_of_secret_or_personal_value_is_replaced_by_its_marker(text, kept):
    assert findings(text), text
    assert scrub(text) == kept
    assert findings(scrub(text)) == []


@pytest.mark.parametrize("text", KEPT)
def test_the_text_a_run_writes_of_itself_is_kept_as_it_is(text):
    assert findings(text) == [], [f.rule for f in findings(text)]
    assert label(text, 160) == text


def test_a_label_is_one_line_clamped_and_scrubbed_after_the_cut():
    assert label("a\n b\t c", 40) == "a b c"
    long = "word " * 100
    assert len(label(long, 50)) == 50 and label(long, 50).endswith("…")
    # The whole holds no IPv4 address; cut short, its prefix would: scrubbed after the cut.
    assert findings("x 1.2.3.4567") == []
    cut = label("x 1.2.3.4567 and more words after it", 10)
    assert findings(cut) == [] and len(cut) <= 10
    # A value cut in half by the clamp is still never kept.
    assert "alice" not in label("mail alice.smith@example.com", 16)


def test_no_marker_is_itself_a_match():
    for marker in {r.marker for r in RULES} | {SCRUBBED}:
        assert findings(marker) == [], marker
