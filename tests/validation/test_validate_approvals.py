"""The validator holds writes and approvals to the agent's write policy: a write that needs
approval only in an approval case, a note only in a memory or approval case (and after
untrusted text only in an approval case), an approval decision only on an approval case, and
only one the tool would accept (a rationale, an approver; a deny carries neither).

Each test copies evals/ (the `evals` fixture), breaks one thing, and runs `ops-eval validate`
through its CLI entry point, asserting the exit code and the exact problem line."""

from __future__ import annotations

import pytest
from validate_cli import calls, case, mutate_ops, validate


def test_write_in_a_non_approval_case(evals, capsys):
    mutate_ops(
        evals,
        lambda d: calls(d, "ambiguous-symptom-runbook").append(
            {"name": "resolve_incident", "args": {"incident_id": "INC-008"}}
        ),
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case ambiguous-symptom-runbook, turn 1, call 2 resolve_incident: "
        "resolve_incident needs approval; it may only be expected in an approval case"
    ]


def test_note_outside_memory_and_approval_cases(evals, capsys):
    mutate_ops(
        evals,
        lambda d: calls(d, "service-status-inventory").append(
            {"name": "save_incident_note", "args": {"incident_id": "INC-002", "note": "x"}}
        ),
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        "save_incident_note writes; it may only be expected in a memory or approval case"
        in (out[0])
    )


def test_approval_decision_on_a_non_approval_case(evals, capsys):
    mutate_ops(
        evals, lambda d: case(d, "open-incidents")["meta"].update(approval={"decision": "deny"})
    )
    code, out, _ = validate(capsys, str(evals))
    assert out == [
        "evals/ops.evalset.json: case open-incidents, meta.approval: "
        "an approval decision belongs only on an approval case"
    ]


def test_a_note_after_untrusted_text_outside_an_approval_case(evals, capsys):
    def change(d):
        turn = case(d, "recall-before-investigating-inc-007")["conversation"][0]
        turn["intermediate_data"]["tool_uses"].append(
            {"name": "save_incident_note", "args": {"incident_id": "INC-007", "note": "seen"}}
        )

    mutate_ops(evals, change)
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case recall-before-investigating-inc-007, turn 1, call 3 "
        "save_incident_note: save_incident_note after recall_incident_context would wait for a "
        "human approval; only an approval case can expect it there"
    ]


SHAPE = '{"decision": "approve", "rationale": "...", "approver": "..."} or {"decision": "deny"}'


RATIONALE = "Inventory is down and blocks checkout."


@pytest.mark.parametrize(
    ("approval", "messages"),
    [
        ("x", [f"meta.approval: must be an approval decision, {SHAPE}; not a string"]),
        (
            {"decision": "approve", "rationale": RATIONALE},
            [
                "meta.approval.approver: names nobody (missing, empty or only invisible "
                "characters); the tool refuses an approval that does not say who gave it"
            ],
        ),
        (
            {"decision": "approve", "rationale": RATIONALE, "approver": "\u200b\u2060 "},
            [
                "meta.approval.approver: names nobody (missing, empty or only invisible "
                "characters); the tool refuses an approval that does not say who gave it"
            ],
        ),
        (
            {"decision": "approve"},
            [
                "meta.approval.rationale: says nothing (missing, empty or only invisible "
                "characters); the tool refuses an approval that does not say why",
                "meta.approval.approver: names nobody (missing, empty or only invisible "
                "characters); the tool refuses an approval that does not say who gave it",
            ],
        ),
        (
            {"decision": "approve", "rationale": "too short", "approver": "ann"},
            ["meta.approval.rationale: needs at least 10 visible characters, has 8"],
        ),
        (
            {"decision": "deny", "rationale": RATIONALE},
            ["meta.approval: a deny decision carries no rationale or approver"],
        ),
    ],
)
def test_an_approval_decision_is_one_the_tool_would_accept(evals, capsys, approval, messages):
    mutate_ops(evals, lambda d: case(d, "restart-needs-approval")["meta"].update(approval=approval))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [f"evals/ops.evalset.json: case restart-needs-approval, {m}" for m in messages]
