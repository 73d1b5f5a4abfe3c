"""`.mise/bootstrap` syncs the environment it has instead of recreating it, and the optional
groups are found only when really installed.

uv, asked for the machine's Python by path (a pyenv shim) on every sync, found the existing
environment did not "satisfy" that path and recreated it: each first-use install of a group
wiped the other groups' markers and pulled packages from under running processes. The fake uv
here records how the bootstrap calls it."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from support import REPO

FAKE_UV = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/uv-calls"
"""


def _project(tmp_path: Path) -> Path:
    """A copy of what the bootstrap reads: itself, the lock and the project file."""
    project = tmp_path / "project"
    (project / ".mise").mkdir(parents=True)
    shutil.copy(REPO / ".mise" / "bootstrap", project / ".mise" / "bootstrap")
    for name in ("uv.lock", "pyproject.toml"):
        shutil.copy(REPO / name, project / name)
    tools = tmp_path / "bin"
    tools.mkdir()
    uv = tools / "uv"
    uv.write_text(FAKE_UV)
    uv.chmod(uv.stat().st_mode | stat.S_IEXEC)
    return project


def _bootstrap(project: Path, *args: str) -> list[str]:
    tools = project.parent / "bin"
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"}
    subprocess.run([str(project / ".mise" / "bootstrap"), *args], check=True, env=env)
    return (tools / "uv-calls").read_text().splitlines()


def test_an_existing_environment_is_synced_not_recreated(tmp_path):
    project = _project(tmp_path)
    (project / ".venv" / "bin").mkdir(parents=True)
    python = project / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    (project / ".venv" / ".ops-copilot-group-local").touch()
    calls = _bootstrap(project, "--group", "mlflow")
    assert len(calls) == 1
    assert "--python" not in calls[0].split()
    assert "--group local --group mlflow" in calls[0]  # the installed group is kept


def test_a_missing_environment_is_created_with_the_machines_python(tmp_path):
    project = _project(tmp_path)
    (project / ".venv").mkdir()  # what uv would have made (the fake makes nothing)
    calls = _bootstrap(project)
    assert "--python" in calls[0].split()


def test_a_folder_named_like_a_group_module_is_not_the_module(tmp_path, monkeypatch):
    """A bare `mlflow/` folder on sys.path (tests/tracking/ was once tests/mlflow/) is a
    namespace package to `find_spec`: it must not pass for an installed MLflow."""
    import sys

    from ops_eval.base.groups import missing

    (tmp_path / "fakepkg").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert missing(["fakepkg", "json"]) == ["fakepkg"]
