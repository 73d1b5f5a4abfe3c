"""`ops-eval gate` on a run of some of its set's cases (`run --cases`): the decision leads and
says why, the subset is said once -- what was played, which required cases were not, and that
the gate can fail such a run but never pass it -- instead of one failure per required case and
a closing line that contradicted it (`gate: FAILED -- comparison pass`)."""

from __future__ import annotations

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"


def test_a_subset_is_one_line_and_the_decision_leads_and_ends(tmp_path, ops_env, capsys):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    oracle = fixed_model(OracleLlm.from_cases(read_evalset(OPS).cases), "oracle", "scripted")
    played = ["open-incidents", "list-skills"]  # both pass; neither is a required case
    execute(RunOptions(set_path=OPS, cases=played, output=tmp_path / "r.json"), chooser=oracle)
    capsys.readouterr()
    assert main(["gate", str(tmp_path / "r.json")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "gate: FAILED -- 6 required case(s) not run (a subset); no comparison"
    (subset,) = [line for line in lines if line.startswith("subset: ")]
    assert subset.startswith(
        "subset: the run played 2 of the 26 case(s) of evals/ops.evalset.json; 6 required "
        "case(s) were not run (restart-needs-approval, resolve-needs-approval, "
        "deny-restart-database, injection-in-database-log and 2 more), so the gate can fail it "
        "but never pass it"
    )
    assert not any("was not run" in line or "comparison pass" in line for line in lines)
    assert not any(line.startswith("FAIL: ") for line in lines)  # 2/2 pass: nothing else failed
    assert lines[-2] == lines[0]
    assert lines[-1].startswith("exit 1: the gate FAILED -- measured, not broken")
