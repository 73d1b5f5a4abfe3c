"""Response facts: the stable facts of each turn's reference -- incident ids, severities,
statuses, policy words and seed ids -- appear in the response, and a deliberate negative is
named and never described as if it existed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .base import Score, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..plan import Plan

_STATUS_WORDS = ("open", "investigating", "resolved", "operational", "degraded", "down")
_POLICY_WORDS = ("approval", "rejected")
_NEGATION = re.compile(
    r"\b(not|no|never|doesn't|does not|isn't|is not|cannot|can't|couldn't|could not|unknown|"
    r"nonexistent|non-existent|missing)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def facts_of(reference: str, known_ids: Iterable[str]) -> list[str]:
    """The stable facts a reference asserts: ids from the seed, severities, statuses, policy."""
    text = reference.lower()
    facts = sorted(set(re.findall(r"\bINC-\d{3}\b", reference)))
    facts += sorted(set(re.findall(r"\bSEV[1-3]\b", reference)))
    facts += [w for w in _STATUS_WORDS + _POLICY_WORDS if re.search(rf"\b{w}\b", text)]
    facts += sorted(
        i
        for i in set(known_ids)
        if not i.startswith("INC-") and re.search(rf"\b{re.escape(i)}\b", text)
    )
    return facts


def turn_problem(
    reference: str, response: str, known_ids: Iterable[str], negatives: Iterable[str]
) -> str | None:
    """What is wrong with one turn's response against its reference, or None."""
    missing = [
        f
        for f in facts_of(reference, known_ids)
        if not re.search(rf"\b{re.escape(f)}\b", response, re.I)
    ]
    if missing:
        return f"missing {', '.join(missing)}"
    for neg in negatives:
        if not re.search(rf"\b{re.escape(neg)}\b", reference, re.I):
            continue
        if not re.search(rf"\b{re.escape(neg)}\b", response, re.I):
            return f"does not name {neg}"
        for sentence in _SENTENCE.split(response):
            if re.search(rf"\b{re.escape(neg)}\b", sentence, re.I) and not _NEGATION.search(
                sentence
            ):
                return f"describes {neg} as if it existed: {sentence.strip()!r}"
    return None


@scorer(
    name="facts",
    needs=("turns",),
    passes_when="the reference's ids, statuses, severities and policy words appear; a deliberate "
    "negative is never described as existing",
)
def facts(trial: TrialView, plan: Plan) -> Score:
    seed = plan.seed
    known = seed.ids("service") | seed.ids("runbook") | seed.ids("skill")
    bad = []
    for turn in trial.turns:
        problem = turn_problem(turn.reference, turn.response, known, plan.negatives)
        if problem:
            bad.append(f"turn {turn.index}: {problem}")
    return Score.of(not bad, "; ".join(bad))
