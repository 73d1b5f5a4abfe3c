"""`tools/architecture.py`, the check `mise run lint` runs: the repository as it is passes, and a
tree that breaks each rule -- a cycle (type-only imports too), an import up a layer, a module too
long, a package in no layer or silent on what it may import, an agent that imports the harness, a
module its package's docstring does not name, a module outside the engine that plays trials, a
command function over 60 lines, commands over 1,200 lines in all, a command importing another or
a module inside a package (not its public surface), a capability imported from too many places --
fails, naming what broke."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO

CHECK = REPO / "tools" / "architecture.py"
_spec = importlib.util.spec_from_file_location("tools_architecture", CHECK)
ARCHITECTURE = sys.modules.setdefault("tools_architecture", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(ARCHITECTURE)  # type: ignore[union-attr]  # the check's declarations


def check(repo: Path) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, str(CHECK), str(repo)], capture_output=True, text=True, timeout=60
    )
    return proc.returncode, proc.stdout + proc.stderr


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository with `evals/ops_eval` and `agents/` holding `files` (path -> source). Every
    folder is a package, and one whose `__init__.py` is not among `files` has a docstring naming
    what it holds. Each declared capability's package exists (empty)."""
    packages = ("base", "core", "results", *ARCHITECTURE.CAPABILITIES.values())
    base = [f"evals/ops_eval/{p.replace('.', '/')}/__init__.py" for p in packages]
    for name in [*base, "agents/ops_copilot/__init__.py", *files]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files.get(name, ""))
        package = path.parent
        while package.parent != tmp_path:
            (package / "__init__.py").touch()
            package = package.parent
    for init in tmp_path.rglob("__init__.py"):
        if init.relative_to(tmp_path).as_posix() not in files:
            held = sorted(p.stem for p in init.parent.iterdir() if p.name != "__init__.py")
            init.write_text(f'"""Holds: {", ".join(held)}.\n\nMay import: below.\n"""\n')
    return tmp_path


def refused(tmp_path: Path, files: dict[str, str]) -> str:
    """The check's output on a tree of `files` it must refuse (exit 1)."""
    code, out = check(tree(tmp_path, files))
    assert code == 1, out
    return out


def test_the_repository_keeps_its_layers():
    code, out = check(REPO)
    assert code == 0, out
    assert "no cycle, no import up a layer" in out


def test_a_clean_tree_passes(tmp_path):
    repo = tree(
        tmp_path,
        {
            "evals/ops_eval/base/exits.py": "X = 1\n",
            "evals/ops_eval/core/calls.py": "from ..base.exits import X\n",
            "evals/ops_eval/results/records.py": "from ops_eval.core import calls\n",
        },
    )
    assert check(repo)[0] == 0


def test_a_cycle_of_type_only_imports_fails(tmp_path):
    out = refused(
        tmp_path,
        {
            "evals/ops_eval/core/calls.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .evalset import C\n"
            ),
            "evals/ops_eval/core/evalset.py": "def f():\n    from .calls import D\n",
        },
    )
    assert "import cycle: ops_eval.core.calls -> ops_eval.core.evalset" in out


def test_an_import_up_a_layer_fails_even_inside_a_function(tmp_path):
    out = refused(
        tmp_path,
        {
            "evals/ops_eval/results/records.py": "X = 1\n",
            "evals/ops_eval/core/calls.py": "def f():\n    from ..results.records import X\n",
        },
    )
    assert "ops_eval.core.calls imports ops_eval.results.records: up from layer 'core'" in out


@pytest.mark.parametrize(
    "source",
    [
        "import importlib\nM = importlib.import_module('ops_eval.results.records')\n",
        "from importlib import import_module\nM = import_module('..results', __package__)\n",
    ],
    ids=["absolute", "relative"],
)
def test_import_module_with_a_literal_name_counts_as_an_import(tmp_path, source):
    records = {"evals/ops_eval/results/records.py": "X = 1\n"}
    out = refused(tmp_path, {**records, "evals/ops_eval/core/calls.py": source})
    assert "ops_eval.core.calls imports ops_eval.results" in out


def test_a_cycle_between_two_agent_packages_fails(tmp_path):
    out = refused(
        tmp_path,
        {
            "agents/ops_copilot/tools.py": "from triage_report import schema\n",
            "agents/triage_report/__init__.py": "",
            "agents/triage_report/schema.py": "from ops_copilot import tools\n",
        },
    )
    assert "import cycle: ops_copilot.tools -> triage_report.schema" in out


def test_importing_a_sibling_module_through_its_package_is_not_an_import_of_the_root(tmp_path):
    repo = tree(
        tmp_path,
        {
            "evals/ops_eval/base/exits.py": "",
            "evals/ops_eval/core/calls.py": "from .. import base\n",
        },
    )
    code, out = check(repo)
    assert code == 0, out


def test_a_module_importing_the_package_root_imports_up(tmp_path):
    out = refused(tmp_path, {"evals/ops_eval/core/calls.py": "from .. import anything\n"})
    assert "imports ops_eval: up from layer 'core'" in out


