"""What a run record says it was made from: content hashes and the git commit."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from ops_copilot.definition import tool_specs

from ..scorers import registered


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def tool_schema_digest() -> str:
    """Every tool's declaration, parameters and docstring (what the model is shown)."""
    schema = {
        name: {
            "effect": s.effect,
            "confirm": s.confirm,
            "untrusted": s.untrusted,
            "entities": dict(s.entities),
            "params": {p.name: [p.required, p.annotation] for p in s.params.values()},
            "doc": (s.func.__doc__ or "").strip(),
        }
        for name, s in tool_specs().items()
    }
    return sha256(json.dumps(schema, sort_keys=True))


def scorers_digest() -> str:
    """The scorer set: each scorer's name, needs, gate and the source of its module."""
    import inspect
    import sys

    found = {
        name: [sorted(s.needs), s.gate, inspect.getsource(sys.modules[s.func.__module__])]
        for name, s in registered().items()
    }
    return sha256(json.dumps(found, sort_keys=True))


def git_state(where: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the checkout at `where`; (None, None) outside one."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return commit, bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        return None, None
