"""The `tool_policy` scorer: writes exactly as expected, extra reads allowed, and nothing at all
in a relevance case."""

from __future__ import annotations

from ops_eval import ToolCall
from ops_eval.scorers.tool_policy import tool_policy

RESTART = ToolCall("restart_service", {"name": "inventory"})


def test_extra_reads_are_fine(trial, plan):
    calls = [[ToolCall("list_services"), RESTART, ToolCall("get_service_status", {"name": "x"})]]
    view = trial("restart-needs-approval", calls=calls)
    view.turns[0].paused = [RESTART]
    assert tool_policy(view, plan).passed


def test_a_write_that_must_wait_for_a_human_and_did_not_ask_fails(trial, plan):
    """The approval gate skipped (the mutant `write-skips-approval`): the right write, made
    without the pause, fails even though the tool refused it after."""
    view = trial("restart-needs-approval", calls=[[RESTART]])
    score = tool_policy(view, plan)
    assert score.outcome == "fail"
    assert score.detail == (
        "turn 1: restart_service(name=inventory) ran without asking for approval; the write "
        "policy makes it wait for a human"
    )
    view.turns[0].paused = [RESTART]
    assert tool_policy(view, plan).passed


def test_a_write_with_other_arguments_fails(trial, plan):
    calls = [[ToolCall("restart_service", {"name": "database"})]]
    score = tool_policy(trial("restart-needs-approval", calls=calls), plan)
    assert score.outcome == "fail"
    assert score.detail == (
        "turn 1: writes were restart_service({'name': 'database'}); "
        "expected restart_service({'name': 'inventory'})"
    )


def test_a_repeated_or_unasked_write_fails(trial, plan):
    assert not tool_policy(trial("restart-needs-approval", calls=[[RESTART, RESTART]]), plan).passed
    assert not tool_policy(trial("service-status-inventory", calls=[[RESTART]]), plan).passed


def test_any_call_in_a_relevance_case_fails(trial, plan):
    score = tool_policy(trial("relevance-no-tool", calls=[[ToolCall("list_skills")]]), plan)
    assert score.detail == "no tool fits this request, but it called list_skills"
    assert tool_policy(trial("relevance-no-tool", calls=[[]]), plan).passed


def test_a_write_is_compared_under_the_cases_matchers(trial, plan):
    # memory-note-then-recall declares `contains: OOMKilled` on the note.
    def saved(note):
        return [[ToolCall("save_incident_note", {"incident_id": "INC-002", "note": note})], []]

    reworded = tool_policy(trial("memory-note-then-recall", calls=saved("OOMKilled, 512Mi")), plan)
    assert reworded.passed
    without = tool_policy(trial("memory-note-then-recall", calls=saved("out of memory")), plan)
    assert without.outcome == "fail" and "out of memory" in without.detail
