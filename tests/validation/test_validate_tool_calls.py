"""The validator holds each expected tool call to the agent's declared tools: a tool or an
argument it lacks (with a suggestion), a required argument missing, an argument of the
wrong type (an entity id included: every entity argument is declared a string), a note the
tool would refuse, and a happy case that expects no call.

Each test copies evals/ (the `evals` fixture), breaks one thing, and runs `ops-eval validate`
through its CLI entry point, asserting the exit code and the exact problem line."""

from __future__ import annotations

import pytest
from validate_cli import calls, mutate_ops, validate


def test_unknown_tool(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "incident-detail-inc-002")[0].update(name="get_incidnet"))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case incident-detail-inc-002, turn 1, call 1 name: "
        "'get_incidnet' is not a tool of agent ops_copilot (did you mean 'get_incident'?)"
    ]


def test_unknown_argument(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "incident-detail-inc-002")[0]["args"].update(verbose=True))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case incident-detail-inc-002, turn 1, call 1 "
        "get_incident.verbose: 'verbose' is not a parameter of get_incident"
    ]


def test_missing_required_argument(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "diagnose-checkout-with-logs")[0]["args"].pop("query"))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case diagnose-checkout-with-logs, turn 1, call 1 "
        "search_service_logs.query: required argument 'query' is missing"
    ]


@pytest.mark.parametrize(
    ("eval_id", "call", "arg", "value", "message"),
    [
        (
            "memory-note-then-recall",
            0,
            "note",
            {"text": "an object"},
            "save_incident_note.note: must be a string, not an object",
        ),
        (
            "diagnose-checkout-with-logs",
            0,
            "limit",
            "5",
            "search_service_logs.limit: must be an integer, not a string",
        ),
        (
            "diagnose-checkout-with-logs",
            0,
            "limit",
            True,
            "search_service_logs.limit: must be an integer, not a boolean",
        ),
        (
            "open-incidents",
            0,
            "status",
            ["open"],
            "list_incidents.status: must be a string or null, not an array",
        ),
    ],
)
def test_tool_arguments_must_have_their_declared_types(
    evals, capsys, eval_id, call, arg, value, message
):
    mutate_ops(evals, lambda d: calls(d, eval_id)[call]["args"].update({arg: value}))
    code, out, err = validate(capsys, str(evals))
    assert code == 1 and "Traceback" not in err
    assert out == [f"evals/ops.evalset.json: case {eval_id}, turn 1, call {call + 1} {message}"]


def test_a_happy_case_expects_at_least_one_call(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents").clear())
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case open-incidents, meta.category: a happy case must expect "
        "at least one tool call (a case that expects none is a relevance case)"
    ]


@pytest.mark.parametrize(
    ("note", "message"),
    [
        ("", "must be non-empty text (0 characters); save_incident_note refuses it"),
        ("   ", "must be non-empty text (3 characters); save_incident_note refuses it"),
        (
            "x" * 100_000,
            "is longer than {limit} characters (100000 characters); save_incident_note refuses it",
        ),
    ],
)
def test_an_expected_note_the_tool_would_refuse(evals, capsys, note, message):
    from ops_copilot.tools.actions import MAX_NOTE_CHARS

    mutate_ops(evals, lambda d: calls(d, "memory-note-then-recall")[0]["args"].update(note=note))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case memory-note-then-recall, turn 1, call 1 "
        f"save_incident_note.note: {message.format(limit=MAX_NOTE_CHARS)}"
    ]


def test_a_note_of_the_tools_longest_length_is_accepted(evals, capsys):
    from ops_copilot.tools.actions import MAX_NOTE_CHARS

    note = ("Pods OOMKilled after config v42. " * 100)[:MAX_NOTE_CHARS]
    mutate_ops(evals, lambda d: calls(d, "memory-note-then-recall")[0]["args"].update(note=note))
    code, out, _ = validate(capsys, str(evals))
    assert code == 0, out


def test_every_entity_argument_is_declared_a_string():
    """Why `call_rules` needs no check of its own for an entity id that is not a string: the
    declared-type check already reports it, as every entity argument is declared `str` (or
    `str | None`)."""
    from ops_eval.agents import AGENTS

    for agent in AGENTS.values():
        for spec in agent.tools().values():
            for arg in spec.entities:
                assert spec.params[arg].annotation in ("str", "str | None"), (spec.name, arg)


def test_a_non_string_entity_id_is_one_type_problem(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "incident-detail-inc-002")[0]["args"].update(
        incident_id=2))  # fmt: skip
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case incident-detail-inc-002, turn 1, call 1 "
        "get_incident.incident_id: must be a string, not an integer"
    ]
