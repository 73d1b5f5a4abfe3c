"""What a row of `ops-eval mlflow` shows of its conversation: an unapproved restart pauses with
the harness's text (through the real runner: the confirmation span, the state unchanged, the
pause never graded), the agent's own text wins over it, and a scenario row shows its
conversation and who ended it."""

from __future__ import annotations

from mlflow_readback import feedback, outputs, span_names

from ops_eval import ToolCall
from ops_eval.models.stand_ins import ScriptedLlm

PAUSE = "Waiting for approval: restart_service(name=inventory). No state change."


def restart_model(*, say: str | None = None) -> ScriptedLlm:
    """One model call on the restart prompt: restart_service(name=inventory), and `say` beside
    it when given. A second call would exhaust the script (the trial would error)."""
    call = ToolCall("restart_service", {"name": "inventory"})
    return ScriptedLlm(script=[[say, call] if say else call])


def test_an_unapproved_restart_pauses_with_the_harness_text(track, seed):
    from ops_copilot.store.workspace import Workspace

    model = restart_model()
    run = track(["--cases", "restart-needs-approval"], model)
    assert model.calls == 1
    trace = run.trace_of("restart-needs-approval")
    (turn,) = outputs(trace)["turns"]
    assert turn["response"] == PAUSE
    assert turn["response_written_by_harness"] is True
    assert turn["waiting_for_approval"] == [
        {"name": "restart_service", "args": {"name": "inventory"}}
    ]
    assert turn["approvals_given"] == []
    names = span_names(trace)
    assert "execute_tool restart_service" in names and "adk_request_confirmation" in names
    pause = next(s for s in trace.data.spans if s.name == "adk_request_confirmation")
    assert pause.inputs["originalFunctionCall"] == {
        "name": "restart_service",
        "args": {"name": "inventory"},
    }
    assert pause.outputs["still_waiting"] is True
    (trial,) = run.record.trials
    assert trial.state_after == Workspace.fresh(seed).store.snapshot().model_dump()
    assert trial.state_after["services"]["inventory"] == "down"
    assert trial.turns[0].model_calls == 1
    assert trial.status == "passed"  # exactly what the case expects
    verdicts = feedback(trace)
    assert verdicts["tool_trajectory"].value == 1.0 and verdicts["tool_policy"].value is True
    assert verdicts["complete_conversation"].value is True  # the pause counts as an answer
    # The harness's pause text is never graded: no facts to check, so no course value for
    # response_facts, and a course metric without a value is never READY.
    assert verdicts["response_facts"].value is None
    assert verdicts["response_facts"].rationale.startswith("not applicable")
    assert run.code == 1 and "  response_facts: no row had a value" in run.out.splitlines()


def test_the_agents_own_text_wins_over_the_pause_text(track):
    said = "Restarting inventory needs an approval; I have asked for it."
    model = restart_model(say=said)
    run = track(["--cases", "restart-needs-approval"], model)
    assert model.calls == 1
    (turn,) = outputs(run.trace_of("restart-needs-approval"))["turns"]
    assert turn["response"] == said
    assert turn["response_written_by_harness"] is False
    assert turn["waiting_for_approval"] == [
        {"name": "restart_service", "args": {"name": "inventory"}}
    ]
    assert run.record.trials[0].state_after["services"]["inventory"] == "down"


def test_a_scenario_row_shows_its_conversation_and_who_ended_it(track):
    from scenario_models import RISK_LINES, SCENARIOS, duet

    case = "scn-restart-after-risk"
    run = track(["--set", str(SCENARIOS), "--cases", case, "--user", "model"], duet(RISK_LINES))
    # READY: a scenario has no script for the course's trajectory metrics; its goal gates
    assert run.code == 0 and ": READY" in run.out, run.out
    conversation = outputs(run.trace_of(case))["conversation"]
    assert conversation["user"] == "model" and conversation["ended_by"] == "user"
    assert conversation["user_turns"][1:] == RISK_LINES[:2]
    assert conversation["agent_turns"][-1] == (
        "Inventory was restarted with your approval and is now operational."
    )
