"""The validator's contract rules: one broken contract of each kind is rejected with a message
naming the case, the turn (where one applies), the tool and the argument; a broken set-level
`contracts.yaml` is malformed input naming its path."""

from __future__ import annotations

import pytest
from validate_cli import case, mutate_ops, validate

FILE = "evals/ops.evalset.json"


def with_args(eval_id: str, args: dict):
    def change(d):
        case(d, eval_id)["meta"].setdefault("contracts", {})["args"] = args

    return change


@pytest.mark.parametrize(
    ("eval_id", "args", "line"),
    [
        (
            "incident-detail-inc-002",
            {"get_incidnt": {"incident_id": {"match": "normalised"}}},
            "case incident-detail-inc-002, contracts.args.get_incidnt: 'get_incidnt' is not a "
            "tool of agent ops_copilot",
        ),
        (
            "incident-detail-inc-002",
            {"get_incident": {"incident": {"match": "normalised"}}},
            "case incident-detail-inc-002, contracts.args.get_incident.incident: 'incident' is "
            "not a parameter of get_incident",
        ),
        (
            "incident-detail-inc-002",
            {"get_incident": {"incident_id": {"match": "regex", "pattern": "INC-(00"}}},
            "case incident-detail-inc-002, contracts.args.get_incident.incident_id: regex "
            "/INC-(00/ does not compile: missing ), unterminated subpattern at position 4",
        ),
        (
            "incident-detail-inc-002",
            {"get_incident": {"incident_id": {"match": "regex", "pattern": "INCIDENT-\\d+"}}},
            "case incident-detail-inc-002, contracts.args.get_incident.incident_id: regex "
            "/INCIDENT-\\d+/ matches no incident in the seed",
        ),
        (
            "incident-detail-inc-002",
            {"get_incident": {"incident_id": {"match": "one_of", "values": ["INC-002", "INC-4"]}}},
            "case incident-detail-inc-002, contracts.args.get_incident.incident_id: one_of value "
            "'INC-4' is not incident in the seed nor a negative declared in negatives.yaml",
        ),
        (
            "recommend-fix-inc-002",
            {"get_runbook": {"slug": {"match": "regex", "pattern": "high-.*"}}},
            "case recommend-fix-inc-002, turn 1, call 3 contracts.args.get_runbook.slug: regex "
            "matcher contradicts the expected call: 'service-down' does not match /high-.*/",
        ),
        (
            "memory-note-then-recall",
            {"save_incident_note": {"note": {"match": "contains", "text": "disk full"}}},
            "case memory-note-then-recall, turn 1, call 1 contracts.args.save_incident_note.note: "
            "contains matcher contradicts the expected call: 'Pods OOMKilled at 512Mi after "
            "config v42.' does not contain 'disk full'",
        ),
    ],
)
def test_a_broken_matcher_is_rejected(evals, capsys, eval_id, args, line):  # noqa: F811
    mutate_ops(evals, with_args(eval_id, args))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert f"{FILE}: {line}" in out, out


def test_a_set_level_matcher_that_contradicts_a_case(evals, capsys):  # noqa: F811
    (evals / "contracts.yaml").write_text(
        "args:\n  get_incident:\n    incident_id: {match: regex, pattern: 'INC-00[0-5]'}\n"
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        f"{FILE}: case recall-before-investigating-inc-007, turn 1, call 2 contracts.yaml "
        "args.get_incident.incident_id: regex matcher contradicts the expected call: 'INC-007' "
        "does not match /INC-00[0-5]/" in out
    )


def test_a_broken_contracts_file_is_malformed_input(evals, capsys):  # noqa: F811
    (evals / "contracts.yaml").write_text(
        "args:\n  get_incident:\n    incident_id: {match: fuzzy}\n"
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 2
    assert any(ln.startswith("evals/contracts.yaml: args.get_incident.incident_id") for ln in out)


def test_a_set_level_matcher_naming_no_tool(evals, capsys):  # noqa: F811
    (evals / "contracts.yaml").write_text("args:\n  reboot:\n    host: {match: any}\n")
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert "evals/contracts.yaml: contracts.args.reboot: 'reboot' is not a tool of any agent" in out


def test_a_case_matcher_contradiction_stays_under_the_case_field(evals, capsys):  # noqa: F811
    """A case's own matcher over a set's: the contradiction is the case's."""
    (evals / "contracts.yaml").write_text(
        "args:\n  get_incident:\n    incident_id: {match: normalised}\n"
    )
    mutate_ops(
        evals,
        with_args(
            "recall-before-investigating-inc-007",
            {"get_incident": {"incident_id": {"match": "regex", "pattern": "INC-00[0-5]"}}},
        ),
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert any(
        "turn 1, call 2 contracts.args.get_incident.incident_id: regex matcher" in ln for ln in out
    ), out


def test_each_error_of_a_broken_contracts_file_is_its_own_problem(evals, capsys):  # noqa: F811
    (evals / "contracts.yaml").write_text(
        "mode: SUBSET\nfaults:\n  - {tool: get_incident, kind: error}\n"
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 2
    lines = [ln for ln in out if ln.startswith("evals/contracts.yaml:")]
    assert lines == [
        "evals/contracts.yaml: mode: Value error, is declared per case, not per set",
        "evals/contracts.yaml: faults: Value error, is declared per case, not per set",
    ], out
