"""Deterministic scorers of one trial, shared by the live runner and the MLflow evaluation.

- `in_order`: ADK's IN_ORDER trajectory match (expected calls appear in order, whole-args
  equality, extra calls allowed). The runner takes its verdict from ADK's own evaluator; this
  copy serves scorers that must not import ADK's evaluation stack, and a test keeps the two equal.
- `tool_policy`: every write call exactly as expected -- name, arguments, order and count per
  turn -- while extra reads are allowed; a relevance case (no expected call at all) allows none.
- `complete_conversation`: one non-empty terminal response per expected turn (an approval pause
  counts as one).
- `response_facts`: stable ids, statuses, severities and policy words of the reference appear in
  the response, and a deliberate negative is never described as existing.
- `end_state`: the state store after the trial is what the case implies: unchanged without an
  approval, changed exactly as approved, unchanged after a denial (graded like tau-bench, by the
  end state rather than the words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ops_copilot.store import EFFECTS, Snapshot


@dataclass(frozen=True)
class Call:
    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Verdict:
    passed: bool
    detail: str = ""


def _same(a: Call, b: Call) -> bool:
    return a.name == b.name and dict(a.args) == dict(b.args)


def in_order(actual: Sequence[Call], expected: Sequence[Call]) -> bool:
    """True when `expected` is a subsequence of `actual` (ADK's IN_ORDER)."""
    it = iter(actual)
    return all(any(_same(a, e) for a in it) for e in expected)


def tool_policy(
    actual_turns: Sequence[Sequence[Call]],
    expected_turns: Sequence[Sequence[Call]],
    writes: Iterable[str],
) -> Verdict:
    writes = set(writes)
    if not any(expected_turns):
        extra = [c.name for turn in actual_turns for c in turn]
        if extra:
            return Verdict(False, f"no tool fits this request, but it called {', '.join(extra)}")
        return Verdict(True)
    for index, (actual, expected) in enumerate(zip(actual_turns, expected_turns, strict=True), 1):
        got = [c for c in actual if c.name in writes]
        want = [c for c in expected if c.name in writes]
        if len(got) != len(want) or not all(_same(g, w) for g, w in zip(got, want, strict=False)):
            shown = ", ".join(f"{c.name}({dict(c.args)})" for c in got) or "none"
            wanted = ", ".join(f"{c.name}({dict(c.args)})" for c in want) or "none"
            return Verdict(False, f"turn {index}: writes were {shown}; expected {wanted}")
    return Verdict(True)


def complete_conversation(responses: Sequence[str], expected_turns: int) -> Verdict:
    if len(responses) != expected_turns:
        return Verdict(False, f"{len(responses)} responses for {expected_turns} turns")
    empty = [i for i, r in enumerate(responses, 1) if not r.strip()]
    if empty:
        return Verdict(False, f"no response in turn(s) {', '.join(map(str, empty))}")
    return Verdict(True)


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


def response_facts(
    reference: str, response: str, known_ids: Iterable[str], negatives: Iterable[str]
) -> Verdict:
    missing = [
        f
        for f in facts_of(reference, known_ids)
        if not re.search(rf"\b{re.escape(f)}\b", response, re.I)
    ]
    if missing:
        return Verdict(False, f"missing {', '.join(missing)}")
    for neg in negatives:
        if not re.search(rf"\b{re.escape(neg)}\b", reference, re.I):
            continue
        if not re.search(rf"\b{re.escape(neg)}\b", response, re.I):
            return Verdict(False, f"does not name {neg}")
        for sentence in _SENTENCE.split(response):
            if re.search(rf"\b{re.escape(neg)}\b", sentence, re.I) and not _NEGATION.search(
                sentence
            ):
                return Verdict(False, f"describes {neg} as if it existed: {sentence.strip()!r}")
    return Verdict(True)


def end_state(
    before: Snapshot,
    after: Snapshot,
    *,
    approved_writes: Sequence[Call],
    expected_notes: int,
    rationale: str | None,
    audit_rationales: Sequence[str],
) -> Verdict:
    """The store changed exactly as the approved writes say, and nothing else did."""
    from ops_copilot.registry import tool_specs
    from ops_copilot.seed import normalise

    services, incidents = dict(before.services), dict(before.incidents)
    for call in approved_writes:
        table, _, status = EFFECTS[call.name]
        ((arg, kind),) = tool_specs()[call.name].entities.items()
        target = normalise(kind, str(call.args.get(arg, "")))
        (services if table == "services" else incidents)[target] = status
    problems = []
    for name, want in (("service", services), ("incident", incidents)):
        got = after.services if name == "service" else after.incidents
        for entity, status in want.items():
            if got.get(entity) != status:
                problems.append(f"{name} {entity} is {got.get(entity)}, expected {status}")
    if after.audit != before.audit + len(approved_writes):
        problems.append(
            f"{after.audit - before.audit} audit row(s), expected {len(approved_writes)}"
        )
    if rationale is not None and any(r != rationale for r in audit_rationales):
        problems.append("an audit row does not carry the approver's rationale")
    if after.notes != before.notes + expected_notes:
        problems.append(f"{after.notes - before.notes} note(s), expected {expected_notes}")
    return Verdict(not problems, "; ".join(problems))
