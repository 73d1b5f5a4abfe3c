"""The validator holds each case's own fields: its metadata (every bad field reported, and a
case without valid meta still gets every other check), its id and the set's (present,
short, plain, unique across sets), its prompts (no leak of a runbook, no holdout prompt
shared with a tuning set), its texts' types, and the criteria beside the sets (the gate's
strict IN_ORDER at 1.0; a metric ADK would skip is malformed).

Each test copies evals/ (the `evals` fixture), breaks one thing, and runs `ops-eval validate`
through its CLI entry point, asserting the exit code and the exact problem line."""

from __future__ import annotations

import pytest
from validate_cli import calls, case, load, mutate_ops, save, validate


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


def test_wrongly_typed_case_data_is_malformed_not_a_crash(evals, capsys):
    mutate_ops(evals, lambda d: calls(d, "open-incidents")[0].update(args="open"))
    code, out, err = validate(capsys, str(evals))
    assert code == 2 and "Traceback" not in err
    assert out[0].startswith(
        "evals/ops.evalset.json: case open-incidents, turn 1, intermediate_data.IntermediateData."
        "tool_uses.0.args: ADK's EvalSet model rejects this: Input should be an object"
    )


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
