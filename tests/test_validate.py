"""The offline validator: passes on the repository, and each rule catches a broken copy.

Mutation tests copy evals/ to a temporary folder, break one thing, and run `ops-eval validate`
through its CLI entry point, asserting the exit code and the exact problem line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ops_copilot.seed.loading import load_seed
from ops_eval.cli import main
from support import REPO

EVALS = REPO / "evals"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def save(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2))


def case(data: dict, eval_id: str) -> dict:
    return next(c for c in data["eval_cases"] if c["eval_id"] == eval_id)


def calls(data: dict, eval_id: str, turn: int = 1) -> list[dict]:
    return case(data, eval_id)["conversation"][turn - 1]["intermediate_data"]["tool_uses"]


def validate(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["validate", *args])
    out = capsys.readouterr()
    return code, [ln for ln in out.out.splitlines() if ln], out.err


def mutate_ops(evals: Path, change) -> None:
    path = evals / "ops.evalset.json"
    data = load(path)
    change(data)
    save(path, data)


def test_the_repository_validates(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, _ = validate(capsys)
    assert code == 0, out
    assert out == ["ok: 4 eval set(s), 47 cases agree with the seed"]


def test_the_main_set_covers_what_the_project_promises():
    data = load(EVALS / "ops.evalset.json")
    assert len(data["eval_cases"]) >= 15
    categories = {c["meta"]["category"] for c in data["eval_cases"]}
    assert categories == {
        "happy",
        "negative",
        "adversarial",
        "approval",
        "memory",
        "relevance",
        "fault",
    }
    decisions = {c["meta"].get("approval", {}).get("decision") for c in data["eval_cases"]}
    assert {"approve", "deny"} <= decisions
    assert calls(data, "unknown-incident-inc-999") == [
        {"name": "get_incident", "args": {"incident_id": "INC-999"}}
    ]
    assert len(case(data, "memory-note-then-recall")["conversation"]) == 2


@pytest.mark.parametrize(
    "name", ["ops.evalset.json", "holdout.evalset.json", "triage-report.evalset.json"]
)
def test_adk_eval_loads_the_sets_unchanged(name):
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

    path = EVALS / name
    loaded = load_eval_set_from_file(str(path), path.stem)
    direct = EvalSet.model_validate_json(path.read_text())
    assert loaded == direct and len(loaded.eval_cases) == len(load(path)["eval_cases"])
    first = loaded.eval_cases[0]
    assert first.model_extra["meta"]["category"]  # our metadata survives ADK's model


def test_adk_reads_the_criteria_as_strict_in_order():
    from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default
    from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion

    config = get_evaluation_criteria_or_default(str(EVALS / "test_config.json"))
    criterion = ToolTrajectoryCriterion.model_validate(
        config.criteria["tool_trajectory_avg_score"].model_dump()
    )
    assert criterion.threshold == 1.0
    assert criterion.match_type == ToolTrajectoryCriterion.MatchType.IN_ORDER


# -- mutations: one rule each ---------------------------------------------------------------------


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


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"category": "happpy"}, "meta.category: Input should be 'happy'"),
        ({}, "meta.category: Field required"),
        (
            {"category": "approval", "approval": {"decision": "approve"}},
            "meta.approval.rationale: says nothing (missing, empty or only invisible characters)",
        ),
    ],
)
def test_bad_case_metadata(evals, capsys, meta, message):
    mutate_ops(evals, lambda d: case(d, "restart-needs-approval").update(meta=meta))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out[0].startswith("evals/ops.evalset.json: case restart-needs-approval, " + message)


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        ({"threshold": 0.8, "match_type": "IN_ORDER"}, "threshold: is 0.8; the gate requires 1.0"),
        ({"threshold": 1.0, "match_type": "IN_ORDR"}, "match_type: 'IN_ORDR' is not a match type"),
        ({"threshold": 1.0, "match_type": "ANY_ORDER"}, "match_type: is ANY_ORDER"),
        ({"threshold": 1.0}, "match_type: is missing"),
        (
            {"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": True},
            "ignore_args: loosens the gate",
        ),
        (1.0, "a bare threshold leaves match_type at ADK's default EXACT"),
    ],
)
def test_loosened_criteria(evals, capsys, criterion, message):
    save(evals / "test_config.json", {"criteria": {"tool_trajectory_avg_score": criterion}})
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert len(out) == 1 and out[0].startswith(
        "evals/test_config.json: criteria.tool_trajectory_avg_score"
    )
    assert message in out[0]


def test_unknown_metric_is_malformed(evals, capsys):
    config = load(evals / "test_config.json")
    config["criteria"]["tool_trajectory_avg_scor"] = 1.0
    save(evals / "test_config.json", config)
    code, out, _ = validate(capsys, str(evals))
    assert code == 2
    assert out == [
        "evals/test_config.json: criteria.tool_trajectory_avg_scor: unknown metric "
        "'tool_trajectory_avg_scor': ADK would silently skip it "
        "(did you mean 'tool_trajectory_avg_score'?)"
    ]


def test_duplicated_id_across_sets(evals, capsys):
    path = evals / "holdout.evalset.json"
    data = load(path)
    data["eval_cases"][0]["eval_id"] = "service-status-inventory"
    save(path, data)
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert (
        "evals/ops.evalset.json: case service-status-inventory, eval_id: duplicate eval id "
        "(also in evals/holdout.evalset.json)"
    ) in out


def test_leaked_prompt(evals, capsys):
    leaked = "Walk the dependency graph from the service users see (for example checkout) down"
    mutate_ops(
        evals,
        lambda d: case(d, "open-incidents")["conversation"][0]["user_content"]["parts"][0].update(
            text=leaked
        ),
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case open-incidents, turn 1, user_content: prompt shares the "
        "8-word run 'walk the dependency graph from the service users' with runbook "
        "cascade-failure (leakage)"
    ]


def test_holdout_prompt_shared_with_the_main_set(evals, capsys):
    path = evals / "holdout.evalset.json"
    data = load(path)
    data["eval_cases"][0]["conversation"][0]["user_content"]["parts"][0]["text"] = (
        "What is the STATUS of the inventory service"
    )
    save(path, data)
    code, out, _ = validate(capsys, str(evals))
    assert out == [
        "evals/holdout.evalset.json: case holdout-cache-status, turn 1, user_content: holdout "
        "prompt repeats case service-status-inventory of a tuning set"
    ]


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
    )  # the case's response checks hold its reference too (tests/test_validate_response.py)
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


def test_malformed_json_names_line_and_column(evals, capsys):
    path = evals / "ops.evalset.json"
    path.write_text(path.read_text().replace('"eval_set_id": "ops",', '"eval_set_id": "ops",,', 1))
    code, out, err = validate(capsys, str(evals))
    assert code == 2
    assert out[0].startswith("evals/ops.evalset.json: line 2, column 24: invalid JSON")
    assert "invalid JSON" in out[0] and "Traceback" not in err


def test_schema_adk_rejects_is_malformed(evals, capsys):
    mutate_ops(
        evals,
        lambda d: case(d, "open-incidents")["conversation"][0].update(user_contnet={"parts": []}),
    )
    code, out, _ = validate(capsys, str(evals))
    assert code == 2
    assert out == [
        "evals/ops.evalset.json: case open-incidents, turn 1, user_contnet: ADK's EvalSet model "
        "rejects this: Extra inputs are not permitted"
    ]


def test_github_annotations(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "incident-detail-inc-002")[0].update(name="nope"))
    code, out, _ = validate(capsys, "--format", "github", str(evals))
    assert code == 1
    assert out[0].startswith("::error file=evals/ops.evalset.json,line=")
    assert out[0].endswith(
        "::case incident-detail-inc-002, turn 1, call 1 name: 'nope' is not "
        "a tool of agent ops_copilot"
    )


def test_missing_file_is_bad_input(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "negatives.yaml", tmp_path / "negatives.yaml")
    shutil.copy(EVALS / "test_config.json", tmp_path / "test_config.json")
    code, out, _ = validate(capsys, "nope.evalset.json")
    assert code == 2 and out == ["nope.evalset.json: file not found"]


def test_every_problem_is_reported_in_one_run(evals, capsys):
    def change(d):
        calls(d, "incident-detail-inc-002")[0].update(name="nope")
        calls(d, "service-status-inventory")[0]["args"].update(name="warehous")

    mutate_ops(evals, change)
    save(evals / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 0.5}})
    code, out, _ = validate(capsys, str(evals))
    assert code == 1 and len(out) == 3


def test_validate_keeps_litellm_out_and_skips_adk_when_warm(tmp_path):
    """Speed property behind the benchmark: no LiteLLM ever, and no ADK import on a warm run."""
    import os
    import subprocess
    import sys

    code = (
        "import sys; from ops_eval.cli import main; rc = main(['validate']); "
        "print(rc, 'litellm' in sys.modules, 'google.adk.evaluation' in sys.modules)"
    )
    env = {**os.environ, "OPS_EVAL_CACHE": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()[-3:]
        for _ in range(2)
    ]
    assert runs == [["0", "False", "False"], ["0", "False", "False"]]
    assert list(tmp_path.glob("adk-accepted-*.json"))  # the cold run recorded its acceptance


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


def test_wrongly_typed_case_data_is_malformed_not_a_crash(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents")[0].update(args="open"))
    code, out, err = validate(capsys, str(evals))
    assert code == 2 and "Traceback" not in err
    assert out[0].startswith(
        "evals/ops.evalset.json: case open-incidents, turn 1, intermediate_data.IntermediateData."
        "tool_uses.0.args: ADK's EvalSet model rejects this: Input should be an object"
    )


def test_a_folder_without_eval_sets_is_bad_input(tmp_path, capsys):
    code, out, _ = validate(capsys, str(tmp_path))
    assert code == 2
    assert out == [f"{tmp_path}: no *.evalset.json files here: nothing to validate"]


# -- hardening: every input is read defensively, and every problem has its path -----------------


@pytest.mark.parametrize("text", [["a list"], 42, {"an": "object"}])
def test_a_part_text_of_the_wrong_type_is_a_problem_not_a_crash(evals, capsys, text):
    def change(d):
        case(d, "open-incidents")["conversation"][0]["user_content"]["parts"][0]["text"] = text

    mutate_ops(evals, change)
    code, out, err = validate(capsys, str(evals))
    assert code == 2 and "Traceback" not in err
    assert (
        "evals/ops.evalset.json: case open-incidents, turn 1, user_content.parts.0.text: "
        "ADK's EvalSet model rejects this: Input should be a valid string"
    ) in out


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


@pytest.mark.parametrize(
    ("eval_id", "shown", "message"),
    [
        ("", "#19", "is empty"),
        ("a" * 5000, "a" * 60 + "…", "is 5000 characters long; at most 128"),
        (
            "open incidents, all",
            "open incidents, all",
            "'open incidents, all' may hold only letters, digits and . _ - "
            "(starting with a letter or digit)",
        ),
    ],
)
def test_eval_ids_are_present_short_and_plain(evals, capsys, eval_id, shown, message):
    mutate_ops(evals, lambda d: case(d, "open-incidents").update(eval_id=eval_id))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [f"evals/ops.evalset.json: case {shown}, eval_id: {message}"]


def test_a_happy_case_expects_at_least_one_call(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents").clear())
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [
        "evals/ops.evalset.json: case open-incidents, meta.category: a happy case must expect "
        "at least one tool call (a case that expects none is a relevance case)"
    ]


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (None, "meta: missing; every case needs one, with at least a category"),
        ("happy", "meta: must be an object, not a string"),
        (
            {"category": "happy", "agent": "nope"},
            "meta.agent: agent 'nope': no package 'nope' with a `port` module",
        ),
    ],
)
def test_a_case_without_valid_meta_still_gets_every_other_check(evals, capsys, meta, message):
    def change(d):
        c = case(d, "incident-detail-inc-002")
        c.pop("meta")
        if meta is not None:
            c["meta"] = meta
        c["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["incident_id"] = "INC-020"

    mutate_ops(evals, change)
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out[0].startswith("evals/ops.evalset.json: case incident-detail-inc-002, " + message)
    assert out[1].startswith(
        "evals/ops.evalset.json: case incident-detail-inc-002, turn 1, call 1 "
        "get_incident.incident_id: 'INC-020' is not an incident in the seed"
    )
    assert len(out) == 2


def test_an_ad_hoc_set_falls_back_to_the_projects_context_files_with_one_warning(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "ops.evalset.json", tmp_path / "mine.evalset.json")
    code, out, err = validate(capsys, "mine.evalset.json")
    assert code == 0, out
    warnings = [ln for ln in err.splitlines() if ln.startswith("warning:")]
    assert warnings == [
        "warning: test_config.json, negatives.yaml, contracts.yaml: not beside "
        f"mine.evalset.json; checked against the project's {EVALS / 'test_config.json'} and "
        f"{EVALS / 'negatives.yaml'} and {EVALS / 'contracts.yaml'} instead (adk eval would use "
        "its default criteria)"
    ]
    cases = len(load(EVALS / "ops.evalset.json")["eval_cases"])
    assert out == [f"ok: 1 eval set(s), {cases} cases agree with the seed"]


def test_an_ad_hoc_set_with_its_own_criteria_falls_back_for_negatives_and_contracts(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "ops.evalset.json", tmp_path / "mine.evalset.json")
    shutil.copy(EVALS / "test_config.json", tmp_path / "test_config.json")
    code, out, err = validate(capsys, "mine.evalset.json")
    assert code == 0, out
    assert [ln for ln in err.splitlines() if ln.startswith("warning:")] == [
        "warning: negatives.yaml, contracts.yaml: not beside mine.evalset.json; checked against "
        f"the project's {EVALS / 'negatives.yaml'} and {EVALS / 'contracts.yaml'} instead"
    ]


def test_an_ad_hoc_set_takes_the_projects_contracts_as_the_run_does(tmp_path, monkeypatch):
    """The validator and the run read the same contracts.yaml for an ad-hoc set: the project's
    (its budgets), since the set falls back for its other context files too; a folder with its
    own context files and no contracts.yaml has none."""
    from ops_eval.core.contracts import read_set_contracts
    from ops_eval.validation.plan import _set_contracts

    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mine.evalset.json"
    shutil.copy(EVALS / "ops.evalset.json", mine)
    project, _ = read_set_contracts(EVALS / "ops.evalset.json")
    assert project is not None and project.budget is not None
    assert _set_contracts(mine) == project
    for name in ("test_config.json", "negatives.yaml"):
        shutil.copy(EVALS / name, tmp_path / name)
    assert _set_contracts(mine) is None


def test_an_ad_hoc_set_is_held_to_the_projects_contracts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = load(EVALS / "ops.evalset.json")
    uses = calls(data, "list-skills")
    uses.extend([dict(uses[0]) for _ in range(9)])  # 10 calls: over the project's budget of 8
    save(tmp_path / "mine.evalset.json", data)
    code, out, _ = validate(capsys, "mine.evalset.json")
    assert code == 1
    assert any(
        "case list-skills, turn 1, contracts.budget.tool_calls: the case expects 10 tool calls"
        in ln
        for ln in out
    ), out


def test_an_unreadable_eval_set_is_one_precise_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "binary.evalset.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    code, out, err = validate(capsys, "binary.evalset.json")
    assert code == 2 and "Traceback" not in err
    assert out == ["binary.evalset.json: not UTF-8 text (byte 0x89 at offset 0)"]


# -- write arguments the tool would refuse ---------------------------------------------------------


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


# -- ids, approval decisions, text types, meta, missing files ----------------------------------


@pytest.mark.parametrize(
    ("set_id", "message"),
    [
        ("", "is empty"),
        ("a" * 5000, "is 5000 characters long; at most 128"),
        (
            "../../etc",
            "'../../etc' may hold only letters, digits and . _ - (starting with a letter or digit)",
        ),
    ],
)
def test_eval_set_ids_follow_the_eval_id_rule(evals, capsys, set_id, message):
    mutate_ops(evals, lambda d: d.update(eval_set_id=set_id))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert out == [f"evals/ops.evalset.json: eval_set_id: {message}"]


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


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        (lambda c: c["parts"][0].update(text=42), "parts.0.text", "Input should be a valid string"),
        (lambda c: c.update(parts="hello"), "parts", "Input should be a valid array"),
    ],
)
def test_a_text_of_the_wrong_type_is_only_that_problem(evals, capsys, change, where, message):
    turn = lambda d: case(d, "open-incidents")["conversation"][0]  # noqa: E731
    mutate_ops(evals, lambda d: change(turn(d)["user_content"]))
    code, out, _ = validate(capsys, str(evals))
    assert code == 2
    assert out == [
        f"evals/ops.evalset.json: case open-incidents, turn 1, user_content.{where}: "
        f"ADK's EvalSet model rejects this: {message}"
    ]


def test_every_bad_meta_field_is_reported(evals, capsys):
    meta = {"category": "happpy", "split": "nope", "agent": "x"}
    mutate_ops(evals, lambda d: case(d, "restart-needs-approval").update(meta=meta))
    code, out, _ = validate(capsys, str(evals))
    assert code == 1
    assert [line.split(": ")[1] for line in out] == [
        "case restart-needs-approval, meta.category",
        "case restart-needs-approval, meta.split",
        "case restart-needs-approval, meta.agent",
    ]


def test_a_missing_file_takes_no_fallback(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = validate(capsys, "nope.evalset.json")
    assert code == 2 and out == ["nope.evalset.json: file not found"]
    assert "warning" not in err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_or_infinity_in_an_eval_set_is_refused_naming_the_key(evals, capsys, constant):
    """JSON has no NaN or Infinity (Python's reader takes them, and 1e999 as inf): a set that
    holds one is no JSON another reader agrees on."""
    path = evals / "ops.evalset.json"
    text = path.read_text()
    path.write_text(text.replace('"state": {}', f'"state": {{"budget": {constant}}}', 1))
    code, out, err = validate(capsys, str(evals))
    assert code == 2 and "Traceback" not in err
    assert out[0] == (  # then gate.yaml's required cases of it, which cannot be checked
        "evals/ops.evalset.json: eval_cases[0].session_input.state.budget: "
        f"{constant} is not a JSON number (JSON has no NaN or Infinity)"
    )


def test_a_key_twice_in_one_object_of_an_eval_set_is_refused_naming_it(evals, capsys):
    """Which of two `name`s a reader keeps is its accident: Python's keeps the last."""
    path = evals / "ops.evalset.json"
    text = path.read_text()
    path.write_text(text.replace('"name": "inventory"', '"name": "inventory", "name": "x"', 1))
    code, out, err = validate(capsys, str(evals))
    assert code == 2 and "Traceback" not in err
    assert out[0] == (
        "evals/ops.evalset.json: eval_cases[0].conversation[0].intermediate_data.tool_uses[0]"
        ".args: key 'name' appears twice in one object"
    )
