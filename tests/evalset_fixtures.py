"""Fixtures of the eval sets (a pytest plugin: tests/conftest.py loads it): the real plan of
the ops set, trial views built by hand from its cases (for one scorer at a time), the same with
the case's own contracts dropped, and a copy of evals/ to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import REPO


@pytest.fixture(scope="session")
def plan():
    """The real plan of the ops set."""
    from ops_eval import load_plan

    return load_plan(REPO / "evals" / "ops.evalset.json")


@pytest.fixture
def trial(plan):
    """trial(case_id, responses=[...], calls=[[...]], ...) -> a TrialView of that case whose
    turns hold the case's expected calls and references; by default the agent made exactly
    the expected calls and answered the reference, and the store did not change."""
    from ops_eval import ToolCall, TrialView, Turn

    def build(
        case_id, *, calls=None, responses=None, after=None, audit=(), before=None, results=False
    ):
        """`results=True`: each read call holds the real tool's result on a fresh workspace (what
        the `grounded` scorer reads); writes, and every call by default, hold none."""
        case = next(c for c in plan.cases if c.eval_id == case_id)
        turns = []
        for i, spec in enumerate(case.turns):
            made = calls[i] if calls is not None else [ToolCall(c.name, c.args) for c in spec.calls]
            if results:
                made = [_with_result(c) for c in made]
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
        from ops_copilot.store.state import StateStore

        start = before or StateStore.create(plan.seed).snapshot()
        return TrialView(
            case=case,
            repeat=1,
            turns=turns,
            before=start,
            after=after or start,
            audit=list(audit),
        )

    def _with_result(call):
        from ops_copilot.definition import write_tools
        from ops_copilot.store.workspace import Workspace
        from ops_eval import DirectContext

        if call.name in write_tools():
            return call
        with DirectContext(workspace=Workspace.fresh(plan.seed)) as ctx:
            return ToolCall(call.name, call.args, result=ctx.call(call.name, **call.args))

    return build


@pytest.fixture
def evals(tmp_path: Path, monkeypatch) -> Path:
    """A copy of evals/'s files (sets, criteria, negatives, contracts) to mutate; the working
    directory is its parent, so problems name it evals/ as they name the real one. The sets'
    locks are left out: a test plants a problem by editing a case, and the lock would add its
    own (an edit without a new version) to the one planted; the tests of the locks copy them
    (`tests/validation/test_case_versions.py`)."""
    import google.adk.evaluation.eval_set  # noqa: F401  (loaded once: mutations parse in-process)

    target = tmp_path / "evals"
    target.mkdir()
    for path in (REPO / "evals").iterdir():
        if path.is_file() and not path.name.endswith(".lock.json"):
            shutil.copy(path, target / path.name)
    monkeypatch.chdir(tmp_path)
    return target


@pytest.fixture
def uncontracted_trial(trial):
    """Like `trial`, with the case's own contracts dropped: a test's set policy is then the only
    rule (the cases' own contracts in ops.evalset.json change as the set grows)."""
    from dataclasses import replace

    from ops_eval.core.contracts import Contracts

    def build(*args, **kwargs):
        view = trial(*args, **kwargs)
        meta = view.case.meta.model_copy(update={"contracts": Contracts()})
        view.case = replace(view.case, meta=meta)
        return view

    return build
