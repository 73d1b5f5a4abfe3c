"""The README and the pages of docs/ are the user's contract: every `mise run X` they name -- and
every one the workflows and `.ci/run` run -- is a task in mise.toml, every `ops-eval X` they
name is a subcommand of the CLI, and `.ci/run` ends by running the README's whole test command
(`test:all`, both tiers), so a green CI means what the README says it means."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from support import REPO

ROOT = REPO
# `mise run [--flag ...] TASK`: flags such as --skip-deps come before the task's name
MISE_RUN = re.compile(r"\bmise run((?:\s+--?[A-Za-z][\w-]*)*)\s+[\"']?([A-Za-z][\w:.-]*)")
# `ops-eval SUBCOMMAND` (`.venv/bin/ops-eval` too): read in a document's code only
OPS_EVAL = re.compile(r"(?<![\w-])ops-eval[ \t]+([a-z][a-z0-9-]*)")
# an inline code span (CommonMark: a run of backticks, closed by a run of the same length)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
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
    """Every tracked Markdown file, workflow and `.ci/run`, and every page of docs/ -- also one
    not committed yet, which `git ls-files` does not list."""
    tracked = subprocess.run(
        ["git", "ls-files", "*.md", ".github/workflows/*", ".ci/run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = {ROOT / name for name in tracked} | set((ROOT / "docs").glob("*.md"))
    return sorted(path for path in found if path.is_file())


def code_in(markdown: str) -> list[str]:
    """The code of a Markdown text: its fenced and indented blocks, and its inline code spans."""
    blocks, prose = [], []
    fence = None
    indented = False
    blank = True
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            else:
                blocks.append(line)
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif line.startswith(("    ", "\t")) and (blank or indented):
            indented = True
            blocks.append(line)
        else:
            indented = indented and not stripped
            prose.append(line)
        blank = not stripped
    spans = [
        match.group(2)
        for paragraph in "\n".join(prose).split("\n\n")
        for match in CODE_SPAN.finditer(paragraph)
    ]
    return blocks + spans


def named_subcommands(markdown: str) -> set[str]:
    """The subcommands named by every `ops-eval SUBCOMMAND` in the code of a Markdown text."""
    return {match.group(1) for code in code_in(markdown) for match in OPS_EVAL.finditer(code)}


def cli_subcommands() -> set[str]:
    """The CLI's subcommands, as its own help lists them (`{seed,validate,...}`)."""
    help_text = subprocess.run(
        [str(Path(sys.executable).with_name("ops-eval")), "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    choices = re.search(r"\{([a-z][a-z0-9,-]*)\}", help_text)
    assert choices, f"no {{subcommand,...}} list in `ops-eval --help`:\n{help_text}"
    return set(choices.group(1).split(","))


def test_every_mise_run_in_the_docs_and_workflows_is_a_task():
    for folder in FILE_TASK_DIRS:
        assert not (ROOT / folder).exists(), f"{folder}: file tasks this check does not read"
    tasks = set(project_tasks())
    docs = documents()
    assert {"README.md", "ci.yml", "eval.yml", "run"} <= {p.name for p in docs}
    assert ROOT / "docs" / "scoring.md" in docs  # the pages of docs/, committed or not
    # lint checks `.github/workflows/*.yml`: a workflow spelt otherwise would go unchecked
    assert [p.name for p in docs if ".github" in p.parts and p.suffix != ".yml"] == []
    missing = {
        f"{path.relative_to(ROOT)}: mise run {task}"
        for path in docs
        for task in named_tasks(path.read_text(encoding="utf-8"))
        if task not in tasks
    }
    assert not missing, f"not a task in mise.toml: {sorted(missing)}"


def test_every_ops_eval_command_in_the_docs_is_a_subcommand():
    subcommands = cli_subcommands()
    assert {"run", "validate", "gate"} <= subcommands
    pages = [path for path in documents() if path.suffix == ".md"]
    assert {ROOT / "README.md", ROOT / "docs" / "live-eval.md"} <= set(pages)
    unknown = {
        f"{path.relative_to(ROOT)}: ops-eval {name}"
        for path in pages
        for name in named_subcommands(path.read_text(encoding="utf-8"))
        if name not in subcommands
    }
    assert not unknown, f"not a subcommand of ops-eval: {sorted(unknown)}"


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


def test_an_ops_eval_command_the_docs_name_but_the_cli_lacks_is_found():
    text = (
        "Run `ops-eval frobnicate --x`, then `.venv/bin/ops-eval gate` or ``ops-eval ab `A` B``;\n"
        "the ops-eval harness, an `ops-eval` CLI and `ops-eval --help` name none.\n"
        "\n"
        "    ops-eval baseline pin RUN --name NAME\n"
        "    OPS_AGENT_MODEL=replay:rec.jsonl ops-eval run\n"
        "\n"
        "```sh\n"
        "ops-eval mlfow --from-run RUN\n"
        "```\n"
    )
    assert named_subcommands(text) == {"frobnicate", "gate", "ab", "baseline", "run", "mlfow"}
    assert named_subcommands(text) - {"gate", "ab", "baseline", "run"} == {"frobnicate", "mlfow"}


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


# A repository path a page names in code (`evals/ops_eval/core/loops.py`): globs and
# placeholders (`*`, `{`, `<`) are not paths.
REPO_PATH = re.compile(r"`((?:evals|agents|tools|docs|tests|seed|\.ci|\.github)/[^`\s*{<]*)`")


def missing_paths(markdown: str) -> list[str]:
    """The repository paths a page names that do not exist (a module moved, a file renamed)."""
    named = (m.group(1).rstrip(".,:;)").split("#")[0] for m in REPO_PATH.finditer(markdown))
    return [path for path in named if not (ROOT / path).exists()]


def test_every_repository_path_the_docs_name_exists():
    stale = {
        str(doc.relative_to(ROOT)): missing
        for doc in documents()
        if doc.suffix == ".md" and (missing := missing_paths(doc.read_text()))
    }
    assert not stale, stale


def test_a_path_the_docs_name_but_the_repository_lacks_is_found():
    page = "The loop rule is `evals/ops_eval/loops.py`; the rules are `evals/ops_eval/core/`."
    assert missing_paths(page) == ["evals/ops_eval/loops.py"]
