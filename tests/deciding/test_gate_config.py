"""The gate's policy (`evals/gate.yaml`): read and tightened by `validation.gate_config`, and
checked by `ops-eval validate` with the eval sets it judges.

Mutation tests copy evals/ (the `evals` fixture), break gate.yaml, and run `ops-eval validate`
through its CLI entry point: a file that does not validate is malformed input (exit 2), a policy
that reads but cannot gate is a problem (exit 1), each one precise line naming gate.yaml and the
field.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from ops_eval.base.exits import EXIT_BAD_INPUT, EXIT_FAILED, OpsEvalError
from ops_eval.cli import main
from ops_eval.validation.gate_config import (
    GATE_FILE,
    GateConfig,
    GateConfigError,
    gate_file,
    read_gate_config,
)
from support import REPO

EVALS = REPO / "evals"
GATE = "evals/gate.yaml"  # as a problem names the copy's file (the fixture's working folder)
SHIPPED = yaml.safe_load((EVALS / GATE_FILE).read_text())
SCORERS = len(SHIPPED["gating_scorers"])  # the index an appended scorer gets
OPS_REQUIRED = SHIPPED["required_cases"]["ops.evalset.json"]
HOLDOUT_REQUIRED = SHIPPED["required_cases"]["holdout.evalset.json"]


def validate(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["validate", *args])
    out = capsys.readouterr()
    return code, [ln for ln in out.out.splitlines() if ln], out.err


def mutate_gate(folder: Path, change) -> None:
    path = folder / GATE_FILE
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def policy(**overrides) -> GateConfig:
    fields = {"suite_threshold": 0.8, "regression_threshold": 0.05, "gating_scorers": ["facts"]}
    return GateConfig(**(fields | overrides))


# -- the shipped policy ------------------------------------------------------------------------


def test_the_shipped_evals_validate_clean(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, _ = validate(capsys)
    assert code == 0, out


def test_the_shipped_policy_reads_and_gates_the_shipped_sets():
    config, digest = read_gate_config(gate_file())
    assert gate_file() == EVALS / GATE_FILE
    assert digest == hashlib.sha256((EVALS / GATE_FILE).read_bytes()).hexdigest()
    assert 0 < config.suite_threshold <= 1 and 0 <= config.regression_threshold < 0.5
    assert set(config.required_cases) <= {p.name for p in EVALS.glob("*.evalset.json")}


# -- a policy that reads but cannot gate: exit 1 -----------------------------------------------


def _append(key: str, value):
    return lambda d: d[key].append(value)


def _require(name: str, *ids: str):
    return lambda d: d["required_cases"].setdefault(name, []).extend(ids)


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            _append("gating_scorers", "tool_polcy"),
            f"gating_scorers[{SCORERS}]: 'tool_polcy' is not a registered scorer (did you mean "
            "'tool_policy'?)",
        ),
        (
            _append("gating_scorers", "partial_credit"),
            f"gating_scorers[{SCORERS}]: 'partial_credit' is a report scorer: it never fails a "
            "trial, so it has no place in the gate's lists",
        ),
        (
            lambda d: d["gating_scorers"].remove("budget"),
            "gating_scorers: 'budget' can fail a trial but is in neither gating_scorers nor "
            "not_gating: place it, so a new scorer never silently stays out",
        ),
        (
            lambda d: d.update(not_gating=["budget"]),
            "not_gating: 'budget' is in gating_scorers too; put it in one list",
        ),
        (
            lambda d: (
                d["gating_scorers"].remove("trajectory"),
                d.update(not_gating=["trajectory"]),
            ),
            "gating_scorers: 'trajectory' must gate: it is the suite's own criterion",
        ),
        (
            _require("ops.evalset.json", "restart-need-approval"),
            f"required_cases.ops.evalset.json[{len(OPS_REQUIRED)}]: 'restart-need-approval' is "
            "not a case of "
            "evals/ops.evalset.json (did you mean 'restart-needs-approval'?)",
        ),
        (
            _require("ops.evalset.json", OPS_REQUIRED[-1]),
            f"required_cases.ops.evalset.json[{len(OPS_REQUIRED)}]: {OPS_REQUIRED[-1]!r} is "
            f"listed twice (first at [{len(OPS_REQUIRED) - 1}])",
        ),
        (
            _require("opps.evalset.json", "restart-needs-approval"),
            "required_cases.opps.evalset.json: 'opps.evalset.json' is not the file name of an "
            f"eval set beside {GATE} or validated with it (did you mean 'ops.evalset.json'?)",
        ),
        (
            _require("evals/ops.evalset.json", "restart-needs-approval"),
            "required_cases.evals/ops.evalset.json: 'evals/ops.evalset.json' is not the file "
            f"name of an eval set beside {GATE} or validated with it (did you mean "
            "'ops.evalset.json'?)",
        ),
        (
            lambda d: d.update(suite_threshold=0),
            "suite_threshold: 0: a run that passes no trial reaches it, so it gates nothing; it "
            "must be above 0",
        ),
        (
            lambda d: d.update(regression_threshold=0.5),
            "regression_threshold: 0.5: a gate that ignores a drop of 50 points in pass rate is "
            "no gate; it must be below 0.5",
        ),
    ],
    ids=[
        "unknown-scorer",
        "report-scorer",
        "unplaced-scorer",
        "scorer-in-both-lists",
        "trajectory-not-gating",
        "unknown-case",
        "case-twice",
        "unknown-set",
        "set-as-a-path",
        "zero-suite-threshold",
        "lenient-regression-threshold",
    ],
)
def test_a_policy_that_cannot_gate_is_one_precise_problem(evals, capsys, change, line):
    mutate_gate(evals, change)
    code, out, err = validate(capsys, "evals")
    assert code == EXIT_FAILED, out
    assert out == [f"{GATE}: {line}"]
    assert "Traceback" not in err


def test_every_problem_of_the_policy_is_reported_in_one_run(evals, capsys):
    def change(d):
        d["gating_scorers"].append("contract_mode")
        d["required_cases"]["holdout.evalset.json"].append("nope")
        d["suite_threshold"] = 0.0

    mutate_gate(evals, change)
    code, out, _ = validate(capsys, "evals")
    assert code == EXIT_FAILED
    assert [ln.split(": ")[1] for ln in out] == [
        f"gating_scorers[{SCORERS}]",
        "suite_threshold",
        f"required_cases.holdout.evalset.json[{len(HOLDOUT_REQUIRED)}]",
    ]


def test_a_required_set_not_validated_is_read_from_beside_the_policy(evals, capsys):
    """Validating one set still checks the policy's cases of the others it names."""
    mutate_gate(evals, _require("holdout.evalset.json", "nope"))
    code, out, _ = validate(capsys, "evals/ops.evalset.json")
    assert code == EXIT_FAILED
    assert out == [
        f"{GATE}: required_cases.holdout.evalset.json[{len(HOLDOUT_REQUIRED)}]: 'nope' is not "
        "a case of "
        "evals/holdout.evalset.json"
    ]


