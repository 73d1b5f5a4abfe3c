"""What a run record says it was made from: content hashes and the git commit."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from ..agents.ops_world import tool_specs
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


def scorer_digest(name: str) -> str:
    """One scorer's identity: its name, needs and gate, and every definition of the project it
    can reach -- the readers it calls included (`base.code_digest`)."""
    from ..base.code_digest import digest

    found = registered()[name]
    return sha256(
        json.dumps([name, sorted(found.needs), found.gate, digest(found.func.__module__)])
    )


def scorers_digest() -> str:
    """The scorer set: every scorer's identity (`scorer_digest`)."""
    return sha256(json.dumps({name: scorer_digest(name) for name in registered()}, sort_keys=True))


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
