"""Optional dependency groups installed on first use: the embedded model's `local` (llama.cpp's
prebuilt server and a GGUF, seconds) and `mlflow` (seconds). Neither is part of `setup`, so the
offline gates stay small and fast; the command that needs a group installs it with the project's
own bootstrap.

The bootstrap leaves a marker per installed group, so a later sync keeps the group instead of
removing it. An installed wheel has no bootstrap: it can only say what to install.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import time
from collections.abc import Callable, Sequence

from .settings import current

Say = Callable[[str], None]


class GroupMissing(RuntimeError):
    """A group's modules are missing and could not be installed."""


def missing(modules: Sequence[str]) -> list[str]:
    """The modules not installed. A bare folder of the same name on sys.path (a namespace
    package, such as a tests/mlflow/ folder) is not the package, and counts as missing."""
    return [m for m in modules if not _installed(m)]


def _installed(module: str) -> bool:
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.origin is not None


def install(group: str, modules: Sequence[str], say: Say, what: str) -> None:
    """Install `group` with the project's bootstrap; `what` tells the user what is coming."""
    root = current().source_root
    bootstrap = root / ".mise" / "bootstrap" if root else None
    if bootstrap is None or not bootstrap.exists():
        raise GroupMissing(
            f"needs {', '.join(missing(modules))}; install the '{group}' dependency group "
            f"(uv sync --group {group})"
        )
    say(f"installing {what} (only the first time)...")
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(bootstrap), "--group", group],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    assert proc.stdout is not None
    last = started
    for line in proc.stdout:
        output.append(line)
        if time.monotonic() - last > 30:
            last = time.monotonic()
            say(f"  ...still installing ({int(last - started)} s)")
    if proc.wait() != 0:
        tail = "".join(output[-5:]).strip()
        raise GroupMissing(f"installing the '{group}' group failed: {tail}")
    assert root is not None
    (root / ".venv" / f".ops-copilot-group-{group}").touch()
    importlib.invalidate_caches()
    say(f"installed the '{group}' group in {time.monotonic() - started:.0f} s")


def ensure(group: str, modules: Sequence[str], say: Say, what: str) -> None:
    """Install the group when a module of it is missing; GroupMissing if still missing."""
    if missing(modules):
        install(group, modules, say, what)
        if missing(modules):
            raise GroupMissing(f"still missing after installing '{group}': {missing(modules)}")