def test_a_required_set_that_cannot_be_read_is_said_once_more_for_the_policy(evals, capsys):
    (evals / "holdout.evalset.json").write_text("{")
    code, out, _ = validate(capsys, "evals/ops.evalset.json")
    assert code == EXIT_FAILED
    assert out == [
        f"{GATE}: required_cases.holdout.evalset.json: its required cases cannot be checked: "
        "evals/holdout.evalset.json: line 1, column 2: invalid JSON (Expecting property name "
        "enclosed in double quotes)"
    ]


# -- a file that does not validate: malformed input, exit 2 ------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("suite_threshold: [0.8\n", "line 2, column 1 not valid YAML"),
        ("- suite_threshold\n", "not a mapping of gate settings"),
        ("", "not a mapping of gate settings"),
    ],
    ids=["bad-yaml", "a-list", "empty"],
)
def test_an_unreadable_policy_is_malformed_input(evals, capsys, text, line):
    (evals / GATE_FILE).write_text(text)
    code, out, err = validate(capsys, "evals")
    assert code == EXIT_BAD_INPUT
    assert out == [f"{GATE}: {line}"]
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (lambda d: d.pop("gating_scorers"), "gating_scorers: Field required"),
        (lambda d: d.pop("suite_threshold"), "suite_threshold: Field required"),
        (
            lambda d: d.update(suite_threshold=1.5),
            "suite_threshold: Input should be less than or equal to 1",
        ),
        (
            lambda d: d.update(regression_threshold=-0.1),
            "regression_threshold: Input should be greater than or equal to 0",
        ),
        (
            lambda d: d.update(suite_threshold="0.8"),
            "suite_threshold: Input should be a valid number",
        ),
        (
            lambda d: d.update(categories="fail"),
            "categories: Input should be 'report' or 'gate'",
        ),
        (
            lambda d: d["gating_scorers"].append("facts"),
            "gating_scorers: Value error, names a scorer twice",
        ),
        (
            lambda d: d.update(gating_scorers=[]),
            "gating_scorers: List should have at least 1 item after validation, not 0",
        ),
        (
            lambda d: d["required_cases"]["ops.evalset.json"].append(7),
            "required_cases.ops.evalset.json.6: Input should be a valid string",
        ),
        (lambda d: d.update(baseline="latest"), "baseline: Extra inputs are not permitted"),
    ],
    ids=[
        "no-scorers",
        "no-suite-threshold",
        "threshold-above-1",
        "negative-drop",
        "threshold-as-text",
        "unknown-categories",
        "scorer-twice",
        "empty-scorers",
        "case-id-not-text",
        "unknown-field",
    ],
)
def test_an_invalid_policy_is_malformed_input_naming_the_field(evals, capsys, change, line):
    mutate_gate(evals, change)
    code, out, err = validate(capsys, "evals")
    assert code == EXIT_BAD_INPUT, out
    assert out == [f"{GATE}: {line}"]
    assert "Traceback" not in err


