"""The two test tiers, and the guard that keeps the fast one fast (a pytest plugin: conftest
loads it).

`mise run test` runs every test not marked `e2e`, on every core; `mise run test:all` then runs
the tests marked `e2e`: a real model server (the embedded llama.cpp model, a GGUF, the router
over real servers), an MLflow server, a network of processes (a child process talking to a
server), the built wheel, `adk eval`. A test is in the end-to-end tier because it declares the
marker, never because of the file it sits in.

The guard watches every test that is not marked. It fails the test, naming the marker, when the
test
- starts a process that serves (`serving`): llama.cpp's server, `mlflow server|ui`,
  `adk web|api_server`;
- starts a program of this environment (Python, or a command in its bin folder: ops-eval, adk,
  mlflow) told where a server it opened in this process listens (the port in the child's
  arguments or environment): the child talks to it, a network of processes;
- has a child whose own descendants include a process that serves (an `ops-eval run` with no
  model starting the embedded one, or `ops-eval web` starting `adk web`, say). That one is seen
  by sampling /proc while the child runs (Linux only); the process found is killed, so the test
  ends at once.
Servers the test runs in threads of its own process (the scripted stand-ins in fake_openai.py)
are not a tier of their own: they cost nothing, and a child started beside one is caught above.
The check raises `pytest.fail`, a BaseException no `except Exception` swallows, and is repeated at
teardown in case the code under test swallowed even that.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path

import pytest

from processes import alive, cmdline, descendants

MARKER = "e2e"
DESCRIPTION = (
    "the end-to-end tier (mise run test:all): a real model server, an MLflow server, a network "
    "of processes, the built wheel or adk eval"
)

SAMPLE_EVERY_S = 0.1
CALL_FAILED = pytest.StashKey[bool]()


def _words(args: object) -> list[str]:
    """Popen's `args` as words (a shell command split as the shell would)."""
    if isinstance(args, str | bytes | os.PathLike):
        text = os.fsdecode(args)
        return shlex.split(text) if " " in text else [text]
    return [os.fsdecode(a) for a in args]  # type: ignore[union-attr]


def serving(argv: Sequence[str]) -> str | None:
    """What the command `argv` serves (a short name), or None when it serves nothing."""
    words = list(argv)
    if not words:
        return None
    names = [Path(w).name for w in words]
    if any(w == "ops_eval.models.llama_server" or w.endswith("llama_server.py") for w in words):
        return "llama.cpp's server"
    if "llama-server" in names:
        return "llama.cpp's server"
    program = names[0]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if program.startswith("python") and "-m" in words:
        module = words[words.index("-m") + 1] if words.index("-m") + 1 < len(words) else ""
        program = module
        rest = [w for w in words[words.index("-m") + 2 :] if not w.startswith("-")]
    first = rest[0] if rest else ""
    if program == "mlflow" and first in {"server", "ui"}:
        return f"an MLflow server (mlflow {first})"
    if program == "adk" and first in {"web", "api_server"}:
        return f"ADK's server (adk {first})"
    return None


def _ours(words: Sequence[str]) -> bool:
    """Whether the command runs a program of this environment (the interpreter, or a command
    beside it), rather than a system tool such as git."""
    if not words:
        return False
    program = Path(words[0])
    return program.name.startswith("python") or program.parent == Path(sys.executable).parent


def advice(nodeid: str, what: str) -> str:
    return (
        f"{nodeid} {what}, but is not marked @pytest.mark.{MARKER}: a test that needs a server "
        f"belongs to {DESCRIPTION.split(' (')[0]} (`mise run test:all`). Mark it "
        f"@pytest.mark.{MARKER}, or give it a scripted model instead of a server."
    )


class Guard:
    """The guard over one unmarked test (see the module's docstring)."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.violations: list[str] = []
        self.raised: list[str] = []  # failed the test where it happened
        self.listening: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._stop = threading.Event()
        self._watchers: list[threading.Thread] = []

    def fail(self, what: str) -> None:
        message = advice(self.nodeid, what)
        if message not in self.violations:
            self.violations.append(message)
        self.raised.append(message)
        pytest.fail(message, pytrace=False)

    def before_start(self, args: object, env: dict[str, str] | None) -> None:
        words = _words(args)
        what = serving(words)
        if what is not None:
            self.fail(f"starts {what}")
        if not _ours(words):
            return
        told = [*words, *(os.environ if env is None else env).values()]
        for port in self.ports():
            if any(f":{port}" in str(word) for word in told):
                self.fail(
                    f"starts a process ({shlex.join(words[:3])} ...) told where a server it "
                    f"opened in this process listens (port {port}): a network of processes"
                )

    def ports(self) -> list[int]:
        """The ports this test's own servers listen on now."""
        found = []
        for sock in list(self.listening):
            try:
                found.append(sock.getsockname()[1])
            except OSError:  # closed since
                continue
        return found

    def watch(self, proc: subprocess.Popen) -> None:
        """Sample the child's descendants until it ends; kill any that serves. Whether it ended
        is read from /proc, never by waiting for it: that would reap a child its owner (asyncio's
        watcher, say) still means to wait for."""
        if not alive(proc.pid):  # ended already, or no /proc to sample
            return

        def sample() -> None:
            while alive(proc.pid) and not self._stop.wait(SAMPLE_EVERY_S):
                for pid in descendants(proc.pid):
                    what = serving(cmdline(pid))
                    if what is None:
                        continue
                    message = advice(self.nodeid, f"has a child process that started {what}")
                    if message not in self.violations:
                        self.violations.append(message)
                    with contextlib.suppress(OSError):  # it may have ended already
                        os.kill(pid, signal.SIGKILL)

        thread = threading.Thread(target=sample, daemon=True, name="tier-guard")
        thread.start()
        self._watchers.append(thread)

    def close(self) -> None:
        self._stop.set()
        for thread in self._watchers:
            thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _fast_tier_guard(request, monkeypatch):
    """The guard over every test not marked `e2e`; a marked test is left alone."""
    if request.node.get_closest_marker(MARKER) is not None:
        yield
        return
    guard = Guard(request.node.nodeid)
    popen_init = subprocess.Popen.__init__
    listen = socket.socket.listen

    def guarded_init(self, args, *rest, **kwargs):
        guard.before_start(args, kwargs.get("env"))
        popen_init(self, args, *rest, **kwargs)
        guard.watch(self)

    def guarded_listen(self, *args):
        guard.listening.add(self)
        return listen(self, *args)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded_init)
    monkeypatch.setattr(socket.socket, "listen", guarded_listen)
    try:
        yield
    finally:
        guard.close()
    # a violation the test already failed on is not said twice, unless the test swallowed it
    swallowed = not request.node.stash.get(CALL_FAILED, False)
    unsaid = [v for v in guard.violations if swallowed or v not in guard.raised]
    if unsaid:
        pytest.fail("\n".join(unsaid), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


def pytest_configure(config):
    config.addinivalue_line("markers", f"{MARKER}: {DESCRIPTION}")


def pytest_terminal_summary(terminalreporter, config):
    """The order's seed at the end, where `-q` (which hides pytest-randomly's header) still
    shows it: a failure that only one order shows can be replayed."""
    seed = getattr(config.option, "randomly_seed", None)
    if config.pluginmanager.has_plugin("randomly") and isinstance(seed, int):
        terminalreporter.write_line(f"random test order: replay it with --randomly-seed={seed}")
