"""Every CLI input is checked up front: bad input is one precise line and exit 2, before any
model is chosen or any trial runs, never a traceback.

Runs name a model that does not exist (`replay:` of a missing file): an input check that comes
too late would show up as that model's error instead of the input's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ops_eval.cli import main

NO_MODEL = "replay:/nonexistent/recording.jsonl"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("cases", [",", "", " , ,"])
def test_an_empty_case_list_is_refused(here, capsys, cases):
    code, _, err = cli(capsys, "run", "--cases", cases, "--model", NO_MODEL, "--output", "r.json")
    assert code == 2
    assert err == "error: --cases: no eval id given; name at least one, comma-separated\n"


@pytest.mark.parametrize("attacks", [",", ""])
def test_an_empty_attack_list_is_refused(here, capsys, attacks):
    code, _, err = cli(capsys, "redteam", "--attacks", attacks)
    assert code == 2
    assert err == "error: --attacks: no attack id given; name at least one, comma-separated\n"


@pytest.mark.parametrize("timeout", ["0", "-5", "nan", "inf", "1e-300", "0.5"])
def test_a_timeout_must_be_a_finite_number_of_seconds_from_the_minimum(here, capsys, timeout):
    from ops_eval.base.inputs import MIN_TIMEOUT_S

    argv = ["run", "--timeout", timeout, "--model", NO_MODEL, "--output", "r.json"]
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert err == (
        f"error: --timeout: {float(timeout):g} is not a number of seconds from "
        f"{MIN_TIMEOUT_S:g} up (a shorter one only times trials out)\n"
    )


def test_a_folder_given_for_the_recording_is_refused_before_the_model(here, capsys):
    (here / "rec").mkdir()
    argv = ["run", "--record", "rec", "--model", NO_MODEL, "--output", "r.json"]
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert err == "error: --record rec: is a folder; give a file path\n"


@pytest.mark.parametrize("port", ["0", "70000"])
def test_a_port_outside_the_tcp_range_is_refused(here, capsys, port):
    code, _, err = cli(capsys, "web", "--port", port, "--model", NO_MODEL)
    assert code == 2
    assert err == f"error: --port: {port} is not a TCP port (1 to 65535)\n"


def _folder(path):
    path.mkdir()


def _binary(path):
    path.write_bytes(b"\x00\x9f\x92\x96 not text")


@pytest.mark.parametrize(
    ("make", "message"),
    [(_folder, "is a folder, not a file"), (_binary, "not UTF-8 text (byte 0x9f at offset 1)")],
)
def test_an_eval_set_that_is_a_folder_or_binary_is_refused(here, capsys, make, message):
    make(here / "x.evalset.json")
    argv = ["run", "--set", "x.evalset.json", "--model", NO_MODEL, "--output", "r.json"]
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert err == f"error: x.evalset.json: {message}\n"


def _record(path, **changes):
    path.write_text(json.dumps({"schema_version": 2, **changes}))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_folder, "is a folder; give a run record file or a run id"),
        (_binary, "not UTF-8 text (byte 0x9f at offset 1)"),
        (
            lambda p: _record(p, schema_version=999),
            "schema_version 999 is not supported (supported: 2 to 6)",
        ),  # fmt: skip
        (
            lambda p: _record(p, schema_version="2"),
            "schema_version '2' is not supported (supported: 2 to 6)",
        ),  # fmt: skip
        (lambda p: p.write_text("[1, 2]"), "not a run record (the top level is not an object)"),
        (
            lambda p: p.write_text("{"),
            "not JSON (Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1))",
        ),  # fmt: skip
    ],
)
def test_a_run_record_that_cannot_be_read_is_one_line(here, capsys, make, message):
    make(here / "run.json")
    code, _, err = cli(capsys, "report", "run.json")
    assert code == 2
    assert err == f"error: run.json: {message}\n"
    assert not (here / "run.md").exists()  # no partial output


def test_a_replay_model_needs_a_file(here, capsys, monkeypatch):
    code, _, err = cli(capsys, "run", "--model", "replay:", "--output", "r.json")
    assert code == 2
    assert err == "error: --model: replay: needs a recording file (replay:FILE)\n"
    monkeypatch.setenv("OPS_AGENT_MODEL", "replay:  ")
    code, _, err = cli(capsys, "run", "--output", "r.json")
    assert code == 2
    assert err == "error: OPS_AGENT_MODEL: replay: needs a recording file (replay:FILE)\n"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_folder, "is a folder, not a recording"),
        (_binary, "not UTF-8 text (byte 0x9f at offset 1)"),
    ],
)
def test_a_replay_file_that_is_a_folder_or_binary(here, capsys, make, message):
    make(here / "rec.jsonl")
    code, _, err = cli(capsys, "run", "--model", "replay:rec.jsonl", "--output", "r.json")
    assert code == 2
    assert err == f"error: --model: replay file rec.jsonl: {message}\n"


LOOPED = [
    ["validate", "loop.json"],
    ["run", "--set", "loop.json", "--model", NO_MODEL, "--output", "r.json"],
    ["run", "--model", "replay:loop.json", "--output", "r.json"],
    ["run", "--model", "gguf:loop.json", "--output", "r.json"],
    ["run", "--record", "loop.json", "--model", NO_MODEL, "--output", "r.json"],
    ["run", "--output", "loop.json", "--model", NO_MODEL],
    ["merge", "loop.json"],
    ["report", "loop.json"],
    ["gate", "loop.json"],
    ["ab", "loop.json", "loop.json"],
    ["mlflow", "--from-run", "loop.json"],
    ["calibrate", "--set", "loop.json"],
    ["redteam", "--corpus", "loop.json"],
    ["redteam", "--benign", "loop.json"],
    ["audit", "verify", "loop.json"],
]


@pytest.mark.parametrize("argv", LOOPED, ids=[" ".join(a[:2]) for a in LOOPED])
def test_a_symlink_loop_is_one_line_and_exit_2_wherever_a_path_is_read(here, capsys, ops_env, argv):
    """`ln -s loop.json loop.json`: every reader says it cannot be read, as for any unreadable
    file (Python 3.11's Path.resolve raised RuntimeError on it: a traceback)."""
    ops_env.setenv("OPS_RUNS_DIR", str(here / "runs"))
    ops_env.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{here / 'mlflow.db'}")
    (here / "loop.json").symlink_to("loop.json")
    code, out, err = cli(capsys, *argv)
    said = err if argv[0] != "validate" else out  # validate lists findings, then a summary
    assert code == 2, err
    assert said.count("\n") == 1 and "Traceback" not in out + err
    assert "loop.json" in said and "Too many levels of symbolic links" in said, said


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shard", "1/2", "--repeats", "100000000000"], "--repeats: 100000000000 is not a whole"),
        (["--repeats", "1001"], "--repeats: 1001 is not a whole number from 1 to 1,000"),
        (["--concurrency", "100000"], "--concurrency: 100000 is not a whole number from 1 to 64"),
        (["--shard", "1/1001"], "--shard: '1/1001': at most 1,000 shards"),
        (["--shard", f"1/{'9' * 5000}"], "is not I/N"),
        (["--timeout", "1e300"], "--timeout: 1e+300 seconds; at most 86,400 (a day)"),
    ],
    ids=["huge-repeats-sharded", "repeats", "concurrency", "shards", "digits", "timeout"],
)
def test_every_count_option_has_an_upper_bound(here, capsys, argv, message):
    """`--shard 1/2 --repeats 100000000000` planned every trial in memory and died of
    MemoryError after seconds; a count past its documented bound is one line, at once."""
    code, _, err = cli(capsys, "run", *argv, "--model", NO_MODEL, "--output", "r.json")
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_a_replay_file_nested_too_deeply_is_one_line(here, capsys):
    (here / "deep.jsonl").write_text("[" * 200_000 + "]" * 200_000 + "\n")
    code, _, err = cli(capsys, "run", "--model", "replay:deep.jsonl", "--output", "r.json")
    assert code == 2 and err.count("\n") == 1 and "line 1: nested too deeply" in err, err


