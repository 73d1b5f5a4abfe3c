"""`ops-eval audit-run` must fail where a minimal run's artefact holds what it must not: each
kind of leak planted by hand in a clean minimal record (or beside it) is found and named by
place -- never shown -- and exit 1; a clean record passes; bad input is exit 2."""

from __future__ import annotations

import json
import os

import pytest

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = ["service-status-inventory", "restart-needs-approval"]
SECRET = "carol.leak@example.org"


@pytest.fixture
def clean(tmp_path, ops_env):
    """A clean minimal record of two cases, and its JSON."""
    ops_env.setenv("OPS_EVAL_DATA_KEY", "team-key-0123456789abcdef")
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    out = tmp_path / "min.json"
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    execute(RunOptions(set_path=OPS, cases=CASES, output=out, data="minimal"),
            chooser=fixed_model(oracle, "oracle", "test model"))  # fmt: skip
    return out, json.loads(out.read_text())


def _audit(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["audit-run", *argv])
    return code, capsys.readouterr().out


def test_a_clean_minimal_record_passes(clean, capsys):
    code, said = _audit(capsys, str(clean[0]))
    assert code == 0 and "1 artefact(s) scanned, nothing it must not hold" in said


def _tampered(clean, edit) -> str:
    path, data = clean
    edit(data)
    path.write_text(json.dumps(data))
    return str(path)


EDITS = {
    "an answer kept as text": (
        lambda d: d["trials"][0]["turns"][0].update(response="Inventory is down."),
        "trials[0].turns[0].response: holds a value where a keyed hash belongs",
    ),
    "an argument kept as text": (
        lambda d: d["trials"][1]["turns"][0]["calls"][0]["args"].update(name="inventory"),
        "trials[1].turns[0].calls[0].args.name: holds a value where a keyed hash belongs",
    ),
    "a tool result kept beside its hash": (
        lambda d: d["trials"][0]["turns"][0]["calls"][0]["result"].update(owner="fulfilment"),
        "trials[0].turns[0].calls[0].result.owner: kept beside the hash",
    ),
    "the store's state kept": (
        lambda d: d["trials"][0].update(state_after={"services": ["inventory"]}),
        "trials[0].state_after.services[0]: kept beside the hash",
    ),
    "a label longer than declared": (
        lambda d: d["trials"][0]["scores"]["trajectory"].update(detail="passed " * 23),
        "trials[0].scores.trajectory.detail: a label of 161 characters (limit 160)",
    ),
    "an e-mail address in a label": (
        lambda d: d["trials"][0]["scores"]["facts"].update(detail=f"ask {SECRET}"),
        "trials[0].scores.facts.detail: e-mail address",
    ),
    "a scorer's detail kept beside its label": (
        lambda d: d["trials"][0]["scores"]["facts"].update(detail_hmac="says inventory is down"),
        "trials[0].scores.facts.detail_hmac: holds a value where a keyed hash belongs",
    ),
    "a copy of the trial's text in a detail": (  # no --planted: nothing names the value
        lambda d: d["trials"][0]["scores"]["not_contains"].update(
            detail="answer holds 'Marguerite Okonkwo' at 12"
        ),
        "trials[0].scores.not_contains.detail: 1 run(s) of 18+ characters outside the "
        "harness's vocabulary",
    ),
    "a copy of the trial's text, escaped, in an error": (
        lambda d: d["trials"][1].update(error="call 1: note='ZEBRA\\tQUASAR' is not 'x'"),
        "trials[1].error: 1 run(s) of 13+ characters outside the harness's vocabulary",
    ),
    "a label of several lines": (
        lambda d: d["trials"][0]["scores"]["trajectory"].update(detail="passed\nfailed"),
        "trials[0].scores.trajectory.detail: a label of 2 lines (one)",
    ),
    "an IP address in a note": (
        lambda d: d["notes"].append("served from 10.9.8.7"),
        "notes[0]: IPv4 address",
    ),
}


@pytest.mark.parametrize("kind", sorted(EDITS))
def test_each_kind_of_leak_in_a_record_is_found_and_named(clean, capsys, kind):
    edit, where = EDITS[kind]
    code, said = _audit(capsys, _tampered(clean, edit))
    assert code == 1
    assert f"LEAK record min.json {where}" in said
    assert "1 leak(s)" in said
    for shown in ("Inventory is down", "fulfilment", SECRET, "10.9.8.7", "Okonkwo", "QUASAR"):
        assert shown not in said  # named by place, never shown


def test_a_spans_file_a_leaking_log_and_a_planted_value_are_each_found(clean, capsys, tmp_path):
    path = clean[0]
    path.with_name("min.spans.jsonl").write_text("{}\n")
    log = tmp_path / "logs" / "run.log"
    log.parent.mkdir()
    log.write_text("trial 1 ok\nthe model said call +1 (555) 123-4567\nzebra-host-7 down\n")
    planted = tmp_path / "planted.txt"
    planted.write_text("zebra-host-7\n")
    code, said = _audit(capsys, str(path), "--also", str(log.parent), "--planted", str(planted))
    assert code == 1
    assert "LEAK spans min.spans.jsonl file: exists" in said
    assert f"LEAK {log} line 2: phone number" in said
    assert f"LEAK {log} planted value #1 (zeb…): found" in said
    assert "zebra-host-7" not in said and "555" not in said
    assert "2 artefact(s) scanned, 3 leak(s)" in said


def test_a_full_record_fails_the_audit(tmp_path, ops_env, capsys):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    out = tmp_path / "full.json"
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    execute(RunOptions(set_path=OPS, cases=CASES, output=out),
            chooser=fixed_model(oracle, "oracle", "test model"))  # fmt: skip
    code, said = _audit(capsys, str(out))
    assert code == 1
    assert "LEAK record full.json data: a full-data run" in said
    assert "trials[0].turns[0].prompt: holds a value where a keyed hash belongs" in said
    assert "LEAK spans full.spans.jsonl file: exists" in said


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--planted", "EMPTY"], "no value in it"),
        (["--also", "MISSING"], "no such file or folder"),
        (["--also", "/dev/null"], "--also /dev/null: a character device, not a file or folder"),
        (["--also", "FIFO"], "a named pipe (FIFO), not a file or folder"),
    ],
)
def test_bad_input_is_one_line_exit_2(clean, capsys, tmp_path, extra, message):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    os.mkfifo(tmp_path / "fifo")
    names = {"EMPTY": str(empty), "MISSING": str(tmp_path / "nope"), "FIFO": str(tmp_path / "fifo")}
    extra = [names.get(e, e) for e in extra]
    capsys.readouterr()
    assert main(["audit-run", str(clean[0]), *extra]) == 2
    assert message in capsys.readouterr().err
