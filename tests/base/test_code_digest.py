"""A scorer's identity covers what it reads (`base.code_digest`): a change to the claims reader
changes `facts`' digest (it was hashed from the scorer's own module alone, so the gate said
"scorers unchanged" while verdicts moved), not `trajectory`'s; rewording a docstring,
reformatting, or moving a definition to another module changes nothing.

Each variant is a copy of both packages in a temporary folder, hashed in a child process."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys

import pytest

from support import REPO

PROBE = """
import json, sys
from ops_eval.base.code_digest import digest, reach
names = ["ops_eval.scorers.facts", "ops_eval.scorers.trajectory", "ops_eval.scorers.complete",
         "ops_eval.scorers.llm_judge"]
print(json.dumps({n: digest(n) for n in names} | {"reach": sorted(reach(names[0]))}))
"""


def digests(root) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={"PYTHONPATH": f"{root / 'evals'}:{root / 'agents'}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    )
    return json.loads(out.stdout)


PACKAGES = ("evals/ops_eval", "evals/agentport", "evals/opskit", "agents/ops_copilot",
            "agents/triage_report")  # fmt: skip


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """make(edit) -> the digests of a copy of the packages after `edit(root)`."""

    def make(edit=None):
        root = tmp_path_factory.mktemp("tree")
        for part in PACKAGES:
            shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        if edit is not None:
            edit(root)
        return digests(root)

    return make


def _replace(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def test_the_digest_covers_the_readers_a_scorer_calls(copies):
    base = copies()
    assert "ops_copilot.claims.wording" in base["reach"]  # facts reads with the claims reader
    assert not any(m.startswith("ops_eval.commands") for m in base["reach"])

    def reader_changed(root):
        _replace(
            root / "agents/ops_copilot/claims/wording.py",
            '"investigating": ("under investigation", "being investigated"),',
            '"investigating": ("under investigation",),',
        )

    changed = copies(reader_changed)
    assert changed["ops_eval.scorers.facts"] != base["ops_eval.scorers.facts"]
    assert changed["ops_eval.scorers.trajectory"] == base["ops_eval.scorers.trajectory"]


def test_the_judge_llm_judge_is_handed_is_in_its_digest(copies):
    """`llm_judge` imports nothing of the judge (only `core.judge_port`); the judge's code it runs
    through `plan.judge` is declared (`DIGEST_FOLLOWS`), so a change in how the judge's reply is
    parsed still changes the scorer's digest, and no other scorer's."""
    tree = ast.parse((REPO / "evals/ops_eval/scorers/llm_judge.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "core.judge_port" in imported and not any("judging" in m for m in imported if m)
    base = copies()

    def parsing_changed(root):
        _replace(
            root / "evals/ops_eval/judging/verdicts.py",
            'body = body[3:-3].removeprefix("json").strip()',
            "body = body[3:-3].strip()",
        )

    changed = copies(parsing_changed)
    assert changed["ops_eval.scorers.llm_judge"] != base["ops_eval.scorers.llm_judge"]
    assert changed["ops_eval.scorers.facts"] == base["ops_eval.scorers.facts"]


def test_docstrings_formatting_and_moves_change_nothing(copies):
    base = copies()

    def cosmetic(root):
        reading = root / "agents/ops_copilot/claims/reading.py"
        _replace(reading, '"""Every claim `text` makes plainly', '"""All the claims `text` makes')
        _replace(
            reading, "    chosen = [before[-1]]\n", "    chosen = [\n        before[-1]\n    ]\n"
        )
        # `_in_parens` moves to wording.py, and reading.py imports it from there
        text = reading.read_text()
        start = text.index("def _in_parens")
        moved = text[start:]
        reading.write_text(
            text[:start].replace(
                "from .wording import DEFLECT,", "from .wording import _in_parens, DEFLECT,"
            )
        )
        wording = root / "agents/ops_copilot/claims/wording.py"
        wording.write_text(wording.read_text() + "\n\n" + moved)

    assert copies(cosmetic) == base


def test_a_name_read_through_the_adapter_or_straight_from_the_agent_hashes_the_same(copies):
    """The digest follows what a scorer reads: a name imported from a module that only
    re-exports (the adapter's facades) counts as the definition it names, not as everything
    the facade gathers -- so routing imports through the adapter changed no scorer's identity
    by itself."""
    through = copies()

    def straight(root):
        _replace(
            root / "evals/ops_eval/scorers/facts.py",
            "from ..agents.ops_guards import Vocabulary, judge",
            "from ops_copilot.claims import Vocabulary, judge",
        )

    direct = copies(straight)
    assert direct["ops_eval.scorers.facts"] == through["ops_eval.scorers.facts"]
    assert "ops_copilot.guards.answer_guard" not in through["reach"]  # the facade's other names


def test_where_a_package_says_a_name_lives_is_not_hashed(copies):
    """Every module reaches the package root, whose lazy-export table (`_EXPORTS`) says where
    each public name lives. Moving the judge into its own package rewrote one entry of it and
    changed every scorer's digest though no scorer's behaviour changed (failed before): the
    table is a location, what it points to is hashed where it is defined."""
    base = copies()

    def relocated(root):
        _replace(
            root / "evals/ops_eval/__init__.py",
            '"execute": "judging.run",',
            '"execute": "running.execute",',
        )

    assert copies(relocated) == base


def test_exporting_a_name_lazily_is_not_hashed_but_a_modules_own_getattr_is(copies):
    """A package that gains lazy exports -- the table, `__all__` grown from it, the PEP 562
    `__getattr__` that loads from it -- says where names live: every module reaches `base`, so
    adding them there changed every scorer's digest and lapsed every reader's measurement
    (failed before). A module's own `__getattr__` (the agent's builds `root_agent`) is behaviour."""
    base = copies()

    def exported(root):
        init = root / "evals/ops_eval/base/__init__.py"
        init.write_text(
            init.read_text()
            + "\nfrom .exports import lazy_getattr\n\n"
            + '_EXPORTS = {"digest": "code_digest"}\n__all__ = []\n__all__ += sorted(_EXPORTS)\n'
            + "__getattr__ = lazy_getattr(__name__, _EXPORTS)\n"
        )

    assert copies(exported) == base

    def module_getattr(root):  # a module's own `__getattr__` (the agent's builds root_agent)
        wording = root / "agents/ops_copilot/claims/wording.py"
        wording.write_text(wording.read_text() + "\n\ndef __getattr__(name):\n    return name\n")

    assert copies(module_getattr)["ops_eval.scorers.facts"] != base["ops_eval.scorers.facts"]