LONG = "a" * 300 + ".json"  # one name longer than the file system takes (ENAMETOOLONG)
NAMED = [
    ["validate", LONG],
    ["merge", LONG],
    ["gate", LONG],
    ["ab", LONG, LONG],
    ["report", LONG],
    ["run", "--model", f"replay:{LONG}", "--output", "r.json"],
    ["run", "--record", LONG, "--model", NO_MODEL, "--output", "r.json"],
    ["run", "--output", LONG, "--model", NO_MODEL],
    ["history", "--output", LONG],
    ["seed", "--seed-dir", LONG],
    ["audit", "verify", LONG],
]


@pytest.mark.parametrize("argv", NAMED, ids=[" ".join(a[:2])[:30] for a in NAMED])
def test_a_name_too_long_for_the_file_system_is_one_line(here, capsys, ops_env, argv):
    """A 300-character file name raised OSError (File name too long) as a traceback from
    whichever path check met it first."""
    ops_env.setenv("OPS_RUNS_DIR", str(here / "runs"))
    code, out, err = cli(capsys, *argv)
    said = out + err
    assert code == 2 and "Traceback" not in said, said
    assert "File name too long" in said and said.count("\n") <= 2, said  # validate: + a summary


def _a_run(here) -> str:
    from ops_eval.results.records import write_record
    from ops_eval.results.synthetic import synthetic_record

    (here / "runs").mkdir(exist_ok=True)
    record = synthetic_record([("case-1", "happy", [True])], run_id="run00001")
    write_record(record, here / "runs" / "run00001.json")
    return str(here / "runs" / "run00001.json")


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{run}", "--markdown", "pipe"],
        ["report", "{run}", "--html", "pipe"],
        ["history", "--output", "pipe"],
        ["run", "--record", "pipe", "--model", NO_MODEL, "--output", "r.json"],
        ["run", "--output", "pipe", "--model", NO_MODEL],
    ],
    ids=["report-md", "report-html", "history", "run-record", "run-output"],
)
def test_a_named_pipe_as_an_output_is_refused_not_a_hang(here, capsys, ops_env, argv):
    """Writing to a FIFO blocks until a reader comes: the command hung."""
    import os

    ops_env.setenv("OPS_RUNS_DIR", str(here / "runs"))
    os.mkfifo(here / "pipe")
    run = _a_run(here)
    code, _, err = cli(capsys, *[a.format(run=run) for a in argv])
    assert code == 2 and err.count("\n") == 1 and "pipe: is not a regular file" in err, err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "--repeats", "abc"], "ops-eval run: argument --repeats: invalid int value"),
        (["run", "--timeout", "0x10"], "ops-eval run: argument --timeout: invalid float value"),
        (["gate", "--suite-threshold", "nan"], "ops-eval gate: argument --suite-threshold: nan"),
        (["calibrate", "--min-kappa", "inf"], "ops-eval calibrate: argument --min-kappa: inf"),
        (["web", "--port", "abc"], "ops-eval web: argument --port: invalid int value"),
        (["no-such-command"], "ops-eval: argument command: invalid choice"),
    ],
)
def test_an_argument_argparse_refuses_is_one_line_too(here, capsys, argv, says):
    """argparse printed its usage block above the error: several lines on stderr."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and says in err, err
    assert err.startswith("error: ") and "--help" in err


@pytest.mark.parametrize("variable", ["OPS_LEDGER_KEY", "OPS_AGENT_MODEL", "OPS_RUNS_DIR"])
def test_an_environment_variable_that_is_not_utf8_is_one_line(here, capsys, monkeypatch, variable):
    """A byte that is not UTF-8 reaches Python as a lone surrogate, which the settings refuse:
    a ValidationError traceback before any command ran."""
    monkeypatch.setenv(variable, "replay:\udcff")
    code, _, err = cli(capsys, "history")
    monkeypatch.delenv(variable)  # before the suite's own settings reload at teardown
    assert code == 2 and err.count("\n") == 1 and f"error: environment: {variable}: " in err, err


def test_a_name_the_terminal_cannot_encode_is_shown_escaped(here):
    """Under an ASCII-only output encoding, printing `José` ended the command with a
    UnicodeEncodeError traceback."""
    import os
    import subprocess
    import sys

    (here / "café.json").write_text("{")
    env = {**os.environ, "PYTHONIOENCODING": "ascii:strict"}
    script = Path(sys.executable).with_name("ops-eval")
    done = subprocess.run(
        [str(script), "validate", "café.json"], cwd=here, env=env, capture_output=True, text=True
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.startswith("caf\\xe9.json: line 1, column 2: invalid JSON")
