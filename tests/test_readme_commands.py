"""The README is the user's contract: every `mise run X` it names -- and every one the workflows
and `.ci/run` run -- is a task in mise.toml, and `.ci/run` ends by running the README's whole
test command (`test:all`, both tiers), so a green CI means what the README says it means."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from support import REPO

ROOT = REPO
# `mise run [--flag ...] TASK`: flags such as --skip-deps come before the task's name
MISE_RUN = re.compile(r"\bmise run((?:\s+--?[A-Za-z][\w-]*)*)\s+[\"']?([A-Za-z][\w:.-]*)")
# where mise would find tasks outside mise.toml (file tasks); the project keeps none there
FILE_TASK_DIRS = (".mise/tasks", "mise-tasks", ".mise-tasks", "mise/tasks", ".config/mise/tasks")


def named_tasks(text: str) -> set[str]:
    return {match.group(2) for match in MISE_RUN.finditer(text)}


def defined_tasks(mise_toml: str) -> set[str]:
    return set(tomllib.loads(mise_toml).get("tasks", {}))


def project_tasks() -> dict:
    """mise.toml's tasks, by name."""
    return tomllib.loads((ROOT / "mise.toml").read_text())["tasks"]


def readme_test_command(readme: str, task: str = "test:all") -> str:
    """The command the README's quick start gives for `task`: `mise run test:all` runs both
    test tiers, `mise run test` the fast one."""
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [
        line.split("#", 1)[0].strip()
        for line in quick.splitlines()
        if line.startswith("    ") and named_tasks(line) == {task}
    ]
    assert len(commands) == 1, f"the quick start names `{task}` {len(commands)} times"
    return commands[0]


def last_command(script: str) -> str:
    """The last command a shell script runs (comments, blank lines and `fi`/`}` left out)."""
    lines = [line.split(" #", 1)[0].strip() for line in script.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    lines = [line for line in lines if line not in {"fi", "}", "done", "esac"}]
    return lines[-1]


def documents() -> list[Path]:
    tracked = subprocess.run(
        ["git", "ls-files", "*.md", ".github/workflows/*", ".ci/run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in tracked]


def test_every_mise_run_in_the_docs_and_workflows_is_a_task():
    for folder in FILE_TASK_DIRS:
        assert not (ROOT / folder).exists(), f"{folder}: file tasks this check does not read"
    tasks = set(project_tasks())
    docs = documents()
    assert {"README.md", "ci.yml", "eval.yml", "run"} <= {p.name for p in docs}
    # lint checks `.github/workflows/*.yml`: a workflow spelt otherwise would go unchecked
    assert [p.name for p in docs if ".github" in p.parts and p.suffix != ".yml"] == []
    missing = {
        f"{path.relative_to(ROOT)}: mise run {task}"
        for path in docs
        for task in named_tasks(path.read_text(encoding="utf-8"))
        if task not in tasks
    }
    assert not missing, f"not a task in mise.toml: {sorted(missing)}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_test_command(readme, "test") == "mise run test"
    command = readme_test_command(readme)
    assert command == "mise run test:all"
    assert last_command((ROOT / ".ci" / "run").read_text()) == command
    assert project_tasks()["test:all"]["depends"] == ["test"]  # both tiers


def ci_gate_tasks() -> list[tuple[str, str]]:
    """(flags, task) of every `mise run` in the `run:` scripts of ci.yml's gate job, in order;
    comments are not commands."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    found = []
    for step in workflow["jobs"]["gate"]["steps"]:
        script = "\n".join(
            line.split(" #", 1)[0]
            for line in step.get("run", "").splitlines()
            if not line.lstrip().startswith("#")
        )
        found += [(m.group(1).strip(), m.group(2)) for m in MISE_RUN.finditer(script)]
    return found


def test_the_ci_workflow_runs_each_offline_gate_once():
    ran = ci_gate_tasks()
    for task in ("lint", "redteam", "eval:validate", "test", "test:all"):
        assert [t for _, t in ran].count(task) == 1, f"ci.yml runs {task} other than once"
    # each tier's dependencies run as steps of their own before it, and its step skips them:
    # each runs once, and a dependency added to a tier is not silently skipped in CI
    for tier in ("test", "test:all"):
        at = [t for _, t in ran].index(tier)
        assert ran[at] == ("--skip-deps", tier)
        depends = set(project_tasks()[tier]["depends"])
        before = {t for _, t in ran[:at]}
        assert depends <= before, f"ci.yml skips {tier}'s dependencies {sorted(depends - before)}"


# The checks themselves, on texts where they must fail.


def test_a_task_the_docs_name_but_mise_lacks_is_found():
    text = "run `mise run eval:nope -- --x` or `mise run --skip-deps lint`, then mise run test"
    assert named_tasks(text + ' or mise run "quoted"') == {"eval:nope", "lint", "test", "quoted"}
    assert named_tasks(text) - defined_tasks('[tasks.lint]\nrun="x"\n[tasks.test]\nrun="y"') == {
        "eval:nope"
    }


@pytest.mark.parametrize(
    "script, ok",
    [
        ("#!/bin/sh\nset -e\nmise trust --yes mise.toml\nmise run test\n", True),
        ("#!/bin/sh\nmise run test\n# done\n\n", True),
        ("#!/bin/sh\nmise run test\n.venv/bin/pytest -k fast\n", False),
        ("#!/bin/sh\nif true; then\n  mise run lint\nfi\n", False),
    ],
)
def test_a_ci_script_that_does_not_end_with_the_test_command_is_found(script, ok):
    assert (last_command(script) == "mise run test") is ok


def test_a_readme_without_one_test_command_is_refused():
    with pytest.raises(AssertionError, match="0 times"):
        readme_test_command("# X\n## Quick start\n\n    mise run eval\n\n## Tasks\n")
    with pytest.raises(AssertionError, match="`test:all` 0 times"):  # the fast tier alone
        readme_test_command("# X\n## Quick start\n\n    mise run test\n\n## Tasks\n")
    twice = "## Quick start\n    mise run test\n    mise run --skip-deps test\n## Next\n"
    with pytest.raises(AssertionError, match="2 times"):
        readme_test_command(twice, "test")
