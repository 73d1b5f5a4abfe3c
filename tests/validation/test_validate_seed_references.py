"""The validator holds an eval set to the seed: an id the seed lacks (with a suggestion), a
declared negative that now exists, an incident a prompt mentions, a gold replay of the
expected calls that fails (or a write that would be refused before approval), a triage
reference that disagrees with the seed, and an empty reference response.

Each test copies evals/ (the `evals` fixture), breaks one thing, and runs `ops-eval validate`
through its CLI entry point, asserting the exit code and the exact problem line."""

from __future__ import annotations

import json

from validate_cli import calls, case, load, mutate_ops, save, validate

from ops_copilot.seed.loading import load_seed


def test_dangling_incident_id(evals, capsys):
    mutate_ops(
        evals, lambda d: calls(d, "recommend-fix-inc-002")[0]["args"].update(incident_id="INC-020")
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        "evals/ops.evalset.json: case recommend-fix-inc-002, turn 1, call 1 "
        "get_incident.incident_id: 'INC-020' is not an incident in the seed" in out[0]
    )


def test_misspelt_runbook_gets_a_suggestion(evals, capsys):
    mutate_ops(
        evals, lambda d: calls(d, "recommend-fix-inc-002")[2]["args"].update(slug="service-dwn")
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out[0].startswith(
        "evals/ops.evalset.json: case recommend-fix-inc-002, turn 1, call 3 get_runbook.slug: "
        "'service-dwn' is not a runbook in the seed (did you mean 'service-down'?)"
    )


def test_negative_that_now_exists_in_the_seed(evals, seed_copy, capsys, monkeypatch):
    path = seed_copy / "incidents.yaml"
    path.write_text(path.read_text().replace("id: INC-010", "id: INC-999"))
    monkeypatch.setenv("OPS_SEED_DIR", str(seed_copy))
    load_seed(seed_copy)  # the seed copy itself is valid
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        "evals/negatives.yaml: incident: incident 'INC-999' is declared a deliberate negative "
        "but exists in the seed"
    ) in out


def test_gold_replay_catches_an_unexecutable_call(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents")[0]["args"].update(status="broken"))
    code, out, _ = validate(capsys, str(evals))
    assert out == [
        "evals/ops.evalset.json: case open-incidents, turn 1, call 1 list_incidents: "
        "gold replay: invalid_argument: status must be one of open, investigating, resolved."
    ]


def test_triage_reference_must_be_a_report_that_agrees_with_the_seed(evals, capsys):
    path = evals / "triage-report.evalset.json"
    data = load(path)
    turn = data["eval_cases"][0]["conversation"][0]
    report = json.loads(turn["final_response"]["parts"][0]["text"])
    report["severity"] = "SEV3"
    turn["final_response"]["parts"][0]["text"] = json.dumps(report)
    data["eval_cases"][1]["conversation"][0]["final_response"]["parts"][0]["text"] = "not json"
    save(path, data)
    code, out, _ = validate(capsys, str(evals))
    assert out[0] == (
        "evals/triage-report.evalset.json: case triage-inc-002, turn 1, final_response.severity: "
        "TriageReport severity 'SEV3' disagrees with the seed's 'SEV1' for INC-002"
    )
    assert out[1].startswith(
        "evals/triage-report.evalset.json: case triage-inc-002, turn 1, meta.response[3]: the "
        "case's own reference response fails regex"
    )  # the case's response checks hold its reference too (validation/test_validate_response.py)
    assert any(
        ln.startswith(
            "evals/triage-report.evalset.json: case triage-inc-009, turn 1, final_response: "
            "reference is not a TriageReport"
        )
        for ln in out
    )


def test_empty_turn_text_and_unknown_incident_mentions(evals, capsys):
    def change(d):
        conv = case(d, "open-incidents")["conversation"][0]
        conv["final_response"]["parts"][0]["text"] = ""
        conv["user_content"]["parts"][0]["text"] = "Is INC-123 open?"

    mutate_ops(evals, change)
    code, out, _ = validate(capsys, str(evals))
    assert out == [
        "evals/ops.evalset.json: case open-incidents, turn 1, final_response: reference response "
        "is empty",
        "evals/ops.evalset.json: case open-incidents, turn 1, user_content: mentions INC-123, "
        "which is neither in the seed nor a declared negative",
    ]


def test_an_expected_write_that_would_be_refused_before_approval(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "resolve-needs-approval")[0]["args"].update(
        incident_id="INC-001"))  # fmt: skip
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case resolve-needs-approval, turn 1, call 1 resolve_incident: "
        "gold replay: this write would be refused before approval: INC-001 is already resolved. "
        "Nothing was changed."
    ]
