"""Where a mutation score goes after `ops-eval mutate` prints it: the runs folder's ledger,
`history --mutation`, the report of a run of that exact eval set, and MLflow (--mlflow)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.mutation import registered
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
TWO = "incident-off-by-one,log-search-ignores-query"


@pytest.fixture
def runs(tmp_path, ops_env):
    folder = tmp_path / "runs"
    ops_env.setenv("OPS_RUNS_DIR", str(folder))
    return folder


def _said(capsys, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_each_mutate_run_is_kept_and_history_lists_it(runs, capsys):
    code, out, _ = _said(capsys, ["mutate", "--mutants", TWO])
    assert code == 0 and f"mutation ledger: {runs / 'mutation.jsonl'}" in out
    code, out, _ = _said(capsys, ["history", "--mutation"])  # a table, by default
    assert code == 0 and out.startswith(
        "mutation history: 1 score(s) of evals/ops.evalset.json, newest 1/2 (50%) killed "
        "(oracle, a --mutants subset)\n"
    )
    assert "tool 1/2" in out and "log-search-ignores-query" in out and "subset" in out
    code, out, _ = _said(capsys, ["history", "--mutation", "--format", "csv"])
    assert code == 0
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert (row["killed"], row["counted"], row["score"], row["tool"]) == ("1", "2", "0.5", "1/2")
    assert row["survived"] == "log-search-ignores-query" and row["complete"] == "False"
    assert row["mode"] == "oracle" and row["eval_set"] == "evals/ops.evalset.json"
    code, out, _ = _said(capsys, ["history", "--mutation", "--format", "json"])
    assert json.loads(out)[0]["killed"] == 1


def test_the_report_of_a_run_quotes_the_newest_complete_score_of_its_exact_eval_set(runs, capsys):
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    chooser = fixed_model(oracle, "oracle", "scripted: the expected calls")
    _, _, path = execute(
        RunOptions(set_path=OPS, cases=["open-incidents"], output=runs / "r.json"),
        chooser=chooser,
    )

    def reported() -> str:
        assert _said(capsys, ["report", str(path)])[0] == 0
        return path.with_suffix(".md").read_text(encoding="utf-8")

    assert "mutation score" not in reported()  # never measured
    _said(capsys, ["mutate", "--mutants", TWO])  # a subset is not the set's score
    assert "mutation score" not in reported()
    code, out, _ = _said(capsys, ["mutate"])
    assert code == 0
    killed = out.splitlines()[-2]  # the score line, before the ledger's
    assert killed.startswith("mutation score of evals/ops.evalset.json: 7/")
    report = reported()
    n = len(registered())
    score = f"7/{n} ({7 / n:.0%}); tool 5/9, guard 0/4, policy 2/4"
    line = f"- mutation score of this eval set: {score}"
    assert line in report
    assert "mutation score of this eval set: 7/" in path.with_suffix(".html").read_text()


def test_a_ledger_line_that_is_not_an_entry_is_exit_2_naming_it(runs, capsys):
    runs.mkdir()
    (runs / "mutation.jsonl").write_text('{"time": "x"}\n')
    code, _, err = _said(capsys, ["history", "--mutation"])
    assert code == 2 and "mutation.jsonl: line 1: not a mutation entry" in err
    code, _, err = _said(capsys, ["history", "--mutation", "--format", "html"])
    assert code == 2 and "csv or json" in err


def test_mlflow_gets_the_score_as_metrics_and_the_entry_as_an_artifact(store, capsys):
    code, out, _ = _said(capsys, ["mutate", "--mutants", TWO, "--mlflow"])
    assert code == 0, out
    import mlflow

    mlflow.set_tracking_uri(store)
    (run,) = mlflow.search_runs(
        experiment_names=["ops-copilot"], filter_string="tags.ops_kind = 'mutation'",
        output_format="list",
    )  # fmt: skip
    assert run.data.metrics["mutation_score"] == 0.5
    assert run.data.metrics["mutation_score_tool"] == 0.5
    assert run.data.params["mode"] == "oracle" and run.data.params["complete"] == "False"
    assert f"mlflow: run {run.info.run_id}" in out


def test_a_score_with_the_red_team_or_live_says_so_and_the_report_takes_no_live_one(runs):
    from ops_eval.mutation import append, entry_of, latest_for

    verdicts = [("a", "tool", "killed"), ("b", "guard", "killed"), ("c", "tool", "equivalent")]
    offline = entry_of("evals/x.json", "f" * 64, "oracle+redteam", "oracle", verdicts, True)
    assert offline.text() == "2/2 (100%) with the red team; tool 1/1, guard 1/1"
    assert offline.equivalent == ["c"] and offline.survived == []
    live = entry_of(
        "evals/x.json", "f" * 64, "live", "qwen", [("d", "instruction", "inconclusive")], True
    )
    assert live.text() == "0/1 (0%) on qwen; instruction 0/1" and live.survived == ["d"]
    append(offline, runs)
    append(live, runs)
    assert latest_for(runs, "f" * 64) == offline  # a live score is not the set's score


def test_a_score_is_the_runs_when_it_measured_the_same_cases_at_the_same_hashes(runs):
    """The exact eval set is its cases: another spelling of the file (a new sha256) keeps the
    score; a case added or edited since means the set was not measured."""
    from ops_eval.mutation import append, entry_of, latest_for
    from ops_eval.results.synthetic import case_hash, synthetic_record

    outcomes = [(f"case-{i}", "lookup", [True]) for i in range(3)]
    hashes = {case: case_hash(case) for case, _, _ in outcomes}
    run = synthetic_record(outcomes, eval_set_sha256="a" * 64)
    verdicts = [("a", "tool", "killed"), ("b", "tool", "survived")]
    score = entry_of("evals/x.json", "b" * 64, "oracle", "oracle", verdicts, True, hashes)
    append(score, runs)
    assert latest_for(runs, run) == score  # reformatted since: same cases, same hashes
    edited = synthetic_record(outcomes, versions={"case-1": (2, case_hash("case-1", edit=1))})
    assert latest_for(runs, edited) is None
    grown = synthetic_record([*outcomes, ("case-3", "lookup", [True])])
    assert latest_for(runs, grown) is None
    part = synthetic_record(outcomes[:2], eval_set_cases=3)  # two cases of the same three
    assert latest_for(runs, part) == score
    older = entry_of("evals/x.json", "a" * 64, "oracle", "oracle", verdicts, True)
    append(older, runs)  # an entry without case hashes: by the file's sha256, as before
    assert latest_for(runs, run) == older and latest_for(runs, edited) is None
