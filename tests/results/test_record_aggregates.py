"""A run record's aggregates and verdict follow from its trials (issue 40, defect 9): a record
of the current schema whose stored aggregates, gate or exit code disagree with its trials is
refused by every reader (exit 2, one line naming the file and the first field that disagrees);
an older record is read as before, but `report` and `history` show what its trials make.

Synthetic records (the real aggregation over made-up outcomes), edited as someone with a text
editor would, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ops_eval.cli import main
from ops_eval.results.records import SCHEMA_VERSION, load_record, write_record
from ops_eval.results.synthetic import synthetic_record

# 13 cases x 2 repeats: 23/26 passing, three failing trials in two cases
OUTCOMES = [(f"case-{i:02d}", "happy" if i % 2 else "edge", [True, True]) for i in range(13)]
OUTCOMES[3] = ("case-03", "happy", [True, False])
OUTCOMES[8] = ("case-08", "edge", [False, False])


def _data(**kwargs: Any) -> dict[str, Any]:
    record = synthetic_record(OUTCOMES, run_id="run0001", **kwargs)
    assert (record.total.rate.passed, record.total.rate.n, record.exit_code) == (23, 26, 1)
    return record.model_dump(mode="json")


def _passing(trial: dict[str, Any]) -> None:
    """A failing trial edited into a passing one: its status and its trajectory score."""
    trial["status"] = "passed"
    trial["scores"]["trajectory"] = {"outcome": "pass", "value": 1.0}


def _edited(data: dict[str, Any]) -> dict[str, Any]:
    """Two of the three failing trials edited to pass; the stored figures left as they were."""
    failing = [t for t in data["trials"] if t["status"] == "failed"]
    for trial in failing[1:]:  # case-08's two: the stored gate of case-08 is now wrong
        _passing(trial)
    return data


def _write(folder: Path, data: dict[str, Any], name: str = "run0001") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _older(data: dict[str, Any]) -> dict[str, Any]:
    """The record as version 4 wrote it: no scorers' rules."""
    data.pop("scoring", None)
    return {**data, "schema_version": 4}


def test_report_refuses_a_current_record_whose_trials_were_edited(tmp_path, capsys):
    path = _write(tmp_path, _edited(_data()))
    assert main(["report", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err
    assert "do not follow from its trials" in err
    assert "cases['case-08'].rate.passed: the record says 0, its trials make 2" in err


def test_history_passes_over_a_current_record_whose_trials_were_edited(tmp_path, ops_env, capsys):
    folder = tmp_path / "runs"
    _write(folder, _edited(_data()))
    write_record(synthetic_record(OUTCOMES, run_id="run0002"), folder / "run0002.json")
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    assert main(["history", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert [row["run_id"] for row in json.loads(out)] == ["run0002"]
    assert err.startswith("passed over 1 file(s) that are not run records: first: run0001.json: ")
    assert "cases['case-08'].rate.passed: the record says 0, its trials make 2" in err


def test_gate_refuses_a_current_candidate_whose_trials_were_edited(tmp_path, ops_env, capsys):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    path = _write(tmp_path, _edited(_data(eval_set="evals/scenario.evalset.json")))
    assert main(["gate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err
    assert "cases['case-08'].rate.passed: the record says 0, its trials make 2" in err


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("gate_passed", True, "gate_passed: the record says true, its trials make false"),
        ("exit_code", 0, "exit_code: the record says 0, its trials make 1"),
        ("pass_hat_k", 1.0, "pass_hat_k: the record says 1.0, its trials make 0.8461"),
        ("total", None, "total.rate.passed: the record says 26, its trials make 23"),
        (
            "categories",
            None,
            "categories['edge'].rate.passed: the record says 14, its trials make 12",
        ),
    ],
)
def test_a_stored_figure_its_trials_do_not_make_is_refused(tmp_path, capsys, field, value, message):
    data = _data()
    if value is not None:
        data[field] = value
    else:  # the group's stored rate says every trial passed
        group = data[field] if field == "total" else data[field][0]
        group["rate"]["passed"] = group["rate"]["n"]
    path = _write(tmp_path, data)
    assert main(["report", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_a_trial_whose_status_its_scores_do_not_make_is_refused(tmp_path, capsys):
    """The rates count statuses, the gate reads scores: a record must not say two things."""
    data = _data()
    trial = next(t for t in data["trials"] if t["status"] == "failed")
    trial["status"] = "passed"
    path = _write(tmp_path, data)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "trials: case 'case-03' repeat 2 says passed, its scores make it failed" in err


def test_a_current_record_that_does_not_say_how_its_scorers_gate_is_refused(tmp_path, capsys):
    data = _data()
    del data["scoring"]
    path = _write(tmp_path, data)
    assert main(["report", str(path)]) == 2
    assert f"scoring: a version {SCHEMA_VERSION} record says how each scorer gates" in (
        capsys.readouterr().err
    )


def test_a_current_record_is_checked_by_its_own_scorers_rules_not_todays(tmp_path, capsys):
    """A scorer retired since the run, or one whose gate changed, leaves the record readable:
    the record says how each of its scorers gated, and its figures follow from those rules."""
    from ops_eval.results.aggregation import aggregate, record_fields, scorer_rules
    from ops_eval.results.record_parts import ScorerRule
    from ops_eval.scorers import Score

    record = synthetic_record(OUTCOMES, run_id="run0001")
    assert record.scoring == scorer_rules()
    rules = {
        **scorer_rules(),
        "partial_credit": ScorerRule(gate="all", cases="scripted"),  # today: report
        "retired": ScorerRule(gate="all", cases="all"),  # today: no such scorer
    }
    retired = Score(outcome="pass", value=1.0)
    trials = [
        t.model_copy(update={"scores": {**t.scores, "retired": retired}}) for t in record.trials
    ]
    cases = [(c.case_id, c.category) for c in record.cases]
    fields = record_fields(aggregate(cases, trials, 2, 1.0, rules), trials, rules)
    assert "partial_credit" not in fields["cases"][0].means  # gated under the record's rules
    path = tmp_path / "run0001.json"
    write_record(record.model_copy(update={"trials": trials, **fields}), path)
    assert main(["report", str(path)]) == 0
    assert "| retired | 26/26 " in path.with_suffix(".md").read_text(encoding="utf-8")


def test_report_shows_an_older_records_figures_as_its_trials_make_them(tmp_path, capsys):
    path = _write(tmp_path, _older(_edited(_data())))
    assert main(["report", str(path)]) == 0
    assert capsys.readouterr().out.startswith("FAILED: 1 of 13 case(s)")  # case-03 still fails
    out = path.with_suffix(".md").read_text(encoding="utf-8")
    assert "25/26" in out and "23/26" not in out
    assert "| `case-08` | edge | 2/2 " in out
    assert load_record(path).notes[-1] == (
        "the stored aggregates do not follow from its trials under today's scorer rules (first: "
        "cases['case-08'].rate.passed); shown as its trials make them"
    )


def test_history_shows_an_older_records_figures_as_its_trials_make_them(tmp_path, ops_env, capsys):
    folder = tmp_path / "runs"
    data = _older(_edited(_data()))
    for trial in data["trials"]:
        if trial["status"] == "failed":
            _passing(trial)
    _write(folder, data)
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    assert main(["history", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["pass_rate"]["k"], row["pass_rate"]["n"]) == (26, 26)


def test_an_older_record_whose_figures_follow_is_read_unchanged(tmp_path):
    data = _older(_data())
    record = load_record(_write(tmp_path, data))
    assert record.model_dump(mode="json") == data