@pytest.mark.parametrize("where", ["evals/ops_eval/core/long.py", "agents/ops_copilot/long.py"])
def test_a_module_over_350_lines_fails(tmp_path, where):
    out = refused(tmp_path, {where: "x = 1\n" * 351})
    assert f"{where}: 351 lines (at most 350)" in out
    assert check(tree(tmp_path, {where: "x = 1\n" * 350}))[0] == 0


def test_a_package_in_no_layer_fails(tmp_path):
    out = refused(tmp_path, {"evals/ops_eval/misc.py": "X = 1\n"})
    assert "ops_eval.misc: not in a declared layer" in out


def test_a_sub_package_that_does_not_say_what_it_may_import_fails(tmp_path):
    out = refused(tmp_path, {"evals/ops_eval/core/claims/__init__.py": '"""Claims."""\n'})
    assert "ops_eval.core.claims: its docstring says what it holds, not" in out


def test_an_agent_that_imports_the_harness_fails(tmp_path):
    out = refused(
        tmp_path,
        {
            "agents/ops_copilot/tools.py": '"""Never `from ops_eval import x` in prose."""\n',
            "agents/ops_copilot/agent.py": "def f():\n    import ops_eval.core.calls\n",
        },
    )
    assert "ops_copilot.agent imports the harness (ops_eval)" in out
    assert "ops_copilot.tools" not in out  # a docstring is not an import


@pytest.mark.parametrize("lazily", [False, True])
def test_a_module_outside_the_adapter_importing_an_agent_fails(tmp_path, lazily):
    source = "from ops_copilot.seed import Seed\n"
    if lazily:
        source = "def f():\n    from ops_copilot import seed\n"
    out = refused(
        tmp_path,
        {
            "agents/ops_copilot/seed.py": "Seed = 1\n",
            "evals/ops_eval/core/plan.py": source,
        },
    )
    assert "ops_eval.core.plan imports ops_copilot" in out
    assert "only ops_eval.agents imports an agent package" in out


def test_the_adapter_may_import_an_agent_but_not_grow_past_ten_modules(tmp_path):
    files = {
        "agents/ops_copilot/seed.py": "Seed = 1\n",
        "evals/ops_eval/agents/world.py": "from ops_copilot.seed import Seed\n",
    }
    assert check(tree(tmp_path, files))[0] == 0
    files.update({f"evals/ops_eval/agents/extra{i}.py": "X = 1\n" for i in range(9)})
    out = refused(tmp_path, files)
    assert "ops_eval.agents: 11 modules (at most 10)" in out


CORE = "evals/ops_eval/core/__init__.py"


def test_a_module_its_package_docstring_does_not_name_fails_and_passes_once_named(tmp_path):
    modules = {
        "evals/ops_eval/core/calls.py": "",
        "evals/ops_eval/core/callsite.py": "",
        "evals/ops_eval/core/claims/__init__.py": '"""Claims.\n\nMay import: `base`.\n"""\n',
        "agents/ops_copilot/agent.py": "",
        "agents/ops_copilot/links.py": "",
    }
    silent = {  # `callsite_old` is another word: it does not name `callsite`
        CORE: '"""Holds `calls` and `callsite_old`.\n\nMay import: `base`.\n"""\n',
        "agents/ops_copilot/__init__.py": '"""The agent itself (`agent`)."""\n',
    }
    out = refused(tmp_path, {**modules, **silent})
    assert "ops_eval.core.callsite: not named in the docstring of its package, ops_eval.core" in out
    assert "ops_eval.core.claims: not named in the docstring of its package, ops_eval.core" in out
    assert "ops_copilot.links: not named in the docstring of its package, ops_copilot" in out
    assert "3 architecture problem(s)" in out  # `calls` and `agent` are named
    named = {
        CORE: '"""Holds `calls`, callsite.py and claims/.\n\nMay import: `base`.\n"""\n',
        "agents/ops_copilot/__init__.py": '"""The agent (`agent`) and its `links`."""\n',
    }
    code, out = check(tree(tmp_path, {**modules, **named}))
    assert code == 0, out


PLAY = "evals/ops_eval/playing/play.py"
PLAYERS = "async def play_turn():\n    pass\n\n\nasync def play_trial():\n    await play_turn()\n"
ENGINE = (
    "async def run(cases):\n    from ..playing.play import play_trial\n\n"
    "    for c in cases:\n        await play_trial(c)\n"
)


@pytest.mark.parametrize(
    "source",
    [
        ENGINE,  # the engine's loop, copied outside the engine
        "from ..playing import play\n\n\nasync def f(c):\n    return await play.play_trial(c)\n",
        "from ..playing.play import play_turn as turn\n",
    ],
)
def test_a_module_outside_the_engine_playing_trials_fails(tmp_path, source):
    files = {PLAY: PLAYERS, "evals/ops_eval/running/trials.py": ENGINE}
    assert check(tree(tmp_path, files))[0] == 0, "the engine and playing.play may"
    out = refused(tmp_path, {**files, "evals/ops_eval/mutation/offline.py": source})
    assert "ops_eval.mutation.offline calls play_t" in out
    assert "only the engine plays trials (ops_eval.running.trials;" in out
    assert "1 architecture problem(s)" in out


