"""The README is the user's contract: every `mise run X` it names is a task of mise.toml."""

from __future__ import annotations

import re
import tomllib

from conftest import REPO


def test_every_mise_task_the_readme_names_exists():
    tasks = set(tomllib.loads((REPO / "mise.toml").read_text())["tasks"])
    named = set(re.findall(r"mise run ([A-Za-z][\w:-]*)", (REPO / "README.md").read_text()))
    assert {"eval:gate", "eval:history", "test"} <= named
    assert named - tasks == set()
