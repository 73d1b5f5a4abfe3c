"""The offline validator on the repository itself: it validates, in one process without LiteLLM
(and without ADK when warm); the main set covers what the project promises; ADK's own
loader reads every set unchanged and the criteria as strict IN_ORDER."""

from __future__ import annotations

import pytest
from validate_cli import EVALS, calls, case, load, validate

from support import REPO


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