def test_a_missing_policy_is_a_problem(evals, capsys, monkeypatch):
    """Only where the project has none either: `ops-eval gate` would have nothing to apply."""
    monkeypatch.setattr("ops_eval.base.settings.data_root", lambda: evals.parent)
    for lock in EVALS.glob("*.lock.json"):  # the project's sets are locked (the copy is theirs)
        shutil.copy(lock, evals / lock.name)
    (evals / GATE_FILE).unlink()
    code, out, _ = validate(capsys, "evals")
    assert code == EXIT_FAILED
    assert out == [f"{GATE}: missing: `ops-eval gate` would have no policy to judge a run by"]


# -- which file judges which sets ------------------------------------------------------------------


def test_an_ad_hoc_set_is_judged_by_the_projects_policy(tmp_path, capsys, monkeypatch):
    """No gate.yaml beside the set: the project's applies, its keys found beside it, and no
    warning beyond the one the other context files already give."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "ops.evalset.json", tmp_path / "mine.evalset.json")
    code, out, err = validate(capsys, "mine.evalset.json")
    assert code == 0, out
    assert "gate.yaml" not in err


def test_an_ad_hoc_set_named_in_the_projects_policy_is_held_to_it(tmp_path, capsys, monkeypatch):
    """The gate looks a set's required cases up by its file name, wherever the set is."""
    monkeypatch.chdir(tmp_path)
    data = json.loads((EVALS / "holdout.evalset.json").read_text())
    dropped = HOLDOUT_REQUIRED[-1]
    data["eval_cases"] = [c for c in data["eval_cases"] if c["eval_id"] != dropped]
    (tmp_path / "holdout.evalset.json").write_text(json.dumps(data, indent=2))
    code, out, _ = validate(capsys, "holdout.evalset.json")
    assert code == EXIT_FAILED
    assert out == [
        f"{EVALS / GATE_FILE}: required_cases.holdout.evalset.json[{len(HOLDOUT_REQUIRED) - 1}]: "
        f"{dropped!r} is not a case of holdout.evalset.json"
    ]


def test_a_folder_with_its_own_policy_is_judged_by_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "ops.evalset.json", tmp_path / "mine.evalset.json")
    shutil.copy(EVALS / GATE_FILE, tmp_path / GATE_FILE)
    mutate_gate(
        tmp_path,
        lambda d: d.update(required_cases={"mine.evalset.json": ["list-skills", "nope"]}),
    )
    code, out, _ = validate(capsys, "mine.evalset.json")
    assert code == EXIT_FAILED
    assert out == ["gate.yaml: required_cases.mine.evalset.json[1]: 'nope' is not a case of "
                   "mine.evalset.json"]  # fmt: skip


