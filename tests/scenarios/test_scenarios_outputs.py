"""The report, the history and MLflow's rows show a scenario's turns, user and agent, and which
side ended the conversation."""

from __future__ import annotations

import json

from ops_eval.cli import main
from ops_eval.core.evalset import read_evalset
from ops_eval.models.stand_ins import OracleLlm, Saboteur, fixed_model
from ops_eval.outputs.tracking.rows import trial_outputs
from ops_eval.running.execute import execute
from ops_eval.running.options import RunOptions
from support import REPO

SCENARIOS = REPO / "evals" / "scenarios.evalset.json"
CASES = ["scn-restart-after-risk", "scn-deny-database-restart"]


def test_report_history_and_mlflow_rows_show_the_conversation(tmp_path, ops_env, capsys):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    oracle = OracleLlm.from_cases(read_evalset(SCENARIOS).cases)
    saboteur = Saboteur(turns=oracle.turns, skip_first_call_on=set(oracle.turns))
    options = RunOptions(set_path=SCENARIOS, cases=CASES, output=tmp_path / "run.json")
    code, record, path = execute(options, chooser=fixed_model(saboteur, "saboteur", "scripted"))
    assert code == 1
    assert main(["report", str(path)]) == 0
    markdown = path.with_suffix(".md").read_text()
    assert "conversation of 3 turn(s), ended by user (scripted user): rule otherwise" in markdown
    assert "turn 2: user: Before I approve: what is the risk of restarting it now?" in markdown
    html = path.with_suffix(".html").read_text()
    assert "the user answered the pause: deny" in html
    capsys.readouterr()
    assert main(["history", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["conversations"] == {"count": 2, "turns": 4, "ended_by": {"user": 2}}
    trial = next(t for t in record.trials if t.case_id == "scn-restart-after-risk")
    shown = trial_outputs(trial)["conversation"]
    assert shown["user"] == "scripted" and shown["ended_by"] == "user"
    assert shown["user_turns"][1] == "Before I approve: what is the risk of restarting it now?"
    assert shown["agent_turns"][2] == (
        "Inventory was restarted with your approval and is now operational."
    )
