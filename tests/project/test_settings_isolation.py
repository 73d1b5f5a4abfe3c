"""The suite's own isolation: a test that changes the environment and has the settings read
again (as every CLI command does at its start) leaves nothing behind for the next test -- not
even for a module-scoped fixture, which is set up before the next test's function-scoped
fixtures. CI once failed 26 tests of test_shards.py on a seed path test_seed.py had left."""

from __future__ import annotations

from support import REPO

TESTS = REPO / "tests"

INNER = """
import pytest
from pathlib import Path
from ops_eval.base.settings import current, reload

LEFT = Path("/nowhere/left-behind-seed")


def test_a_changes_the_environment_as_a_cli_test_does(monkeypatch):
    monkeypatch.setenv("OPS_SEED_DIR", str(LEFT))
    reload()
    assert current().seed_dir == LEFT


@pytest.fixture(scope="module")
def seen_by_a_module_fixture():
    return current().seed_dir


def test_b_a_module_fixture_reads_the_environment_as_it_is(seen_by_a_module_fixture):
    assert seen_by_a_module_fixture != LEFT
"""


def test_a_module_fixture_after_a_test_that_set_the_seed_dir_reads_the_real_one(pytester):
    # the project's conftest as it is, with the tests folder on the path for what it imports
    conftest = (TESTS / "conftest.py").read_text().replace("from __future__ import annotations", "")
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n{conftest}")
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    assert result.ret == 0, "\n".join(result.outlines + result.errlines)
    result.assert_outcomes(passed=2)
