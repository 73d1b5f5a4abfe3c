"""Minimal-data runs end to end: secrets and personal data planted in a seed copy, in the prompts
and in the scripted model's answers; the same runs kept in full and under `--data minimal`.

What a minimal run writes -- its record, its console output, its reports, the history, the gate
ledger and the MLflow store -- holds none of the planted values (`ops-eval audit-run`, exit 0),
while the full run's artefacts hold them (exit 1, each named); the gate's verdicts are the same;
hashes compare under one key and not across two.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ops_eval import RunOptions, execute, read_evalset, run_summary
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

KEY = "team-key-0123456789abcdef"
OTHER_KEY = "other-key-fedcba9876543210"
EMAIL = "alice.planted@example.com"
PHONE = "+44 20 7946 0958"
IP = "10.66.77.88"
TOKEN = "sk-live-PLANTEDa1b2c3d4e5f6g7h8"
PASSWORD = "Plant3dPassw0rd"
URL = "https://svc:hunter2planted@db.internal.example/orders"
AWS = "AKIAPLANTED123456789"
PLANTED = [EMAIL, PHONE, IP, TOKEN, PASSWORD, URL, "hunter2planted", AWS]

LOG_LINE = (
    f"2026-11-29T10:06:20Z ERROR checkout-5b7c8-lm2d payment timeout calling {URL} for {EMAIL} "
    f"from {IP} (key {TOKEN})\n"
)
PROMPTS = {  # case -> what the user adds to the prompt
    "service-status-inventory": f" I am {EMAIL}, on call at {PHONE}.",
    "diagnose-checkout-with-logs": f" The box is {IP}; use password={PASSWORD} if asked.",
}
ANSWERS = {  # case -> what the scripted model adds to its answer
    "service-status-inventory": f" Page {EMAIL} at {PHONE}.",
    "incident-detail-inc-002": f" The deploy key is {AWS}; the gateway is {IP}.",
    "diagnose-checkout-with-logs": f" The failing call was {URL} with key {TOKEN}.",
}
BROKEN = "recommend-fix-inc-002"
"""The candidate's scripted model answers this case with a planted secret and nothing else."""


def _planted_set(folder: Path, minimal: bool) -> Path:
    """The ops set with the planted prompts and references, and a gate policy beside it that
    lists it under minimal_data when `minimal`."""
    folder.mkdir()
    for path in (REPO / "evals").iterdir():
        if path.is_file() and not path.name.endswith(".lock.json"):  # a new set: no versions
            shutil.copy(path, folder / path.name)
    data = json.loads((REPO / "evals" / "ops.evalset.json").read_text())
    for case in data["eval_cases"]:
        turn = case["conversation"][0]
        turn["user_content"]["parts"][0]["text"] += PROMPTS.get(case["eval_id"], "")
        if turn.get("final_response"):
            turn["final_response"]["parts"][0]["text"] += ANSWERS.get(case["eval_id"], "")
    path = folder / "ops.evalset.json"
    path.write_text(json.dumps(data, indent=1))
    gate = (REPO / "evals" / "gate.yaml").read_text()
    if minimal:
        gate = gate.replace("minimal_data: []", "minimal_data:\n  - ops.evalset.json")
    (folder / "gate.yaml").write_text(gate)
    return path


@pytest.fixture
def world(tmp_path, seed_copy, ops_env):
    """The planted seed (OPS_SEED_DIR), the planted set twice (plain; minimal by gate.yaml),
    the planted values' file, and the data key."""
    with (seed_copy / "logs" / "checkout.log").open("a") as log:
        log.write(LOG_LINE)
    ops_env.setenv("OPS_SEED_DIR", str(seed_copy))
    ops_env.setenv("OPS_EVAL_DATA_KEY", KEY)
    planted = tmp_path / "planted.txt"
    planted.write_text("\n".join(PLANTED) + "\n")
    full = _planted_set(tmp_path / "plain", minimal=False)
    declared = _planted_set(tmp_path / "declared", minimal=True)
    return tmp_path, full, declared, planted


