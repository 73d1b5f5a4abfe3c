"""The fast tier's guard (tests/tiers.py), through pytest itself: a test file run in a pytest of
its own, with the guard loaded as the project's conftest loads it.

A test whose inner test really starts a process that looks like a server is itself marked
`e2e`: this file's own guard would see that process among its descendants. Then the tag the
end-to-end tests find their own servers by (processes.py), and the rule that keeps fixtures
layered: no test imports a conftest by name."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from processes import TAG, llama_servers, new_tag
from support import REPO
from tiers import MARKER, serving

TESTS = REPO / "tests"
# a harmless command the guard takes for llama.cpp's server (it names the server's module)
LOOKALIKE = [sys.executable, "-c", "import time; time.sleep(3)", "ops_eval.models.llama_server"]


@pytest.fixture
def inner(pytester):
    """run(source) -> the outcome of `source` as a test file, under the guard."""
    pytester.makeconftest(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\npytest_plugins = ['tiers']\n"
    )

    def run(source: str):
        pytester.makepyfile(test_inner=source)
        return pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")

    return run


def said(result) -> str:
    return "\n".join(result.outlines + result.errlines)


def test_an_unmarked_test_starting_a_server_fails_naming_the_marker(inner):
    result = inner(
        "import subprocess, sys\n"
        "def test_starts_the_embedded_server():\n"
        "    subprocess.Popen([sys.executable, '-m', 'ops_eval.models.llama_server', '--help'])\n"
    )
    result.assert_outcomes(failed=1)
    out = said(result)
    assert "test_inner.py::test_starts_the_embedded_server starts llama.cpp's server" in out
    assert f"is not marked @pytest.mark.{MARKER}" in out and "mise run test:all" in out


def test_a_test_that_swallows_the_failure_still_fails_at_teardown(inner):
    result = inner(
        "import subprocess\n"
        "def test_hides_it():\n"
        "    try:\n"
        "        subprocess.run(['mlflow', 'server', '--port', '0'])\n"
        "    except BaseException:\n"
        "        pass\n"
    )
    result.assert_outcomes(passed=1, errors=1)
    assert "starts an MLflow server (mlflow server)" in said(result)


def test_a_child_told_where_the_tests_own_server_listens_is_a_network_of_processes(inner):
    result = inner(
        "import os, subprocess, sys\n"
        "from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer\n"
        "def test_network():\n"
        "    with ThreadingHTTPServer(('127.0.0.1', 0), BaseHTTPRequestHandler) as server:\n"
        "        url = f'http://127.0.0.1:{server.server_port}/v1'\n"
        "        subprocess.run([sys.executable, '-c', 'pass'], check=True)  # not told: fine\n"
        "        subprocess.run(['git', '--version'], env={**os.environ, 'URL': url}, check=True)\n"
        "        subprocess.run([sys.executable, '-c', 'pass'], env={**os.environ, 'URL': url})\n"
    )
    result.assert_outcomes(failed=1)
    out = said(result)
    assert "told where a server it opened in this process listens" in out
    assert "a network of processes" in out and f"@pytest.mark.{MARKER}" in out


@pytest.mark.e2e  # its inner test starts a process the guard takes for a server
def test_a_server_started_by_a_child_is_found_and_killed(inner):
    code = f"import subprocess; subprocess.run({LOOKALIKE!r})"
    result = inner(
        "import subprocess, sys, time\n"
        "def test_child_starts_a_server():\n"
        "    started = time.monotonic()\n"
        f"    subprocess.run([sys.executable, '-c', {code!r}], check=True)\n"
        "    assert time.monotonic() - started < 2.5  # killed, not waited for\n"
    )
    result.assert_outcomes(passed=1, errors=1)
    assert "has a child process that started llama.cpp's server" in said(result)


@pytest.mark.e2e  # its inner test starts a process the guard takes for a server
def test_a_marked_test_is_left_alone(inner):
    result = inner(
        "import pytest, subprocess\n"
        f"@pytest.mark.{MARKER}\n"
        "def test_marked():\n"
        f"    subprocess.run({LOOKALIKE!r}, check=True)\n"
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "argv, what",
    [
        ([sys.executable, "-m", "ops_eval.models.llama_server", "--model", "m"],
         "llama.cpp's server"),
        (["/opt/llama.cpp/llama-server", "-m", "x.gguf"], "llama.cpp's server"),
        (["/v/bin/mlflow", "server", "--port", "5000"], "an MLflow server (mlflow server)"),
        (["python3", "-m", "mlflow", "ui"], "an MLflow server (mlflow ui)"),
        (["/v/bin/adk", "web", "agents"], "ADK's server (adk web)"),
        (["/v/bin/adk", "api_server"], "ADK's server (adk api_server)"),
        (["/v/bin/adk", "run", "agents/ops_copilot"], None),
        (["/v/bin/ops-eval", "validate"], None),
        (["/v/bin/mlflow", "gc"], None),
        (["git", "rev-parse", "HEAD"], None),
        ([], None),
    ],
)  # fmt: skip
def test_what_serves_is_told_from_what_does_not(argv, what):
    assert serving(argv) == what


def test_no_test_imports_a_conftest_by_name():
    """Every folder's conftest.py is imported as `conftest` (tests/scorers has one), so a name
    imported from `conftest` could come from either: what tests share by name is in support.py."""
    found = [
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("*.py")
        if re.search(r"^\s*(from conftest import|import conftest\b)", path.read_text(), re.M)
    ]
    assert found == []


@pytest.mark.e2e  # starts a process the guard takes for a server
def test_a_tagged_server_is_found_and_only_by_its_tag():
    """processes.llama_servers, which the end-to-end tests use to say no server outlived the
    command they started: it finds the tagged one, and not another test's."""
    tag = new_tag()
    proc = subprocess.Popen(LOOKALIKE, env={**os.environ, TAG: tag})
    try:
        deadline = time.monotonic() + 5  # until the child has exec'd what it runs
        while not llama_servers(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llama_servers(tag) == {proc.pid}
        assert llama_servers(new_tag()) == set()
    finally:
        proc.kill()
        proc.wait()
    assert llama_servers(tag) == set()
