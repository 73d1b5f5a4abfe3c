"""One MLflow evaluation row per conversation (case x repeat), and what a played conversation
returns to MLflow: one response and one tool trajectory per turn.

Pure data, no MLflow import: the rows are the same whether the conversation is played now or
read back from a run record, so the two paths log the same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.calls import ToolCall, Turn
    from ...core.evalset import Case
    from ...results.records import TrialRecord

Key = tuple[str, int]
"""(case id, repeat): which conversation a row is."""


def key_of(inputs: dict[str, Any]) -> Key:
    return str(inputs["case_id"]), int(inputs["repeat"])


def _call(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "args": call.args}


def case_row(case: Case, repeat: int) -> dict[str, Any]:
    """A case's row before it is played: its prompts, the calls and references it expects; a
    scenario's, its starting prompt, plan and goal (its reference is never an expectation)."""
    category = case.meta.category if case.meta else "?"
    if case.scenario is not None and case.start is not None:
        return {
            "inputs": {
                "case_id": case.eval_id,
                "repeat": repeat,
                "turns": [case.start.starting_prompt],
            },
            # the plan is the simulated user's, not an input of the conversation's predict
            "expectations": {
                "goal": case.scenario.goal.model_dump(),
                "conversation_plan": case.start.plan,
            },
            "tags": {
                "case_id": case.eval_id,
                "category": category,
                "repeat": str(repeat),
                "scenario": "true",
            },
        }
    return {
        "inputs": {
            "case_id": case.eval_id,
            "repeat": repeat,
            "turns": [t.prompt for t in case.turns],
        },
        "expectations": {
            "expected_tool_calls": [[_call(c) for c in t.calls] for t in case.turns],
            "references": [t.reference for t in case.turns],
        },
        "tags": {"case_id": case.eval_id, "category": category, "repeat": str(repeat)},
    }


def trial_row(trial: TrialRecord) -> dict[str, Any]:
    """A recorded trial's row: the prompts and expectations of the turns it played."""
    return {
        "inputs": {
            "case_id": trial.case_id,
            "repeat": trial.repeat,
            "turns": [t.prompt for t in trial.turns],
        },
        "expectations": {
            "expected_tool_calls": [[_call(c) for c in t.expected] for t in trial.turns],
            "references": [t.reference for t in trial.turns],
        },
        "tags": {
            "case_id": trial.case_id,
            "category": trial.category,
            "repeat": str(trial.repeat),
            **({"scenario": "true"} if trial.conversation is not None else {}),
        },
    }


def turn_output(turn: Turn) -> dict[str, Any]:
    """One turn as the agent played it. A turn that ended at an approval pause with nothing
    said has the harness's "waiting for approval" response, marked as written by the harness."""
    return {
        "response": turn.response,
        "response_written_by_harness": turn.response_synthesized,
        "tool_calls": [_call(c) for c in turn.calls],
        "waiting_for_approval": [_call(c) for c in turn.pending],
        "approvals_given": list(turn.answered),
    }


def trial_outputs(trial: TrialRecord) -> dict[str, Any]:
    """What a conversation returns: its turns, how it ended when it did not end well, and for
    a scenario who played the user, who ended the conversation and whose failure a limit was."""
    out: dict[str, Any] = {
        "turns": [turn_output(t) for t in trial.turns],
        "status": trial.status,
        "error": trial.error,
    }
    if trial.conversation is not None:
        out["conversation"] = {
            "user": trial.conversation.user,
            "user_turns": [t.prompt for t in trial.turns],
            "agent_turns": [t.response for t in trial.turns],
            "ended_by": trial.conversation.ended_by,
            "blame": trial.conversation.blame,
            "reason": trial.conversation.reason,
        }
    return out
