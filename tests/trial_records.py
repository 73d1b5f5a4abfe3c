"""A trial record built by hand, for the tests of what reads trials (aggregation, the five
outcomes, MLflow's feedback): every scorer the registry has n/a and the gating ones passing,
unless the test names an outcome."""

from __future__ import annotations

from ops_eval import Score, TrialRecord, registered


def trial(case: str, status: str = "passed", repeat: int = 1, **outcomes: Score) -> TrialRecord:
    scores = {
        **{name: Score(outcome="n/a") for name in registered()},  # scorers not named here
        "trajectory": Score(outcome="pass", value=1.0),
        "complete": Score(outcome="pass"),
        "end_state": Score(outcome="pass"),
        "facts": Score(outcome="pass"),
        "tool_policy": Score(outcome="pass"),
        **outcomes,
    }
    return TrialRecord(
        case_id=case,
        category="happy",
        repeat=repeat,
        status=status,
        scores=scores if status != "error" else {},
    )
