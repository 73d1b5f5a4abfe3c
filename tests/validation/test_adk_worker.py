"""The ADK worker of `ops-eval validate`: started before the validator is imported, handed the
files no earlier run accepted, not started when every file was accepted before, and a worker
that fails is one line and exit 3 -- never a hang, a traceback or a worker left behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ops_eval.base.settings import current, reload
from ops_eval.cli import main
from ops_eval.validation import adk, discovery, validator


def as_a_fresh_process(monkeypatch, tmp_path) -> None:
    """An empty acceptance cache, and ADK's eval models not loaded yet, as in a new `ops-eval`
    process: a test that ran earlier in this one (a run's plan) may have loaded them, and then
    ADK's check is made in process, with no worker."""
    monkeypatch.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
    reload()  # as `main` does: the test reads the cache there too
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


@pytest.fixture
def prestarted(monkeypatch):
    """For each validate, whether it started the worker before importing the validator."""
    said: list[bool] = []
    real = adk.prestart

    def recorded(candidates=()):
        real(candidates)
        said.append(adk._EARLY is not None)

    monkeypatch.setattr(adk, "prestart", recorded)
    return said


def test_a_cold_validate_hands_the_prestarted_worker_every_file(workers, prestarted, capsys):
    assert main(["validate"]) == 0
    assert prestarted == [True]
    assert len(workers) == 1 and workers[0].returncode == 0  # one worker, and it did the work
    assert "ok: 4 eval set(s)" in capsys.readouterr().out


def test_a_warm_validate_starts_no_worker(workers, prestarted, capsys):
    assert main(["validate"]) == 0
    cold = capsys.readouterr()
    assert main(["validate"]) == 0  # every file accepted before: no ADK check to make
    assert capsys.readouterr() == cold  # and nothing it says differs
    assert prestarted == [True, False] and len(workers) == 1 and adk._EARLY is None


def test_a_file_the_guess_left_out_is_still_checked(workers, prestarted, monkeypatch):
    """A guess that names only accepted files starts no worker early; `start` then starts one
    for the files it did not name, and they are checked all the same."""
    criteria = current().evals_dir / discovery.CONFIG_FILE
    adk._save_accepted({adk._key("config", criteria.read_text()): None})
    monkeypatch.setattr(discovery, "adk_candidates", lambda paths, project: [("config", criteria)])
    assert main(["validate"]) == 0
    assert prestarted == [False]
    assert len(workers) == 1 and workers[0].returncode == 0  # started later, and did the work


@pytest.mark.parametrize("ad_hoc", [False, True], ids=["project", "ad-hoc folder"])
def test_the_guess_names_what_the_validator_hands_adk(ad_hoc, monkeypatch, tmp_path):
    """`adk_candidates` names, by path, exactly the texts the validator hands ADK's check: for
    the project's sets, and for a folder of its own with no criteria beside its set (the
    project's stand in). Else a warm validate would start a worker it does not need."""
    paths: list[str] = []
    if ad_hoc:
        (tmp_path / "mine.evalset.json").write_text(
            (current().evals_dir / "ops.evalset.json").read_text()
        )
        paths = [str(tmp_path)]
    handed: list[list[tuple[str, str]]] = []

    def capture(items, *, in_process=False):
        handed.append(items)
        raise KeyboardInterrupt  # seen enough: stop before any check is made

    monkeypatch.setattr(adk, "start", capture)
    with pytest.raises(KeyboardInterrupt):
        validator.validate(paths)
    guessed = discovery.adk_candidates(paths, current().evals_dir)
    assert handed == [[(kind, path.read_text()) for kind, path in guessed]]


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
