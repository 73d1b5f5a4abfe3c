"""The `call_order` scorer: under `read_before_write`, a write whose target was not read before
(normalised, in this or an earlier turn) fails naming the call and the target; no rule is n/a."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ops_eval import ToolCall
from ops_eval.core.contracts import SetContracts
from ops_eval.scorers.call_order import call_order

RESTART = ToolCall("restart_service", {"name": "inventory"})
NOTE = ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "pool"})


@pytest.fixture
def trial(uncontracted_trial):
    return uncontracted_trial


def ordered(plan):
    return replace(plan, set_contracts=SetContracts(order=["read_before_write"]))


def test_no_rule_is_not_applicable(trial, plan):
    score = call_order(trial("list-skills", calls=[[RESTART]]), replace(plan, set_contracts=None))
    assert score.outcome == "n/a" and score.detail == "no order rule declared"


def test_a_write_before_its_read_fails(trial, plan):
    calls = [[RESTART, ToolCall("get_service_status", {"name": "inventory"})]]
    score = call_order(trial("list-skills", calls=calls), ordered(plan))
    assert score.outcome == "fail"
    assert score.detail == (
        "read_before_write broken 1 time(s): turn 1, call 1: restart_service(name=inventory) "
        "before any read of service inventory"
    )


def test_a_read_of_another_target_does_not_count(trial, plan):
    calls = [[ToolCall("get_service_status", {"name": "database"}), RESTART]]
    assert not call_order(trial("list-skills", calls=calls), ordered(plan)).passed


def test_a_normalised_read_before_the_write_passes(trial, plan):
    read = ToolCall("get_service_status", {"name": " Inventory "})
    assert call_order(trial("list-skills", calls=[[read, RESTART]]), ordered(plan)).passed
    logs = ToolCall("search_service_logs", {"service": "inventory", "query": "oom"})
    assert call_order(trial("list-skills", calls=[[logs, RESTART]]), ordered(plan)).passed


def test_a_read_in_an_earlier_turn_counts(trial, plan):
    calls = [[ToolCall("get_incident", {"incident_id": "inc-002"})], [NOTE]]
    assert call_order(trial("memory-note-then-recall", calls=calls), ordered(plan)).passed
    score = call_order(trial("memory-note-then-recall"), ordered(plan))  # note first, then recall
    assert score.outcome == "fail"
    assert "turn 1, call 1: save_incident_note(" in score.detail
    assert score.detail.endswith("before any read of incident INC-002")