def _oracle(set_path: Path, broken: bool = False) -> OracleLlm:
    oracle = OracleLlm.from_cases(read_evalset(set_path).cases)
    if broken:
        case = next(c for c in read_evalset(set_path).cases if c.eval_id == BROKEN)
        prompt = case.turns[0].prompt
        oracle.turns[prompt] = ([], f"Ask {EMAIL}; the token is {TOKEN}.")
    return oracle


def _run(set_path: Path, out: Path, capsys, broken=False, data=None) -> tuple[int, object, str]:
    """A scripted run; (exit code, record, everything it printed)."""
    model = fixed_model(_oracle(set_path, broken), "oracle", "deterministic test model")
    options = RunOptions(set_path=set_path, output=out, data=data)
    code, record, _ = execute(options, chooser=model, summary=run_summary)  # as `ops-eval run`
    printed = capsys.readouterr()
    return code, record, printed.out + printed.err


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    printed = capsys.readouterr()
    return code, printed.out + printed.err


def _artefacts(runs: Path, record: Path, log: str, capsys) -> Path:
    """Reports, history and the console log of `record`'s run, in a folder of their own."""
    folder = runs / f"artefacts-{record.stem}"
    folder.mkdir()
    (folder / "run.log").write_text(log)
    code, said = _cli(
        capsys, "report", str(record), "--markdown", str(folder / "r.md"), "--html",
        str(folder / "r.html"),
    )  # fmt: skip
    assert code == 0, said
    for fmt in ("csv", "json", "html"):
        code, said = _cli(capsys, "history", "--format", fmt, "--output", str(folder / f"h.{fmt}"))
        assert code == 0, said
    (folder / "commands.log").write_text(said)
    return folder


@pytest.mark.usefixtures("mlflow_installed")
def test_a_minimal_run_keeps_none_of_the_planted_values_and_the_gate_decides_alike(
    world, store, mlflow_cli, capsys, ops_env
):
    tmp, plain, declared, planted = world
    ops_env.setenv("OPS_SEED_DIR", str(tmp / "seed"))  # `store` reloaded the settings
    ops_env.setenv("OPS_EVAL_DATA_KEY", KEY)
    full_runs, min_runs = tmp / "full-runs", tmp / "min-runs"
    kept: dict[str, dict] = {"full": {}, "minimal": {}}
    for kind, runs, set_path in (("full", full_runs, plain), ("minimal", min_runs, declared)):
        ops_env.setenv("OPS_RUNS_DIR", str(runs))
        runs.mkdir()
        for name, broken in (("base", False), ("cand", True)):
            out = runs / f"{name}.json"
            code, record, log = _run(set_path, out, capsys, broken=broken)
            kept[kind][name] = (code, record, out, log)
        gate_code, gate_said = _cli(
            capsys, "gate", str(runs / "cand.json"), "--baseline", str(runs / "base.json"),
            "--format", "json",
        )  # fmt: skip
        kept[kind]["gate"] = (gate_code, json.loads(gate_said[gate_said.index("{") :]))

    # The same verdicts, trial by trial, and the same gate decision.
    for name in ("base", "cand"):
        full, minimal = kept["full"][name], kept["minimal"][name]
        assert minimal[1].data is not None and full[1].data is None
        assert (full[0], full[1].gate_passed) == (minimal[0], minimal[1].gate_passed)
        assert [(t.case_id, t.status) for t in full[1].trials] == [
            (t.case_id, t.status) for t in minimal[1].trials
        ]
        assert [sorted((k, s.outcome) for k, s in t.scores.items()) for t in full[1].trials] == [
            sorted((k, s.outcome) for k, s in t.scores.items()) for t in minimal[1].trials
        ]
    assert kept["full"]["cand"][1].gate_passed is False  # the broken answer fails it
    full_gate, min_gate = kept["full"]["gate"], kept["minimal"]["gate"]
    assert full_gate[0] == min_gate[0] == 0  # one case of 26 down: noise to the comparison
    assert full_gate[1]["verdict"] == min_gate[1]["verdict"]
    assert "spans" not in " ".join(p.name for p in min_runs.iterdir())

    # Every artefact of the minimal runs: none of the planted values, no text a rule matches.
    for kind, runs in (("minimal", min_runs), ("full", full_runs)):
        ops_env.setenv("OPS_RUNS_DIR", str(runs))
        cand = kept[kind]["cand"]
        folder = _artefacts(runs, cand[2], cand[3], capsys)
        code, out, err = mlflow_cli(["--from-run", str(cand[2])])
        assert code == 1, out + err  # the broken case fails, in MLflow too
        (folder / "mlflow.log").write_text(out + err)
        code, said = _cli(
            capsys, "audit-run", str(cand[2]), "--also", str(folder), "--also",
            str(runs / "gate-ledger.jsonl"), "--planted", str(planted), "--mlflow",
        )  # fmt: skip
        kept[kind]["audit"] = (code, said)
        rows = json.loads((folder / "h.json").read_text())
        assert {row["data"] for row in rows} == {kind}
    code, said = kept["minimal"]["audit"]
    assert code == 0, said
    assert "nothing it must not hold" in said and "LEAK" not in said
    # ... while the full run's hold them, each place named and none of the values shown.
    code, said = kept["full"]["audit"]
    assert code == 1
    for where in ("record cand.json trials[", "spans cand.spans.jsonl", "r.md", "r.html",
                  "mlflow run", "mlflow store mlflow.db"):  # fmt: skip
        assert where in said, where
    assert f"planted value #{PLANTED.index(URL) + 1}" in said
    for value in PLANTED:
        assert value not in said


