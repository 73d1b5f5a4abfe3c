"""The ADK worker of `ops-eval validate`: started before the validator is imported, handed the
files no earlier run accepted, stopped unused when there are none, and a worker that fails is
one line and exit 3 -- never a hang, a traceback or a worker left behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ops_eval.cli import main
from ops_eval.validation import adk


def as_a_fresh_process(monkeypatch, tmp_path) -> None:
    """An empty acceptance cache, and ADK's eval models not loaded yet, as in a new `ops-eval`
    process: a test that ran earlier in this one (a run's plan) may have loaded them, and then
    ADK's check is made in process, with no worker."""
    monkeypatch.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "google.adk.evaluation.eval_set", raising=False)


@pytest.fixture
def workers(monkeypatch, tmp_path):
    """Every worker process validate starts."""
    as_a_fresh_process(monkeypatch, tmp_path)
    started: list[subprocess.Popen[str]] = []
    real = adk._worker

    def counted() -> subprocess.Popen[str]:
        started.append(real())
        return started[-1]

    monkeypatch.setattr(adk, "_worker", counted)
    return started


def test_a_cold_validate_hands_the_prestarted_worker_every_file(workers, capsys):
    assert main(["validate"]) == 0
    assert len(workers) == 1 and workers[0].returncode == 0  # one worker, and it did the work
    assert "ok: 4 eval set(s)" in capsys.readouterr().out


def test_a_warm_validate_stops_the_worker_it_did_not_need(workers):
    assert main(["validate"]) == 0
    assert main(["validate"]) == 0  # every file accepted before: no ADK check to make
    assert len(workers) == 2
    assert workers[1].returncode not in (None, 0)  # killed, not left running
    assert adk._EARLY is None


def test_nothing_to_validate_leaves_no_worker(workers, tmp_path):
    assert main(["validate", str(tmp_path)]) == 2
    assert len(workers) == 1 and workers[0].returncode is not None
    assert adk._EARLY is None


def test_a_seed_that_does_not_load_leaves_no_worker(workers, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OPS_SEED_DIR", str(tmp_path / "no-seed"))
    assert main(["validate"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert len(workers) == 1 and workers[0].returncode is not None


def test_a_rule_that_crashes_leaves_no_worker(workers, monkeypatch):
    from ops_eval.validation import validator

    def crash(ctx, sets):
        raise RuntimeError("a rule broke")

    monkeypatch.setattr(validator, "set_policy", crash)
    with pytest.raises(RuntimeError, match="a rule broke"):
        main(["validate"])
    assert len(workers) == 1 and workers[0].returncode is not None


def fake_worker(monkeypatch, tmp_path, script: str) -> None:
    """ADK's worker replaced by a Python one-liner that reads its input, then runs `script`."""
    as_a_fresh_process(monkeypatch, tmp_path)
    argv = [sys.executable, "-c", f"import sys; sys.stdin.read(); {script}"]
    pipe = subprocess.PIPE
    monkeypatch.setattr(
        adk,
        "_worker",
        lambda: subprocess.Popen(argv, stdin=pipe, stdout=pipe, stderr=pipe, text=True),
    )


def test_a_worker_that_fails_is_one_line_and_exit_3(monkeypatch, tmp_path, capsys):
    fake_worker(monkeypatch, tmp_path, "sys.exit('ADK is broken')")
    assert main(["validate"]) == 3
    err = capsys.readouterr().err
    assert err.strip() == "error: ADK schema check failed to run: ADK is broken"


def test_a_worker_that_answers_garbage_is_exit_3(monkeypatch, tmp_path, capsys):
    fake_worker(monkeypatch, tmp_path, "print('not json')")
    assert main(["validate"]) == 3
    assert "ADK schema check gave unreadable output" in capsys.readouterr().err
