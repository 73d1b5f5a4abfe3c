"""Judging a response against a reference: every claim of the reference asserted, none
contradicted, no deliberate negative treated as real."""

from __future__ import annotations

from dataclasses import dataclass

from ops_copilot.claims.model import ONE_VALUE, Claim, Vocabulary
from ops_copilot.claims.reading import extract


@dataclass
class Judgement:
    required: list[Claim]
    missing: list[Claim]
    contradicted: list[tuple[Claim, Claim]]  # (what the reference says, what the response says)
    as_existing: list[str]  # declared negatives the response treats as real

    @property
    def applicable(self) -> bool:
        return bool(self.required)

    @property
    def holds(self) -> bool:
        return not (self.missing or self.contradicted or self.as_existing)

    def detail(self) -> str:
        bits = []
        if self.as_existing:
            bits.append("describes " + ", ".join(self.as_existing) + " as if it existed")
        if self.contradicted:
            said = "; ".join(f"{r.show()} (said: {c.show()})" for r, c in self.contradicted)
            bits.append(f"contradicts {said}")
        if self.missing:
            bits.append("does not say " + "; ".join(c.show() for c in self.missing))
        return "; ".join(bits)


def judge(reference: str, response: str, vocab: Vocabulary) -> Judgement:
    """Does the response assert every claim of the reference, and contradict none?"""
    ref, got = extract(reference, vocab), extract(response, vocab)
    required = [c for c in ref if not c.negated or c.attribute == "exists"]
    missing, contradicted = [], []
    for want in ref:
        clash = next((c for c in got if _contradicts(c, want)), None)
        if clash is not None:
            contradicted.append((want, clash))
        elif want in required and want not in got:
            missing.append(want)
    as_existing = sorted(
        {c.entity for c in got if c.entity in vocab.negatives and c.attribute != "exists"}
    )
    return Judgement(required, missing, contradicted, as_existing)


def _contradicts(said: Claim, want: Claim) -> bool:
    if said.attribute != want.attribute:
        return False
    universal = said.entity == f"*{'incident' if want.entity.startswith('INC-') else 'service'}"
    if said.entity != want.entity and not universal:
        return False
    if said.value == want.value:
        return said.negated != want.negated and (not universal or said.negated)
    one = want.attribute in ONE_VALUE and not universal
    return one and not said.negated and not want.negated
