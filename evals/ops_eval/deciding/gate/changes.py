"""What differs between two run records, each with the value or hash on both sides.

A change of what is measured -- the eval set, the cases selected from it, the seed, the
criteria, the scorer set, the LLM judge that grades `llm_judge` checks (its pin and grading
prompt, or whether there was one: a run whose judged checks were skipped is not better than
one whose judge failed them) -- makes two pass rates incomparable: the gate refuses it unless the
user names it (`--allow-change`). A change of what is being tested -- the model, the agent's
instruction, its tool schema -- is what a comparison is for, and is only reported.

Between two records that name each trial's case hash (`results.shared_cases`, version 6), a
change of the eval set or of the cases selected from it no longer makes them incomparable: the
gate compares the cases both played at the same hash and names the others (`SHARED`). A change
that reaches every case -- seed, criteria, scorers, judge -- still refuses, as it does for an
older record, which is compared as a whole.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `ops-eval`'s parser imports this module: no record models at start-up
    from ...results.records import RunRecord

# name -> (what it is, blocking: does a change make the comparison incompatible)
KINDS: dict[str, tuple[str, bool]] = {
    "eval_set": ("eval set file (sha256)", True),
    "cases": ("cases selected from it (sha256 of the ids)", True),
    "seed": ("seed (sha256)", True),
    "criteria": ("trajectory criteria", True),
    "scorers": ("scorer set (sha256)", True),
    "judge": ("LLM judge (pin, grading prompt version)", True),
    "model": ("model", False),
    "instruction": ("agent instruction (sha256 per agent)", False),
    "tool_schema": ("tool schema (sha256)", False),
}
BLOCKING = tuple(name for name, (_, blocking) in KINDS.items() if blocking)
SHARED = ("eval_set", "cases")
"""Blocking kinds that do not block two records with case hashes: compared on shared cases."""


@dataclass(frozen=True)
class Change:
    name: str
    baseline: str
    candidate: str
    shared: bool = False  # compared over the cases both runs share (`SHARED`), not refused

    @property
    def blocking(self) -> bool:
        return KINDS[self.name][1] and not self.shared

    @property
    def what(self) -> str:
        return KINDS[self.name][0]

    def show(self, width: int = 12) -> str:
        """`name: baseline -> candidate`, each long hash in them cut to `width` hex digits; a name
        (a model, an agent, a judge's pin) is never cut: `model: openai/smollm2-135m-instruct ->
        replay:ops`, `cases: 3f2a9c01d4e7… (26 cases) -> 77b0e1c2a9d3… (2 cases)`."""

        def cut(value: str) -> str:
            long_hex = rf"\b[0-9a-f]{{{2 * width + 1},}}\b"
            return re.sub(long_hex, lambda hit: f"{hit.group()[:width]}…", value)

        return f"{self.name}: {cut(self.baseline)} -> {cut(self.candidate)}"


def fingerprint(record: RunRecord) -> dict[str, str]:
    """Every kind of `KINDS` as one comparable string of the record."""
    selection = hashlib.sha256(json.dumps(sorted(record.selected_cases)).encode()).hexdigest()
    criteria = record.criteria
    return {
        "eval_set": record.eval_set_sha256,
        "cases": f"{selection} ({len(record.selected_cases)} cases)",
        "seed": record.seed_sha256,
        "criteria": f"{criteria.match_type} threshold {criteria.threshold:g}",
        "scorers": record.scorers_sha256,
        "judge": _judge(record),
        "model": record.model.name,
        "instruction": ", ".join(f"{a} {h}" for a, h in sorted(record.instruction_sha256.items())),
        "tool_schema": record.tool_schema_sha256,
    }


def _judge(record: RunRecord) -> str:
    use = record.judge
    if use is None:
        return "none"
    return f"{use.pin} {use.prompt_versions.get('grade', '?')}"


def changes(baseline: RunRecord, candidate: RunRecord) -> list[Change]:
    """The kinds that differ, in the order of `KINDS`; between two records with case hashes,
    the `SHARED` kinds are compared over the shared cases."""
    from ...results.shared_cases import case_versions

    hashed = case_versions(baseline) is not None and case_versions(candidate) is not None
    before, after = fingerprint(baseline), fingerprint(candidate)
    return [
        Change(name, before[name], after[name], hashed and name in SHARED)
        for name in KINDS
        if before[name] != after[name]
    ]
