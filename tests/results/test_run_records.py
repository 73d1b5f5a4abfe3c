"""A run record is checked against itself when it is read: its run id can be a file name and a
ledger key, its trials are exactly the selected cases times the repeats, once each, and its case
aggregates name exactly the selected cases, in the trials' categories. And the exit-code rule
of a run (`aggregation.run_exit_code`) is the runner's and the synthetic records' alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ops_eval.base.exits import EXIT_FAILED, EXIT_INFRA, EXIT_OK
from ops_eval.results.aggregation import aggregate, no_verdict, run_exit_code
from ops_eval.results.records import RecordError, RunRecord, load_record, write_record
from ops_eval.results.synthetic import synthetic_record

OUTCOMES = [("c1", "lookup", [True, False]), ("c2", "approval", [True, True])]


def _data() -> dict[str, Any]:
    return synthetic_record(OUTCOMES, run_id="run0001").model_dump(mode="json")


def _load(tmp_path: Path, data: dict[str, Any]) -> RunRecord:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_record(path)


def _refused(tmp_path: Path, data: dict[str, Any], message: str) -> str:
    with pytest.raises(RecordError, match=message) as caught:
        _load(tmp_path, data)
    said = str(caught.value)
    assert "\n" not in said
    return said


def test_a_synthetic_record_loads_as_written(tmp_path):
    record = synthetic_record(OUTCOMES, run_id="run0001")
    write_record(record, tmp_path / "r.json")
    assert load_record(tmp_path / "r.json") == record


def test_a_real_runs_record_satisfies_every_check(tmp_path):
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models.stand_ins import OracleLlm, fixed_model
    from support import REPO

    cases = read_evalset(REPO / "evals" / "ops.evalset.json").cases
    chooser = fixed_model(OracleLlm.from_cases(cases), "oracle", "scripted")
    options = RunOptions(output=tmp_path / "run.json", cases=["open-incidents"], repeats=2)
    code, record, path = execute(options, chooser=chooser)
    assert code == 0 and load_record(path) == record


@pytest.mark.parametrize(
    "run_id",
    ["", "-rm", ".hidden", "a/b", "a b", "..", "run\n", "é1", "+cmd|calc!A1", "a" * 129],
)
def test_a_run_id_that_is_no_safe_file_name_is_refused(tmp_path, run_id):
    data = _data()
    data["run_id"] = run_id
    said = _refused(tmp_path, data, "run_id")
    assert said.startswith("not a run record (run_id: ")


@pytest.mark.parametrize("run_id", ["a", "0", "20261130T000000Z-ops.a_b-c", "a" * 128])
def test_a_run_id_of_letters_digits_dot_underscore_and_dash_is_kept(tmp_path, run_id):
    data = _data()
    data["run_id"] = run_id
    assert _load(tmp_path, data).run_id == run_id


def test_two_trials_of_one_case_and_repeat_are_refused(tmp_path):
    data = _data()
    data["trials"][1]["repeat"] = 1  # c1 repeat 1 twice, c1 repeat 2 missing
    _refused(tmp_path, data, r"trials: case 'c1' repeat 1 appears 2 times")


def test_a_missing_trial_is_refused(tmp_path):
    data = _data()
    del data["trials"][3]
    _refused(tmp_path, data, r"trials: no trial of case 'c2' repeat 2")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("repeat", 3, r"trials: case 'c2' repeat 3 is not one of selected_cases x repeats 1\.\.2"),
        ("repeat", 0, r"trials: case 'c2' repeat 0 is not one of selected_cases x repeats 1\.\.2"),
        ("case_id", "c9", r"trials: case 'c9' repeat 2 is not one of selected_cases"),
    ],
)
def test_a_trial_outside_the_selected_cases_and_repeats_is_refused(tmp_path, field, value, message):
    data = _data()
    data["trials"][3][field] = value
    _refused(tmp_path, data, message)


def test_a_trial_added_beyond_the_repeats_is_refused(tmp_path):
    data = _data()
    data["trials"].append({**data["trials"][3], "repeat": 3})
    _refused(tmp_path, data, r"repeat 3 is not one of selected_cases x repeats 1\.\.2")


def test_a_case_selected_twice_is_refused(tmp_path):
    data = _data()
    data["selected_cases"].append("c1")
    _refused(tmp_path, data, r"selected_cases: case 'c1' appears 2 times")


def test_case_aggregates_must_name_exactly_the_selected_cases(tmp_path):
    data = _data()
    data["cases"].pop()
    _refused(tmp_path, data, r"cases: no aggregate of selected case 'c2'")
    data = _data()
    data["cases"].append({**data["cases"][0], "case_id": "c9"})
    _refused(tmp_path, data, r"cases: case 'c9' is not one of selected_cases")
    data = _data()
    data["cases"].append(data["cases"][0])
    _refused(tmp_path, data, r"cases: case 'c1' appears 2 times")


def test_a_trials_category_must_be_its_cases(tmp_path):
    data = _data()
    data["trials"][1]["category"] = "approval"
    _refused(
        tmp_path,
        data,
        r"trials: case 'c1' repeat 2 has category 'approval', its case aggregate has 'lookup'",
    )


def test_the_cli_shows_a_refused_record_as_one_line_exit_2(tmp_path, capsys):
    from ops_eval.cli import main

    data = _data()
    data["trials"][1]["repeat"] = 1
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert str(path) in line and "case 'c1' repeat 1 appears 2 times" in line


def test_an_empty_run_is_still_a_record(tmp_path):
    record = synthetic_record([], run_id="empty")
    write_record(record, tmp_path / "r.json")
    assert load_record(tmp_path / "r.json") == record


# The exit-code rule, one for the runner and the synthetic records.


def test_synthetic_one_error_trial_and_otherwise_passes_exits_3():
    """The errored case has no verdict: exit 3, as the real runner says."""
    record = synthetic_record([("c1", "lookup", [None]), ("c2", "lookup", [True])])
    assert (record.exit_code, record.gate_passed) == (EXIT_INFRA, False)


def test_synthetic_with_a_failure_exits_1_even_beside_an_error():
    record = synthetic_record([("c1", "lookup", [None]), ("c2", "lookup", [False])])
    assert (record.exit_code, record.gate_passed) == (EXIT_FAILED, False)
    record = synthetic_record([("c1", "lookup", [True]), ("c2", "lookup", [False])])
    assert (record.exit_code, record.gate_passed) == (EXIT_FAILED, False)


def test_synthetic_error_beside_a_valid_repeat_still_has_a_verdict():
    record = synthetic_record([("c1", "lookup", [True, None]), ("c2", "lookup", [True, True])])
    assert (record.exit_code, record.gate_passed) == (EXIT_OK, True)


def test_synthetic_every_trial_errored_exits_3_with_the_reason():
    record = synthetic_record([("c1", "lookup", [None]), ("c2", "lookup", [None])])
    assert (record.exit_code, record.gate_passed) == (EXIT_INFRA, False)
    assert record.notes == ["every trial errored: the model is unreachable or broken"]


def test_the_rule_itself():
    cases = [("c1", "lookup"), ("c2", "lookup")]

    def code(outcomes: list[bool | None]) -> int:
        pairs = zip(cases, outcomes, strict=True)
        record = synthetic_record([(c, cat, [o]) for (c, cat), o in pairs])
        agg = aggregate(cases, record.trials, 1, 1.0)
        return run_exit_code(agg, record.trials)

    assert no_verdict([]) == "no trial ran"
    assert run_exit_code(aggregate([], [], 1, 1.0), []) == EXIT_INFRA
    assert code([True, True]) == EXIT_OK
    assert code([True, False]) == EXIT_FAILED
    assert code([None, True]) == EXIT_INFRA
    assert code([None, False]) == EXIT_FAILED
    assert code([None, None]) == EXIT_INFRA
    assert no_verdict(synthetic_record([("c1", "lookup", [True])]).trials) is None


def test_a_turn_with_a_time_that_is_not_a_number_is_refused(tmp_path):
    """Found in review: a turn's `seconds` took NaN, which no report or export can show."""
    import json

    from ops_eval.results.records import RecordError, load_record, write_record
    from ops_eval.results.synthetic import synthetic_record

    path = tmp_path / "run.json"
    write_record(synthetic_record([("a", "happy", [True])], run_id="nan0001"), path)
    data = json.loads(path.read_text())
    data["trials"][0]["turns"][0]["seconds"] = float("nan")
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="seconds"):
        load_record(path)