def test_hashes_compare_under_one_key_and_not_across_two(world, capsys, ops_env):
    tmp, plain, _, _ = world
    ops_env.setenv("OPS_RUNS_DIR", str(tmp / "runs"))
    one = _run(plain, tmp / "one.json", capsys, data="minimal")[1]
    two = _run(plain, tmp / "two.json", capsys, broken=True, data="minimal")[1]
    ops_env.setenv("OPS_EVAL_DATA_KEY", OTHER_KEY)
    other = _run(plain, tmp / "other.json", capsys, data="minimal")[1]
    assert one.data.key_id == two.data.key_id != other.data.key_id

    code, said = _cli(capsys, "compare-hashes", str(tmp / "one.json"), str(tmp / "two.json"))
    assert code == 0, said
    # Every answer but the broken case's is the same answer; the broken case differs.
    answers = sum(len(t.turns) for t in one.trials)
    assert f"answers {answers - 1} equal, 1 different" in said
    by_case = {t.case_id: t for t in two.trials}
    for trial in one.trials:
        same = trial.turns[0].response == by_case[trial.case_id].turns[0].response
        assert same == (trial.case_id != BROKEN), trial.case_id
    # What each scorer said, compared by the hash of its detail: only the broken case's differ.
    said_apart = {
        (t.case_id, name)
        for t in one.trials
        for name, score in t.scores.items()
        if score.detail_hmac != by_case[t.case_id].scores[name].detail_hmac
    }
    assert {case for case, _ in said_apart} == {BROKEN}
    assert f"{len(said_apart)} different" in said.split("scorer details")[1]

    code, said = _cli(capsys, "compare-hashes", str(tmp / "one.json"), str(tmp / "other.json"))
    assert code == 2
    assert "nothing comparable" in said and "different keys" in said
    # Under two keys no hash of one run equals any of the other's: nothing to compare by.
    hashes = lambda r: {t.turns[0].response for t in r.trials if t.turns}  # noqa: E731
    assert not hashes(one) & hashes(other)
    # The gate still decides by verdicts, and says why it cannot show where trajectories part.
    code, said = _cli(capsys, "gate", str(tmp / "two.json"), "--baseline", str(tmp / "other.json"))
    assert code == 0  # one case down of 26: noise to the gate, which says where it flipped
    assert "calls and answers not compared (runs" in said and "different keys" in said
