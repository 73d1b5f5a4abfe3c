"""What the harness below the judge knows of it, declared here, low, so that no lower layer needs
the judge itself (its client, cache, budget and setup): the error a judge call ends in
(`JudgeError`), why a run has no judge (`NoJudge`), and what a command's judge did, as its record
keeps it (`JudgeUse`). The judge raises, returns and fills these; the run record, the gate and
the `llm_judge` scorer read them.

The definitions are the judge's own, only declared lower (`base.code_digest` hashes them by name
and content, not by module: a scorer's digest does not change because they moved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..base.strict import Strict

UNCONFIGURED = "no judge configured (OPS_JUDGE_MODEL is unset)"


class JudgeError(RuntimeError):
    """The judge gave no valid verdict (unreachable, refused, malformed, over budget): the
    score is an error, not a verdict, and nothing is cached."""


@dataclass(frozen=True)
class NoJudge:
    """Why there is no judge: `unconfigured` (OPS_JUDGE_MODEL unset) or `no_credential`."""

    reason: str
    kind: Literal["unconfigured", "no_credential"] = "unconfigured"


class JudgeUse(Strict):
    """What a command's judge did, as its record keeps it."""

    pin: str
    prompt_versions: dict[str, str]
    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    tokens: int = 0
    budget_tokens: int | None = None
    budget_source: str = ""
    budget_problem: str | None = None
    budget_blocked: int = 0
