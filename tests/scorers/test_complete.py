"""The `complete` scorer: one terminal response with content per expected turn."""

from __future__ import annotations

import json

import pytest

from ops_eval.core.calls import has_content
from ops_eval.scorers.complete import complete


def test_a_response_per_turn_passes(trial, plan):
    assert complete(trial("memory-note-then-recall"), plan).passed


def test_an_empty_response_fails(trial, plan):
    score = complete(trial("memory-note-then-recall", responses=["Saved.", "  "]), plan)
    assert score.outcome == "fail" and score.detail == "no answer with content (turn 2: '  ')"


EMPTY_FENCE = "```json\n```"  # what the 1.5B model's answers were once ADK took the call out


@pytest.mark.parametrize(
    "answer",
    [
        "",
        " \n\t ",
        EMPTY_FENCE,
        "```json\n\n```",
        "```\n```",
        "~~~\n~~~",
        "<p></p>",
        "<tool_response>\n</tool_response>",
        "&nbsp;",
        "**  **",
        "---",
        "# ",
        "> ",
        "- \n- ",
        "[]()",
        "| | |\n|---|---|",
        "{}",
        "```json\n{}\n```",
        '<tool_call>\n{"name": "list_skills", "arguments": {}}\n</tool_call>',
        "<|im_end|>",
    ],
)
def test_an_answer_with_nothing_in_it_fails(trial, plan, answer):
    assert not has_content(answer)
    score = complete(trial("memory-note-then-recall", responses=["Saved.", answer]), plan)
    assert score.outcome == "fail" and score.detail.startswith("no answer with content (turn 2")


@pytest.mark.parametrize(
    "answer",
    [
        "Inventory is down.",
        "0",
        "INC-002",
        '```json\n{"status": "down"}\n```',
        "<p>Inventory is down.</p>",
        "**down**",
        "- INC-002\n- INC-009",
        "été",
        "```INC-002```",
        "```down```",
        "<INC-002>",
        "✅",
        "<p>Inventory is down.</p>",
    ],
)
def test_an_answer_that_says_something_passes(trial, plan, answer):
    assert has_content(answer)
    assert complete(trial("memory-note-then-recall", responses=["Saved.", answer]), plan).passed


def test_a_missing_turn_fails(trial, plan):
    view = trial("memory-note-then-recall")
    view.turns = view.turns[:1]
    score = complete(view, plan)
    assert score.outcome == "fail" and score.detail == "1 responses for 2 turns"


def test_an_answer_that_only_echoes_a_tool_result_fails(trial, plan):
    """Qwen2.5-Coder-1.5B answered with the tool's own reply: in the chat template's markup, or
    as the JSON the tool returned. That is no answer, however much it holds."""
    view = trial("list-skills", results=True)
    (call,) = view.turns[0].calls
    as_returned = json.dumps(call.result)
    for echoed in (
        f"<tool_response>\n{as_returned}\n</tool_response>",
        '<tool_response>\n{"error": "This tool call is rejected."}\n</tool_response>',
        as_returned,
        f"```json\n{json.dumps(call.result['skills'])}\n```",
    ):
        score = complete(trial("list-skills", responses=[echoed], results=True), plan)
        assert score.outcome == "fail" and "only echoes a tool result" in score.detail, echoed


def test_an_answer_of_its_own_around_or_beside_tool_text_passes(trial, plan):
    for said in (
        "Two skills: incident-triage and remediation.",
        '```json\n{"skills": ["incident-triage", "remediation"]}\n```',  # not what a tool returned
        "The runbook reboot-everything does not exist.\n<tool_response>{}</tool_response>",
    ):
        assert complete(trial("list-skills", responses=[said], results=True), plan).passed, said


def test_a_tools_message_to_the_model_repeated_as_the_reply_is_no_answer(trial, plan):
    view = trial("unknown-runbook-reboot-everything", results=True)
    (call,) = view.turns[0].calls
    told = call.result["message"]  # "... tell the user so, and do not guess ..."
    score = complete(
        trial("unknown-runbook-reboot-everything", responses=[told], results=True), plan
    )
    assert score.outcome == "fail" and "a tool's message to the model" in score.detail
    own = f"The runbook does not exist. {told}"  # a sentence of its own first: an answer
    assert complete(
        trial("unknown-runbook-reboot-everything", responses=[own], results=True), plan
    ).passed


def test_a_neutral_tool_message_repeated_tells_the_user_something(trial, plan):
    from ops_eval.core.echo import echo

    assert (
        echo(
            "No runbook matches these words.",
            [{"matches": [], "message": "No runbook matches these words."}],
        )
        is None
    )


def test_template_markup_copied_without_its_pairs_is_still_an_echo(trial, plan):
    view = trial("list-skills", results=True)
    (call,) = view.turns[0].calls
    copied = (
        '<tools>\n{"type": "function", "function": {"name": "list_skills"}}\n</tools>\n<'
        + json.dumps(call.result)
        + "\n</tool_response>"
    )
    score = complete(trial("list-skills", responses=[copied], results=True), plan)
    assert score.outcome == "fail" and "a tool result's JSON" in score.detail


@pytest.mark.parametrize(
    "written",
    [
        "<tools>\n  <function>\n    <name>search_runbooks</name>\n    <arguments><query>leak"
        "</query></arguments>\n  </function>\n</tools>",
        '<tools>\n  <function name="get_runbook" arguments=\'{"slug": "memory-leak"}\'/>\n</tools>',
    ],
)
def test_a_call_written_out_in_tools_markup_is_no_answer(trial, plan, written):
    score = complete(trial("ambiguous-symptom-runbook", responses=[written]), plan)
    assert score.outcome == "fail"  # markup alone, or a call in <tools> markup


def test_the_users_message_restated_is_no_answer(trial, plan):
    view = trial("recommend-fix-inc-002")
    asked = view.turns[0].prompt
    restated = "The incident " + asked.replace("INC-002 is", '"INC-002" is', 1)
    score = complete(trial("recommend-fix-inc-002", responses=[restated]), plan)
    assert score.outcome == "fail" and "the user's own message, restated" in score.detail
    answered = f"You asked: {asked} The fix: revert inventory-config v42, then restart inventory."
    assert complete(trial("recommend-fix-inc-002", responses=[answered]), plan).passed


@pytest.mark.parametrize(
    "written",
    [
        '{\n  "name": "restart_service",\n  "arguments": {"name": "inventory"}\n}',
        '```json\n{"name": "resolve_incident", "arguments": {"incident_id": "INC-0',  # cut off
    ],
)
def test_a_call_written_out_as_json_is_no_answer(trial, plan, written):
    score = complete(trial("ambiguous-symptom-runbook", responses=[written]), plan)
    assert score.outcome == "fail" and "a tool call written out as JSON" in score.detail
