"""Claims about the answer as a whole (approval state, root cause, runbook, skills), about the
deliberate negatives (that they do not exist), and the fields of a structured triage report."""

from __future__ import annotations

import json
import re

from ops_copilot.claims.model import ANSWER, Claim, Vocabulary
from ops_copilot.claims.wording import (
    ABSENT_AFTER,
    ABSENT_BEFORE,
    APPROVED,
    CONDITIONAL,
    PENDING,
    QUOTES,
    REJECTED,
    negated,
    word,
)
from ops_copilot.seed.loading import normalise


def existence(body: str, vocab: Vocabulary) -> list[Claim]:
    """For each declared negative the sentence names: does it say the thing does not exist?"""
    found = []
    for neg in vocab.negatives:
        for m in re.finditer(word(neg), body, re.I):
            before, after = body[: m.start()].rstrip(QUOTES), body[m.end() :].lstrip(QUOTES)
            if ABSENT_BEFORE.search(before) or ABSENT_AFTER.search(after):
                found.append(Claim(neg, "exists", "yes", negated=True))
    return found


def answer_claims(sentence: str, vocab: Vocabulary) -> list[Claim]:
    """Claims about the answer as a whole: approval state, root cause, runbook, skills."""
    found = []
    for pattern, value in ((PENDING, "pending"), (REJECTED, "rejected"), (APPROVED, "given")):
        for m in pattern.finditer(sentence):
            if value != "pending" and CONDITIONAL.search(sentence[: m.start()]):
                continue  # "once it is approved" says what will happen, not what did
            found.append(Claim(ANSWER, "approval", value, negated(sentence, m.start())))
    found += root_causes(sentence, vocab)
    for slug in vocab.runbooks - vocab.negatives:  # a negative's only claim is that it is not
        # "the service-down runbook", "runbook: service-down", "| Runbook | service-down |"
        pattern = rf"{word(slug)}\s+runbook|runbook(?:\s+named|\s*[:|])?\s+{word(slug)}"
        for m in re.finditer(pattern, sentence, re.I):
            found.append(Claim(ANSWER, "runbook", slug, negated(sentence, m.start())))
    if re.search(r"\bskills?\b", sentence, re.I):
        for skill in vocab.skills - vocab.negatives:
            for m in re.finditer(word(skill), sentence, re.I):
                found.append(Claim(ANSWER, "skill", skill, negated(sentence, m.start())))
    return found


def root_causes(sentence: str, vocab: Vocabulary) -> list[Claim]:
    """'The root cause is INC-007 ...', 'Root cause: INC-007', 'INC-007 is the root cause': an
    incident id in the phrase wins over a service name ('the cache eviction storm, INC-007')."""
    found = []
    for m in re.finditer(r"\broot cause(?:\s+of\s+[\w\s-]{1,30}?)?\s*(?:is|was|:|=)(\s+not)?"
                         r"\s*(.{0,50})", sentence, re.I):  # fmt: skip
        phrase = re.split(r"[;.]", m.group(2))[0]
        incident = re.search(r"\bINC-\d{3}\b", phrase, re.I)
        service = re.match(r"\s*(?:the\s+)?([a-z][\w-]*)", phrase, re.I)
        if incident:
            found.append(Claim(ANSWER, "root cause", incident.group(0).upper(), bool(m.group(1))))
        elif service and service.group(1).lower() in vocab.services:
            found.append(Claim(ANSWER, "root cause", service.group(1).lower(), bool(m.group(1))))
    for m in re.finditer(r"\b(INC-\d{3})\s+(?:is|was)\s+(not\s+)?the\s+root cause\b",
                         sentence, re.I):  # fmt: skip
        found.append(Claim(ANSWER, "root cause", m.group(1).upper(), bool(m.group(2))))
    return found


def triage_report(text: str) -> list[Claim] | None:
    """The claims of a structured triage report (JSON), field by field."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser reads
        return None
    if not isinstance(data, dict) or not isinstance(data.get("incident_id"), str):
        return None
    incident = normalise("incident", data["incident_id"])
    claims = []
    if isinstance(data.get("severity"), str):
        claims.append(Claim(incident, "severity", data["severity"].strip().upper()))
    if isinstance(data.get("service"), str):
        claims.append(Claim(incident, "service", normalise("service", data["service"])))
    if isinstance(data.get("runbook"), str):
        claims.append(Claim(ANSWER, "runbook", normalise("runbook", data["runbook"])))
    return claims
