"""A change of judge makes two runs incomparable, as a change of criteria does: a candidate
whose judged checks were skipped (no judge) must not read as an improvement over a baseline
whose judge failed them, and two judges (or two grading prompts) are two instruments."""

from __future__ import annotations

import pytest

from ops_eval.cli import main
from ops_eval.judging import GRADING, JudgeUse
from ops_eval.results.records import write_record
from ops_eval.results.synthetic import synthetic_record

CASES = [(f"case-{i:02d}", "happy", [True] * 5) for i in range(10)]


def use(pin: str, version: str = GRADING.version) -> JudgeUse:
    return JudgeUse(pin=pin, prompt_versions={"grade": version}, calls=3, tokens=30)


@pytest.fixture
def runs(tmp_path, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


def write(runs, run_id: str, hour: int, judge: JudgeUse | None) -> None:
    record = synthetic_record(
        CASES,
        run_id=run_id,
        started_at=f"2026-11-30T{hour:02d}:00:00+00:00",
        eval_set="evals/scenario.evalset.json",
    )
    record.judge = judge
    write_record(record, runs / f"{run_id}.json")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (use("judge-a#none"), None),  # the judge removed
        (None, use("judge-a#none")),  # a judge added
        (use("judge-a#none"), use("judge-b#none")),  # another judge
        (use("judge-a#none"), use("judge-a#none", "grade-000000000000")),  # another prompt
    ],
)
def test_a_change_of_judge_is_refused_unless_named(runs, capsys, before, after):
    write(runs, "base0001", 1, before)
    write(runs, "cand0001", 2, after)
    assert main(["gate", "cand0001", "--baseline", "base0001"]) == 2
    said = capsys.readouterr()
    assert "judge:" in said.out + said.err and "--allow-change judge" in said.out + said.err
    assert main(["gate", "cand0001", "--baseline", "base0001", "--allow-change", "judge"]) == 0


def test_the_same_judge_is_no_change(runs):
    write(runs, "base0001", 1, use("judge-a#none"))
    write(runs, "cand0001", 2, use("judge-a#none"))
    assert main(["gate", "cand0001", "--baseline", "base0001"]) == 0  # refused (2) on a change
