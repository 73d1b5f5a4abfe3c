"""The `grounded` scorer: the answer's claims against this trial's own tool results (real
results, from the real tools over the seed) -- contradicted, unsupported, a not-found no tool
said, a runbook no tool named: each fails; the same answer on the evidence passes; nothing to
check is n/a, never a pass."""

from __future__ import annotations

import pytest

from ops_eval import ToolCall


@pytest.fixture
def grounded(trial, score, call):
    """grounded(case_id, response, calls=[(name, args) or (name, args, result)...]) -> Score;
    a call without a result gets the real tool's."""

    def run(case_id: str, response: str, calls: list[tuple] | None = None, prompt_of=None):
        made = None
        if calls is not None:
            made = [[ToolCall(c[0], c[1], result=c[2] if len(c) > 2 else call(c[0], **c[1]))
                     for c in calls]]  # fmt: skip
        view = trial(case_id, calls=made, responses=[response])
        if made is None:
            for turn in view.turns:
                turn.calls = [ToolCall(c.name, c.args, result=call(c.name, **c.args))
                              for c in turn.calls]  # fmt: skip
        return score("grounded", view)

    return run


STATUS = "service-status-inventory"
INVENTORY = [("get_service_status", {"name": "inventory"})]


def test_an_answer_on_the_evidence_passes(grounded):
    result = grounded(STATUS, "Inventory is down, owned by fulfilment; INC-002 is unresolved.")
    assert result.outcome == "pass", result.detail


def test_a_status_the_tool_did_not_return_fails_naming_the_call(grounded):
    result = grounded(STATUS, "Inventory is operational.")
    assert result.outcome == "fail"
    assert result.detail == (
        "turn 1: says inventory status operational; get_service_status(name=inventory) "
        "returned status down"
    )


def test_a_claim_no_tool_returned_fails_as_unsupported(grounded):
    result = grounded(STATUS, "Inventory is down; INC-002 is SEV1 and open.", INVENTORY)
    assert result.outcome == "fail"
    assert "says INC-002 severity SEV1; no tool returned INC-002's severity" in result.detail
    assert result.value == pytest.approx(1 / 3)  # inventory's status held


def test_a_claim_the_user_made_needs_no_tool(grounded):
    # recommend-fix-inc-002's prompt says "INC-002 is still open."
    assert grounded("recommend-fix-inc-002", "INC-002 is open.", []).outcome == "pass"
    said_other = grounded("recommend-fix-inc-002", "INC-002 is resolved.", [])
    assert said_other.outcome == "fail"


def test_another_incidents_record_does_not_ground_a_claim_about_this_one(grounded, call):
    record = call("get_incident", incident_id="INC-002")
    shifted = {**record, "incident": {**record["incident"], "id": "INC-003"}}
    answer = "INC-002 is a SEV1 inventory incident with status open."
    assert grounded("incident-detail-inc-002", answer).outcome == "pass"
    moved = grounded(
        "incident-detail-inc-002", answer, [("get_incident", {"incident_id": "INC-002"}, shifted)]
    )
    assert moved.outcome == "fail" and "no tool returned INC-002's severity" in moved.detail


def test_does_not_exist_rests_on_a_not_found(grounded):
    answer = "There is no incident INC-999; it does not exist."
    assert grounded("unknown-incident-inc-999", answer).outcome == "pass"
    swallowed = [("get_incident", {"incident_id": "INC-999"}, {"status": "ok", "incident": None})]
    result = grounded("unknown-incident-inc-999", answer, swallowed)
    assert result.outcome == "fail"
    assert result.detail == "turn 1: says INC-999 does not exist; no tool answered not_found for it"


def test_a_runbook_named_must_be_one_a_tool_returned(grounded):
    answer = "Follow the high-latency runbook."
    assert grounded("ambiguous-symptom-runbook", answer).outcome == "pass"
    empty = [("search_runbooks", {"query": "slow 502"}, {"status": "ok", "runbooks": []})]
    result = grounded("ambiguous-symptom-runbook", answer, empty)
    assert result.outcome == "fail"
    assert "names runbook high-latency; no tool result of the trial does" in result.detail


def test_an_approved_writes_new_status_grounds_the_answer_and_a_stale_read_overrides_it(
    grounded,
):
    applied = {"status": "ok", "applied": True, "target": "inventory", "after": "operational"}
    answer = "Inventory was restarted and is now operational."
    restart = ("restart_service", {"name": "inventory"}, applied)
    assert grounded(STATUS, answer, [restart]).outcome == "pass"
    stale = grounded(STATUS, answer, [restart, INVENTORY[0]])  # the read says down
    assert stale.outcome == "fail" and "returned status down" in stale.detail


def test_nothing_to_check_is_na_never_a_pass(grounded, trial, score):
    assert grounded("relevance-no-tool", "The capital of France is Paris.", []).outcome == "n/a"
    paused = trial("restart-needs-approval")
    paused.turns[0].response_synthesized = True
    paused.turns[0].response = "inventory is operational"  # the harness's text: not evidence
    assert score("grounded", paused).outcome == "n/a"
