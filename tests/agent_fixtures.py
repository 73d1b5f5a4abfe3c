"""Fixtures of the ops copilot's world (a pytest plugin: tests/conftest.py loads it): the real
seed, a fresh workspace over it, a writable copy of the seed to break, and a declared tool called
directly on the workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import REPO


@pytest.fixture
def seed():
    from ops_copilot.seed.loading import default_seed

    return default_seed()


@pytest.fixture
def workspace(seed):
    from ops_copilot.store.workspace import Workspace

    return Workspace.fresh(seed)


@pytest.fixture
def seed_copy(tmp_path: Path) -> Path:
    """A writable copy of the repository's seed, for tests that break or extend it."""
    target = tmp_path / "seed"
    shutil.copytree(REPO / "seed", target)
    return target


@pytest.fixture
def call(workspace):
    """Call a declared tool directly on this workspace: call("get_incident", incident_id=...)."""
    from ops_eval import DirectContext

    with DirectContext(workspace=workspace) as ctx:
        yield ctx.call
