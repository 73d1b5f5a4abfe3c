"""How the validator reads its inputs and says what it found: malformed JSON (a line and a
column; NaN, Infinity or a key twice named by its key path), a schema ADK rejects, a file or
a folder of sets that is missing or unreadable (exit 2), every problem in one run, GitHub
annotations, and an ad-hoc set outside evals/ checked against the project's context files
(criteria, negatives, contracts) with one warning, as the run reads them."""

from __future__ import annotations

import shutil

import pytest
from validate_cli import EVALS, calls, case, load, mutate_ops, save, validate


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


def test_a_folder_without_eval_sets_is_bad_input(tmp_path, capsys):
    code, out, _ = validate(capsys, str(tmp_path))
    assert code == 2
    assert out == [f"{tmp_path}: no *.evalset.json files here: nothing to validate"]


def test_an_ad_hoc_set_falls_back_to_the_projects_context_files_with_one_warning(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EVALS / "ops.evalset.json", tmp_path / "mine.evalset.json")
    shutil.copy(EVALS / "ops.evalset.lock.json", tmp_path / "mine.evalset.lock.json")
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
    shutil.copy(EVALS / "ops.evalset.lock.json", tmp_path / "mine.evalset.lock.json")
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
