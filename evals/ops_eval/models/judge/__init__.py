"""The LLM judge: evidence graded by a model, trusted only as far as it was measured.

- `verdicts`: what a judge must reply (analysis first, then the verdict) and what is kept of it;
- `prompts`: the instructions, the untrusted-data fence, and each prompt's derived version;
- `client`: one configured judge -- cache, budget, the call, the schema-constrained reply;
- `cache`: verdicts by (judge pin, prompt version, content); errors are never cached;
- `budget`: a token budget (the gate policy's, read by `validation.gate_config.gate_budget`); a
  call that could exceed it is not made;
- `setup`: which judge OPS_JUDGE_* name (none, a LiteLLM model, or the embedded server).

A judge's reply is a verdict only when it validates; anything else is a `JudgeError`, never a
pass and never a fail. `ask_judge` is the MLflow judge's one call (no cache, no budget).

May import: `base`, `core`, and the rest of `models` (the embedded server for a local judge).
"""

from __future__ import annotations

from .client import Asked, Judge, JudgeConfig, JudgeUse
from .prompts import CONVERSATIONS, GRADING, PAIRING
from .verdicts import (
    JudgeError,
    JudgeUnreachable,
    JudgeVerdict,
    PairVerdict,
    Preference,
    Verdict,
    parse_verdict,
)

JUDGE_PROMPT_VERSION = CONVERSATIONS.version
"""The version of the MLflow judge's prompt (derived from its text)."""


def judge_messages(turns: list[dict[str, str]]) -> list[dict[str, str]]:
    """The chat messages grading one conversation: `turns` of question, answer and reference."""
    return CONVERSATIONS.messages({"turns": turns})


def ask_judge(config: JudgeConfig, turns: list[dict[str, str]]) -> Verdict:
    """One conversation graded, with nothing cached and no budget (MLflow's judge)."""
    kept = Judge(config).grade_conversation(turns).kept
    assert isinstance(kept, Verdict)
    return kept


__all__ = [
    "GRADING",
    "JUDGE_PROMPT_VERSION",
    "PAIRING",
    "Asked",
    "Judge",
    "JudgeConfig",
    "JudgeError",
    "JudgeUnreachable",
    "JudgeUse",
    "JudgeVerdict",
    "PairVerdict",
    "Preference",
    "Verdict",
    "ask_judge",
    "judge_messages",
    "parse_verdict",
]
