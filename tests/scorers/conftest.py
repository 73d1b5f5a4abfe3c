"""Build trial views by hand for one scorer at a time: the real plan of the ops set, a case from
it, and turns and store snapshots as a test wants them."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def plan():
    from ops_eval import load_plan

    return load_plan(REPO / "evals" / "ops.evalset.json")


@pytest.fixture
def trial(plan):
    """trial(case_id, responses=[...], calls=[[...]], ...) -> a TrialView of that case whose
    turns hold the case's expected calls and references; by default the agent made exactly
    the expected calls and answered the reference, and the store did not change."""
    from ops_eval import ToolCall, TrialView, Turn

    def build(case_id, *, calls=None, responses=None, after=None, audit=(), before=None):
        case = next(c for c in plan.cases if c.eval_id == case_id)
        turns = []
        for i, spec in enumerate(case.turns):
            made = calls[i] if calls is not None else [ToolCall(c.name, c.args) for c in spec.calls]
            said = responses[i] if responses is not None else spec.reference
            turns.append(
                Turn(
                    index=spec.index,
                    prompt=spec.prompt,
                    reference=spec.reference,
                    expected=list(spec.calls),
                    calls=made,
                    response=said,
                )
            )
        from ops_copilot.store import StateStore

        start = before or StateStore.create(plan.seed).snapshot()
        return TrialView(
            case=case,
            repeat=1,
            turns=turns,
            before=start,
            after=after or start,
            audit=list(audit),
        )

    return build
