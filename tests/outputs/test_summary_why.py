"""The terminal summary of a run (`ops-eval run`, `merge`) says why each case below the gate
failed, one line a case: its first failed trial's first gating scorer and that scorer's detail
(the expected and the actual call), shortest first, at most 20 lines."""

from __future__ import annotations

from pathlib import Path

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.models.stand_ins import OracleLlm, Saboteur, fixed_model
from ops_eval.outputs.report import summary_lines
from support import REPO

CASES = read_evalset(REPO / "evals" / "ops.evalset.json").cases
HEAD = "why (shortest first):"


def _summary(tmp_path: Path, model, cases=None) -> list[str]:
    options = RunOptions(output=tmp_path / "run.json", cases=cases)
    _, record, _ = execute(options, chooser=fixed_model(model, "test", "deterministic test"))
    return summary_lines(record, report="runs/run.html")


def _reasons(lines: list[str]) -> list[str]:
    """The indented lines under the heading."""
    after = lines[lines.index(HEAD) + 1 :]
    return after[: next(i for i, line in enumerate(after) if not line.startswith("  "))]


def _prompt(case_id: str) -> str:
    return next(c for c in CASES if c.eval_id == case_id).turns[0].prompt


def test_a_failed_case_is_one_line_naming_the_expected_and_the_missing_call(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.skip_first_call_on = {_prompt("recommend-fix-inc-002")}
    lines = _summary(tmp_path, model, ["recommend-fix-inc-002", "open-incidents"])
    why = _reasons(lines)
    assert why[0].startswith("  recommend-fix-inc-002 #1: trajectory: ")
    assert "expected get_incident(incident_id=INC-002), got " in why[0]
    assert not any("open-incidents" in line for line in why)  # it passed


def test_a_passing_run_says_no_reasons(tmp_path):
    lines = _summary(tmp_path, OracleLlm.from_cases(CASES), ["open-incidents", "list-skills"])
    assert HEAD not in lines


def test_at_most_twenty_reasons_then_how_many_more(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.skip_first_call_on = {t.prompt for c in CASES for t in c.turns}
    lines = _summary(tmp_path, model)
    failing = next(ln for ln in lines if "case(s) below the gate" in ln)
    below = int(failing.removeprefix("FAILED: ").split(" of ")[0])
    why = lines[lines.index(HEAD) + 1 :]
    reasons = [ln for ln in why if ln.startswith("  ") and " #" in ln]
    assert below > 20 and len(reasons) == 20
    assert f"  … and {below - 20} more (report: runs/run.html)" in why
    assert [len(r) for r in reasons] == sorted(len(r) for r in reasons)  # shortest first
