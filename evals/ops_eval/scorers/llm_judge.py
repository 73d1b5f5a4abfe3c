"""`llm_judge` response checks: a judge model grades the agent's answer against the case's
rubric, with the turn's question and reference -- fail-closed.

- No check declared: `n/a`.
- No judge (OPS_JUDGE_MODEL unset, or a hosted judge's credential missing): `skipped`, saying
  why. Never a pass: the gate turns it into a declared warning.
- A judge that gives no valid verdict for a check -- unreachable, a reply that does not validate
  as a `JudgeVerdict`, or a call the token budget refused (`budget_blocked`): `error`, which
  counts as not passing. Errors are never cached.
- A turn the agent gave no answer of its own (never reached, the harness wrote it at an approval
  pause, empty): that check fails -- the judge never grades text the harness wrote.
- Else the check passes when the judge passes it; a verdict from the cache says so.
- A conversation scenario's check grades the whole conversation -- judged task success: the
  question is the user's plan and every message the user sent, the response every answer the
  agent gave itself (never a user's message, never a pause text the harness wrote).

The judge is the run's (`plan.judge`, opened for the run by `judging.run.judged` with its cache
and budget), so every trial's calls count against one budget. This module knows the judge only
through `core.judge_port`; what it runs of the judge's code through `plan.judge` -- the call,
the prompts, the cache key, the budget, the reply parsed -- is declared (`DIGEST_FOLLOWS`), so
the scorer's digest still covers it (`base.code_digest`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.case_checks import describe, positioned, revalidated, turn_of
from ._response import answer_at, checks_of
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView

DIGEST_FOLLOWS = ("ops_eval.judging.client",)
"""The judge's code this scorer runs through `plan.judge` (`Judge.grade`), for its digest."""


@scorer(
    name="llm_judge",
    needs=("turns",),
    uses_judge=True,
    applies=checks_of("llm_judge"),
    passes_when="each declared `llm_judge` check: the judge passes the answer of its turn against "
    "the rubric (skipped, saying why, without a judge; an error when the judge gives no valid "
    "verdict or the budget refuses the call)",
)
def llm_judge(trial: TrialView, plan: Plan) -> Score:
    from ..core.judge_port import UNCONFIGURED, JudgeError, NoJudge

    case = trial.case
    if none := checks_of("llm_judge")(case, plan):
        return Score(outcome="n/a", detail=none)
    checks = positioned(case, "llm_judge")
    judge = plan.judge
    if judge is None or isinstance(judge, NoJudge):
        return Score.skipped(judge.reason if judge is not None else UNCONFIGURED)
    errors, failing, said = [], [], []
    for position, declared in checks:
        check = revalidated(case, declared)
        where = f"response[{position}]"
        if isinstance(check, str):
            errors.append(f"{where} {describe(declared)}: invalid, no verdict: {check}")
            continue
        if case.scenario is not None:
            label, graded = "the conversation", conversation_graded(trial)
        else:
            index = turn_of(case, check)
            turn, why = answer_at(trial, index)
            label = f"turn {index}"
            graded = (turn.prompt, turn.answer, turn.reference or None) if turn else why
        if isinstance(graded, str):
            failing.append(f"{label}: {where}: {graded}")
            continue
        question, response, reference = graded
        try:
            asked = judge.grade(
                rubric=check.rubric,  # type: ignore[attr-defined]
                question=question,
                response=response,
                reference=reference,
            )
        except JudgeError as exc:
            errors.append(f"{label}: {where}: {exc}")
            continue
        cached = " (cached verdict)" if asked.cached else ""
        line = f"{label}: {where}{cached}: {asked.kept.rationale}"
        (said if asked.kept.passed else failing).append(line)  # type: ignore[union-attr]
    if errors:
        return Score.error("; ".join(errors + failing))
    if failing:
        return Score.of(False, "; ".join(failing))
    return Score.of(True, "; ".join(said))


def conversation_graded(trial: TrialView) -> tuple[str, str, None] | str:
    """(question, response, no reference) of a scenario's conversation for the judge, or why
    the agent gave no answer of its own to grade."""
    from ..core.calls import has_content

    start = trial.case.start
    assert start is not None
    said = [
        f"Answer to message {t.index}: {t.answer}"
        for t in trial.turns
        if not t.response_synthesized and has_content(t.answer)
    ]
    if not said:
        return "the agent gave no answer of its own in the conversation"
    asked = "\n".join(f"Message {t.index}: {t.prompt}" for t in trial.turns)
    question = f"The user's goal: {start.plan}\n\nThe user's messages, in order:\n{asked}"
    return question, "\n\n".join(said), None