def test_a_policy_several_folders_share_is_checked_once(evals, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("ops_eval.base.settings.data_root", lambda: evals.parent)
    mutate_gate(evals, lambda d: d.update(suite_threshold=0))
    for folder, name in (("a", "ops"), ("b", "triage-report")):
        (tmp_path / folder).mkdir()
        shutil.copy(EVALS / f"{name}.evalset.json", tmp_path / folder / f"{name}.evalset.json")
    code, out, _ = validate(capsys, "a", "b")
    assert code == EXIT_FAILED
    assert out == [f"{GATE}: suite_threshold: 0: a run that passes no trial reaches it, so it "
                   "gates nothing; it must be above 0"]  # fmt: skip


# -- read_gate_config ------------------------------------------------------------------------------


def test_read_gate_config_returns_the_policy_and_the_files_digest(tmp_path):
    path = tmp_path / GATE_FILE
    path.write_text("suite_threshold: 1\nregression_threshold: 0\ngating_scorers: [facts]\n")
    config, digest = read_gate_config(path)
    assert config == policy(suite_threshold=1.0, regression_threshold=0.0)
    assert config.categories == "report" and config.required_cases == {}
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "file not found"),
        ("a: [\n", "line 2, column 1 not valid YAML"),
        ("[1, 2]\n", "not a mapping of gate settings"),
        (
            "suite_threshold: .nan\nregression_threshold: 0.05\ngating_scorers: [facts]\n",
            "suite_threshold: Input should be a finite number",
        ),
        (
            "suite_threshold: true\nregression_threshold: 0.05\ngating_scorers: [facts]\n",
            "suite_threshold: Input should be a valid number",
        ),
        (
            "suite_treshold: 0.8\nregression_threshold: 0.05\ngating_scorers: [facts]\n",
            "suite_treshold: Extra inputs are not permitted; suite_threshold: Field required",
        ),
        (
            "suite_threshold: 0.8\nregression_threshold: 0.05\ngating_scorers: facts\n",
            "gating_scorers: Input should be a valid list",
        ),
        (
            "suite_threshold: 0.8\nregression_threshold: 0.05\ngating_scorers: [facts]\n"
            "required_cases: [ops.evalset.json]\n",
            "required_cases: Input should be a valid dictionary",
        ),
    ],
    ids=[
        "missing",
        "bad-yaml",
        "a-list",
        "nan",
        "bool",
        "misspelt-key",
        "scorers-as-text",
        "cases-as-list",
    ],
)
def test_read_gate_config_errors_name_the_file_and_field(tmp_path, text, message):
    path = tmp_path / GATE_FILE
    if text is not None:
        path.write_text(text)
    with pytest.raises(GateConfigError) as caught:
        read_gate_config(path)
    assert str(caught.value) == f"{path}: {message}"


def test_required_for_takes_a_sets_file_name_wherever_it_lives():
    config = policy(required_cases={"ops.evalset.json": ["a", "b"]})
    assert config.required_for("runs/2024/evals/ops.evalset.json") == ["a", "b"]
    assert config.required_for("ops.evalset.json") == ["a", "b"]
    assert config.required_for("holdout.evalset.json") == []


# -- tightened: stricter from the command line, never more lenient ---------------------------------


def test_tightened_raises_the_suite_threshold_and_lowers_the_allowed_drop():
    base = policy()
    stricter = base.tightened(suite_threshold=0.9, regression_threshold=0.01)
    assert (stricter.suite_threshold, stricter.regression_threshold) == (0.9, 0.01)
    assert stricter.gating_scorers == base.gating_scorers
    assert (base.suite_threshold, base.regression_threshold) == (0.8, 0.05)  # unchanged
    assert base.tightened() == base
    assert base.tightened(suite_threshold=0.8, regression_threshold=0.05) == base
    assert base.tightened(suite_threshold=1, regression_threshold=0).suite_threshold == 1


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            {"suite_threshold": 0.7},
            "--suite-threshold 0.7: may only raise the configured 0.8, up to 1",
        ),
        ({"suite_threshold": 1.01}, "--suite-threshold 1.01: may only raise the configured 0.8"),
        ({"suite_threshold": float("nan")}, "--suite-threshold nan: may only raise"),
        (
            {"regression_threshold": 0.1},
            "--regression-threshold 0.1: may only lower the allowed drop from the configured "
            "0.05 (stricter), down to 0",
        ),
        ({"regression_threshold": -0.01}, "--regression-threshold -0.01: may only lower"),
        ({"regression_threshold": float("inf")}, "--regression-threshold inf: may only lower"),
    ],
    ids=["lower-suite", "suite-above-1", "suite-nan", "larger-drop", "negative-drop", "inf-drop"],
)
def test_tightened_refuses_a_more_lenient_flag_as_bad_input(flags, message):
    with pytest.raises(OpsEvalError) as caught:
        policy().tightened(**flags)
    assert caught.value.code == EXIT_BAD_INPUT
    assert str(caught.value).startswith(message)
