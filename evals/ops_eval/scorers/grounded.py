"""Grounded answers: what the agent's answer claims, this trial's tool results say. `facts`
compares an answer with the case's reference; this compares it with the evidence the agent
itself was given, so an answer right about the seed but wrong about what its tools returned --
a status a stale cache answered differently, a record of another incident, an "it does not
exist" no tool said -- fails here even when it matches the reference.

Read with the claims reader (`ops_copilot.claims`) and the answer guard's reading of tool
results (`answer_guard.seed_facts`: the looked-up seed fields, the latest winning; an approved
write's new status), turn by turn, the evidence of earlier turns carried over:

- a **status, severity or owner** claim must agree with what a tool returned for that entity
  (its looked-up field); when no tool looked it up, the claim must be made by the text of a
  tool result (an incident summary saying "inventory is down") or by the user's own messages,
  else it is unsupported;
- "**X does not exist**" must rest on a tool's `not_found` for X;
- a **runbook or skill** named must be one a tool result of the trial names.

Not grounded here: approval and root-cause claims (they rest on a whole result, not a field),
turns whose text the harness wrote (the approval pause), and answers that only echo a tool
result (`core.echo`: the tool's words, grounded by being them). A case whose references make no
such claim is `n/a` (`_applies`), and so is a trial whose answers make none: it never passes on
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..agents.ops_guards import ANSWER, Claim, Vocabulary, extract
from ..core.echo import echo
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.calls import ToolCall
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView

_FIELDS = {"status", "severity", "owner"}
_NAMED = {"runbook", "skill"}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def _missing(call: ToolCall) -> str | None:
    """The id a `not_found` result says does not exist, normalised as claims are."""
    result = call.result
    if isinstance(result, dict) and result.get("status") == "not_found":
        from ..agents.ops_world import normalise

        kind, ident = result.get("entity"), result.get("id")
        if isinstance(kind, str) and isinstance(ident, str):
            return normalise(kind, ident)  # type: ignore[arg-type]
    return None


class _Evidence:
    """What the trial's tool results and the user's messages have said so far."""

    def __init__(self, plan: Plan, vocab: Vocabulary) -> None:
        self.plan, self.vocab = plan, vocab
        self.reads: list[Any] = []
        self.absent: set[str] = set()
        self.names: set[str] = set()
        self.from_user: set[Claim] = set()
        self.in_results: set[Claim] = set()
        self.facts: dict[tuple[str, str], tuple[str, str]] = {}

    def add_turn(self, prompt: str, calls: list[ToolCall]) -> None:
        from ..agents.ops_guards import Read, seed_facts

        self.from_user |= set(extract(prompt, self.vocab))
        for call in calls:
            self.reads.append(Read(call.show(), call.name, dict(call.args), call.result, (), ()))
            if (missing := _missing(call)) is not None:
                self.absent.add(missing)
            texts = list(_strings(call.result))
            self.names |= {s.strip().lower() for s in texts}
            self.in_results |= set(extract("\n".join(texts), self.vocab))
        self.facts = seed_facts(self.reads, self.plan.seed)  # once per turn, the latest winning

    def problem(self, claim: Claim) -> str | None:
        """Why `claim` is not grounded, or None when it is (or is not a claim read here)."""
        if claim.attribute == "exists":
            if claim.negated and claim.entity not in self.absent:
                return f"says {claim.entity} does not exist; no tool answered not_found for it"
            return None
        if claim.entity == ANSWER:
            if claim.attribute in _NAMED and not claim.negated and claim.value not in self.names:
                return f"names {claim.attribute} {claim.value}; no tool result of the trial does"
            return None
        if claim.attribute not in _FIELDS:
            return None
        known = self.facts.get((claim.entity, claim.attribute))
        if known is not None:
            value, where = known
            if (claim.value.casefold() == value.casefold()) == claim.negated:
                return f"says {claim.show()}; {where} returned {claim.attribute} {value}"
            return None
        if claim in self.from_user or claim in self.in_results:
            return None  # the user said it, or a tool result's text does (an incident summary)
        return f"says {claim.show()}; no tool returned {claim.entity}'s {claim.attribute}"

    @staticmethod
    def checked(claim: Claim) -> bool:
        if claim.entity == ANSWER:
            return claim.attribute in _NAMED and not claim.negated
        return claim.attribute in _FIELDS or (claim.attribute == "exists" and claim.negated)


def _applies(case: Case, plan: Plan) -> str | None:
    """A scripted case applies when a turn the agent answers itself (not one expected to end at
    an approval pause) has a reference making a claim read here: what a faithful answer would
    claim. A scenario always applies; its answers decide (n/a when they claim nothing)."""
    if case.scenario is not None:
        return None
    from ..core.call_policy import answered_turns

    vocab = Vocabulary.of(plan.seed, plan.negatives)
    for turn in answered_turns(case):
        if any(_Evidence.checked(c) for c in extract(turn.reference, vocab)):
            return None
    return "no reference of a turn the agent answers claims what a tool result grounds"


@scorer(
    name="grounded",
    applies=_applies,
    needs=("turns",),
    reads_answers=True,
    passes_when="every status, severity and owner the answers claim agrees with what this "
    "trial's tools returned (or the user said), every 'does not exist' rests on a not_found, "
    "every runbook or skill named was returned by a tool; n/a when no answer makes such a claim",
)
def grounded(trial: TrialView, plan: Plan) -> Score:
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    evidence = _Evidence(plan, vocab)
    bad: list[str] = []
    checked = 0
    results: list[Any] = []
    for turn in trial.turns:
        evidence.add_turn(turn.prompt, list(turn.calls))
        results += [c.result for c in turn.calls if c.result is not None]
        if turn.response_synthesized or echo(turn.answer, results, turn.prompt):
            continue  # the harness's pause text; a tool's own words echoed back
        for claim in extract(turn.answer, vocab):
            if not evidence.checked(claim):
                continue
            checked += 1
            if (why := evidence.problem(claim)) is not None:
                bad.append(f"turn {turn.index}: {why}")
    if not checked:
        return Score(outcome="n/a", detail="no answer claims a status, severity, owner, "
                     "runbook, skill or that something does not exist")  # fmt: skip
    return Score.of(not bad, "; ".join(dict.fromkeys(bad)), value=(checked - len(bad)) / checked)
