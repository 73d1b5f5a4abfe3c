"""How `ops-eval` starts, kept fast without changing what a command does: the parser built for
one command (`cli.build_parser(command)`, what `main` does when a command line starts with a
command's name) parses that command line exactly as the whole parser does -- the same
arguments, or the same one-line error and exit code; and a command that declares itself
`uncollected` (validate) runs without the cyclic garbage collector only as the console script,
never inside another process."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import subprocess
import sys

import pytest

from ops_eval.base.inputs import OneLineParser
from ops_eval.cli import COMMANDS, build_parser, main
from support import REPO


def test_each_command_module_adds_the_command_named_after_it():
    """What `build_parser(command)` relies on to find a command's module by its name."""
    for name in COMMANDS:
        sub = OneLineParser(prog="ops-eval").add_subparsers(dest="command")
        importlib.import_module(f"ops_eval.commands.{name}").add_parser(sub)
        assert list(sub.choices) == [name.replace("_", "-")]


def parsed(parser: argparse.ArgumentParser, line: list[str]) -> tuple[object, str, str]:
    """The arguments `line` parses to, or the exit code; and what was printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parser.parse_args(line))
        except SystemExit as exc:
            result = ("exit", exc.code)
    return result, out.getvalue(), err.getvalue()


LINES = [
    ["validate"],
    ["validate", "evals", "--format", "github"],
    ["validate", "--format", "xml"],
    ["validate", "--no-such-flag"],
    ["validate", "--help"],
    ["run", "--cases", "open-incidents", "--repeats", "2"],
    ["run", "--repeats"],
    ["gate", "extra", "words"],
    ["gate-override", "--help"],
    ["mutate", "--live", "--repeats", "0"],
    ["mlflow-ui", "--port", "0"],
    ["report", "-h"],
    ["gate_override", "--help"],  # not a command's name: the whole parser says so
]


@pytest.mark.parametrize("line", LINES, ids=" ".join)
def test_a_command_line_parses_the_same_with_its_command_alone(line):
    assert parsed(build_parser(line[0]), line) == parsed(build_parser(), line)


@pytest.mark.parametrize("first", ["gate_override", "no-such-command", "-h", "--version", ""])
def test_anything_but_a_command_name_builds_the_whole_parser(first):
    assert build_parser(first).format_usage() == build_parser().format_usage()


CONSOLE = """
import gc, sys
from ops_eval.cli import main
sys.argv = ["ops-eval", *sys.argv[1:]]
code = main()
print(code, gc.isenabled(), gc.get_freeze_count() > 0)
"""


@pytest.mark.parametrize(
    ("argv", "said"), [(["validate"], "0 False True"), (["seed"], "0 True False")]
)
def test_the_console_script_runs_only_an_uncollected_command_without_collections(argv, said):
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE, *argv],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == said, done.stdout + done.stderr


def test_a_validation_inside_another_process_leaves_its_collector_alone(capsys):
    frozen = gc.get_freeze_count()
    assert main(["validate"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
