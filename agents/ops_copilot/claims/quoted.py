"""Claims of JSON an answer quotes: a tool result pasted into the answer, read as the record it
is, field by field -- never as prose. Read as prose, `{"id": "INC-001", "severity": "SEV3"},
{"id": "INC-009", ...}` gave INC-009 INC-001's severity: every `"key":` looked like a list
introduced by a colon."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ops_copilot.claims.model import Claim, Vocabulary

_INCIDENT = re.compile(r"INC-\d{3}", re.I)
_MAX_TRIES = 50
"""JSON starts tried per answer: enough for any real answer, and a bound on a pathological one."""


def quoted_json(text: str, vocab: Vocabulary) -> tuple[list[Claim], str]:
    """The claims of every JSON object or array `text` holds, and `text` with each of them
    replaced by a line break (what is left is prose)."""
    decoder = json.JSONDecoder()
    claims: list[Claim] = []
    at, tries = 0, 0
    while tries < _MAX_TRIES:
        found = re.search(r"(?:^|(?<=[\s>:(]))[\[{]", text[at:])
        if found is None:
            break
        start = at + found.start()
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            at = start + 1
            continue
        claims += list(_record_claims(value, vocab))
        text = f"{text[:start]}\n{text[end:]}"
        at = start + 1
    return claims, text


def _record_claims(value: Any, vocab: Vocabulary) -> Iterator[Claim]:
    """An incident's status and severity, a service's status and owning team, wherever in the
    value they stand -- values of their kind only."""
    if isinstance(value, list):
        for inner in value:
            yield from _record_claims(inner, vocab)
        return
    if not isinstance(value, dict):
        return
    ident, name = value.get("id") or value.get("incident_id"), value.get("name")
    if isinstance(ident, str) and _INCIDENT.fullmatch(ident.strip()):
        incident = ident.strip().upper()
        status = value.get("status", value.get("incident_status"))
        if status in vocab.incident_statuses:
            yield Claim(incident, "status", status)
        if value.get("severity") in vocab.severities:
            yield Claim(incident, "severity", value["severity"])
    elif isinstance(name, str) and name.strip().lower() in vocab.services:
        service = name.strip().lower()
        if value.get("status") in vocab.service_statuses:
            yield Claim(service, "status", value["status"])
        if value.get("team") in vocab.teams:
            yield Claim(service, "owner", value["team"])
    for inner in value.values():
        if isinstance(inner, dict | list):
            yield from _record_claims(inner, vocab)
