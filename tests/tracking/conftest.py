"""Fixtures of the MLflow tests: one tracking store per module and `track` (the command into it,
in the test's own experiment), and a real run record to log with `--from-run` (edited copies of
it).

A module logs to one store, each test in its own experiment (one store is faster than many).
MLflow rebuilds its tracer provider whenever the tracking URI changes while ADK's tracer kept
the first one: a live evaluation into a second store of the same process lost every trace until
the evaluation re-pointed ADK's tracer (test_mlflow_ready's two-stores test). Refusals, which
must never reach MLflow, get a fresh store each (`store`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mlflow_readback import Tracker, oracle_record


@pytest.fixture(scope="session")
def base_record(tmp_path_factory) -> dict[str, Any]:
    """`mlflow_readback.oracle_record`, played once per session for every module that logs an
    edited copy of it."""
    return oracle_record(tmp_path_factory.mktemp("base-record"))


@pytest.fixture
def write_record(base_record, tmp_path):
    """write_record(edit=None, name="run.json") -> a copy of the base record (edited in place by
    `edit` first, its figures then worked out again from its edited trials), checked to load
    as a record."""
    from ops_eval import load_record
    from support import refigured

    def write(edit=None, name: str = "run.json") -> Path:
        data = json.loads(json.dumps(base_record))
        if edit is not None:
            edit(data)
            data = refigured(data)
        path = tmp_path / name
        path.write_text(json.dumps(data))
        load_record(path)  # still a valid record
        return path

    return write


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory, mlflow_installed) -> str:
    """The module's one tracking store (see this file's docstring)."""
    return f"sqlite:///{tmp_path_factory.mktemp('store') / 'mlflow.db'}"


@pytest.fixture
def track(mlflow_cli, ops_env, shared_store, request) -> Tracker:
    """`ops-eval mlflow ARGV` into the module's store, in an experiment named for this test."""
    experiment = re.sub(r"[^\w.-]+", "-", request.node.name)
    ops_env.setenv("MLFLOW_TRACKING_URI", shared_store)
    ops_env.setenv("MLFLOW_EXPERIMENT_NAME", experiment)
    return Tracker(mlflow_cli, shared_store, experiment)
