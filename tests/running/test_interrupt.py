"""Ctrl-C keeps what finished: `ops-eval run` stopped by SIGINT or SIGTERM after N finished
trials writes a record of those N, marked interrupted (exit 3); the summary, both reports and
`history` say so; the gate refuses it as a candidate and as a baseline, and merge as a shard.

The CLI runs as a real process against a scripted OpenAI-compatible server (`fake_openai`, a
stand-in named as such) that answers each call after a pause, so the signal lands mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_openai import fake_openai, text
from ops_eval import load_record
from ops_eval.cli import main
from support import REPO

pytestmark = pytest.mark.e2e  # a run in a child process, against a server in this one

CASES = [
    "service-status-inventory",
    "incident-detail-inc-002",
    "unknown-incident-inc-999",
    "relevance-no-tool",
    "open-incidents",
    "list-skills",
]
PAUSE_S = 0.8  # each model answer; a trial is one call (the script answers at once)


def slow_answer(request: dict) -> dict:
    time.sleep(PAUSE_S)
    return text("Inventory is down; INC-002 (SEV1) is open.")


def interrupted_run(
    tmp_path: Path, signum: int, after: int, *options: str, times: int = 1, prelude: str = ""
) -> tuple[int, str, Path]:
    """Run the CLI, send `signum` (`times` times) once `after` trials have finished; (exit code,
    its output, the record's path, under the runs folder). `prelude`: Python the process runs
    before the CLI (when given, the CLI is started through `python -c`)."""
    out = tmp_path / "runs" / "interrupted.json"
    with fake_openai(slow_answer) as (base, _):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPS_")}
        env.update(
            OPS_AGENT_MODEL="openai/fake",
            OPS_AGENT_BASE_URL=base,
            OPS_RUNS_DIR=str(tmp_path / "runs"),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        argv = ["run", "--cases", ",".join(CASES), "--output", str(out), *options]
        cli = [str(Path(sys.executable).with_name("ops-eval"))]
        if prelude:
            run_cli = "import sys\nfrom ops_eval.cli import main\nsys.exit(main(sys.argv[1:]))"
            cli = [sys.executable, "-c", f"{prelude}\n{run_cli}"]
        proc = subprocess.Popen(
            [*cli, *argv],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        err_lines = []
        assert proc.stderr is not None
        for line in proc.stderr:
            err_lines.append(line)
            if line.startswith(f"trial {after}/"):
                for _ in range(times):  # back to back: the second lands while the first unwinds
                    proc.send_signal(signum)
                break
        stderr = "".join(err_lines) + proc.stderr.read()
        code = proc.wait(timeout=60)
    return code, stderr + proc.stdout.read(), out  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("signum", "times"), [(signal.SIGINT, 1), (signal.SIGTERM, 1), (signal.SIGINT, 2)]
)
def test_a_run_stopped_after_n_trials_keeps_them_marked_interrupted(tmp_path, signum, times):
    """A second Ctrl-C, while what finished is being written, does not cut the record short."""
    code, output, path = interrupted_run(tmp_path, signum, 2, times=times)
    assert code == 3, output
    record = load_record(path)
    stopped = record.interrupted
    assert stopped is not None and stopped.planned == len(CASES)
    # the signal lands while trial 3 plays: it is cut off, the two before it are kept
    assert stopped.finished == len(record.trials) == 2, output
    assert [t.case_id for t in record.trials] == CASES[:2]
    assert all(t.turns and t.status != "error" for t in record.trials)
    assert not record.gate_passed and record.exit_code == 3
    assert "interrupted (Ctrl-C or SIGTERM) after 2 of 6 trials" in output
    assert "nothing was recorded" not in output


# CPython 3.11's ast conversion can fail once a signal landed mid-run ("AST constructor recursion
# depth mismatch", gh-106905); it failed a CI run when the scorers' digest parsed their source
# while the record of an interrupted run was built. Here any parse after the signal fails so.
PARSE_FAILS_AFTER_SIGNAL = """
import ast, signal
from ops_eval.base import exits

signalled, parse, interrupt = [], ast.parse, exits._interrupt

def _interrupt(signum, frame):
    signalled.append(signum)
    interrupt(signum, frame)

def _parse(*args, **kwargs):
    if signalled:
        raise SystemError("AST constructor recursion depth mismatch (before=60, after=110)")
    return parse(*args, **kwargs)

exits._interrupt, ast.parse = _interrupt, _parse
"""


def test_the_record_of_a_stopped_run_needs_no_source_parsed_after_the_signal(tmp_path):
    """What the run was of (the scorers' code digest among it) is read before it plays."""
    code, output, path = interrupted_run(
        tmp_path, signal.SIGTERM, 2, prelude=PARSE_FAILS_AFTER_SIGNAL
    )
    assert code == 3, output
    record = load_record(path)
    assert record.interrupted is not None and len(record.trials) == 2
    assert record.scorers_sha256


def test_the_gate_report_and_history_never_take_an_interrupted_run_for_a_whole_one(
    tmp_path, capsys, monkeypatch
):
    code, output, path = interrupted_run(tmp_path, signal.SIGINT, after=2)
    assert code == 3, output
    monkeypatch.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))

    assert main(["gate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "interrupted after 2 of its 6 trials (Ctrl-C or SIGTERM)" in err
    assert "the gate decides on whole runs only; run it again" in err
    assert main(["baseline", "pin", str(path), "--name", "partial"]) == 2
    assert "interrupted after 2 of its 6 trials" in capsys.readouterr().err
    assert main(["mlflow", "--from-run", str(path)]) == 2
    assert "only a whole run is logged" in capsys.readouterr().err

    whole = tmp_path / "runs" / "whole.json"
    with fake_openai(lambda r: text("Inventory is down.")) as (base, _):
        monkeypatch.setenv("OPS_AGENT_MODEL", "openai/fake")
        monkeypatch.setenv("OPS_AGENT_BASE_URL", base)
        main(["run", "--cases", ",".join(CASES), "--output", str(whole)])
    capsys.readouterr()
    assert main(["gate", str(whole), "--baseline", str(path)]) == 2
    assert "it cannot be a baseline" in capsys.readouterr().err

    md, html = tmp_path / "report.md", tmp_path / "report.html"
    main(["report", str(path), "--markdown", str(md), "--html", str(html)])
    md, html = md.read_text(), html.read_text()
    capsys.readouterr()
    for page in (md, html):
        assert "INTERRUPTED" in page and "after 2 of 6 trials" in page

    assert main(["history", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    mine = next(r for r in rows if r["file"] == path.name)
    assert mine["interrupted"] == "interrupted after 2 of 6 trials (Ctrl-C or SIGTERM)"


def test_merge_refuses_an_interrupted_shard(tmp_path, capsys):
    code, output, path = interrupted_run(tmp_path, signal.SIGINT, 1, "--shard", "1/2")
    assert code == 3, output
    record = load_record(path)
    assert record.shard is not None and record.interrupted is not None
    assert main(["merge", str(path), "--output", str(tmp_path / "merged.json")]) == 2
    assert (
        "was interrupted after 1 of its 3 trials; run that shard again" in capsys.readouterr().err
    )