def function(name: str, lines: int) -> str:
    """A function of exactly `lines` lines."""
    return f"def {name}():\n" + "    x = 1\n" * (lines - 2) + "    return x\n"


def test_a_command_function_over_60_lines_fails_and_60_passes(tmp_path):
    command = "evals/ops_eval/commands/gate.py"
    code, out = check(tree(tmp_path, {command: function("run", 60)}))
    assert code == 0, out
    out = refused(tmp_path, {command: function("run", 61)})
    assert "ops_eval.commands.gate.run: 61 lines (a command's function at most 60" in out
    assert "1 architecture problem(s)" in out
    nested = "def add_parser():\n    " + function("handler", 61).replace("\n", "\n    ")
    out = refused(tmp_path, {command: nested.rstrip() + "\n"})
    assert "ops_eval.commands.gate.handler: 61 lines" in out  # a nested handler counts too


def test_commands_over_1200_lines_in_all_fail_and_1200_pass(tmp_path):
    # four modules, each under the 350-line limit: only their sum can break a rule
    files = {f"evals/ops_eval/commands/c{i}.py": "X = 1\n" * 300 for i in range(4)}
    code, out = check(tree(tmp_path, files))  # 4 x 300, and the package docstring's 4 lines
    assert code == 1 and "ops_eval.commands: 1204 lines in all (at most 1200)" in out, out
    files["evals/ops_eval/commands/c3.py"] = "X = 1\n" * 296
    code, out = check(tree(tmp_path, files))
    assert code == 0, out


@pytest.mark.parametrize(
    "source",
    ["from .run import execute\n", "def f():\n    from ops_eval.commands import run\n"],
)
def test_a_command_importing_another_command_fails(tmp_path, source):
    files = {"evals/ops_eval/commands/run.py": "def execute():\n    pass\n"}
    assert check(tree(tmp_path, files))[0] == 0
    out = refused(tmp_path, {**files, "evals/ops_eval/commands/mutate.py": source})
    assert "ops_eval.commands.mutate imports ops_eval.commands.run: a command imports the " in out
    assert "1 architecture problem(s)" in out


@pytest.mark.parametrize("lazily", [False, True])
def test_a_command_importing_a_module_inside_a_package_fails_and_its_surface_passes(
    tmp_path, lazily
):
    inner = "evals/ops_eval/results/runs.py"
    surface = "from ops_eval.results import load\n"  # a name the package's __init__ exports
    files = {inner: "def load():\n    pass\n", "evals/ops_eval/commands/show.py": surface}
    code, out = check(tree(tmp_path, files))
    assert code == 0, out
    source = "from ops_eval.results.runs import load\n"
    if lazily:
        source = "def run():\n    from ..results import runs\n"  # the module, by its package
    out = refused(tmp_path, {**files, "evals/ops_eval/commands/show.py": source})
    said = "ops_eval.commands.show imports ops_eval.results.runs: a command imports only the "
    assert said in out
    assert "1 architecture problem(s)" in out


def test_a_capability_imported_by_three_modules_outside_it_fails_and_two_pass(tmp_path):
    name, package = "tracking", ARCHITECTURE.CAPABILITIES["tracking"]  # outputs.tracking
    inside = f"evals/ops_eval/{package.replace('.', '/')}/surface.py"
    importer = f"from ops_eval.{package} import surface\n"
    exposed = f"from ops_eval.{package} import X\n"  # a command takes its public surface
    files = {
        inside: "X = 1\n",
        "evals/ops_eval/commands/expose.py": exposed,  # the commands that expose it are free
        "evals/ops_eval/commands/again.py": exposed,
        "evals/ops_eval/commands/more.py": exposed,
        "evals/ops_eval/commands/most.py": exposed,
        "evals/ops_eval/outputs/history/one.py": "def f():\n    " + importer,  # lazily too
        "evals/ops_eval/outputs/report/two.py": importer,
    }
    high = "evals/ops_eval/cli.py"  # the top sits above every capability
    code, out = check(tree(tmp_path, {**files, high: importer}))
    assert code == 0, out
    out = refused(tmp_path, {**files, "evals/ops_eval/redteam/three.py": importer})
    assert f"{name} (ops_eval.{package}): imported by 3 modules outside it, commands aside" in out
    assert "ops_eval.outputs.history.one, ops_eval.outputs.report.two, ops_eval.redteam." in out
    assert "1 architecture problem(s)" in out


def test_a_declared_capability_without_its_package_fails(tmp_path):
    package = next(iter(ARCHITECTURE.CAPABILITIES.values()))
    repo = tree(tmp_path, {})
    init = repo / "evals" / "ops_eval" / package.replace(".", "/") / "__init__.py"
    init.unlink()
    assert "does not exist" in check(repo)[1]
