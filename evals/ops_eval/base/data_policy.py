"""Which data the process's run may write: `full` (every prompt, answer and argument) or
`minimal` (keyed hashes and scrubbed labels, `results/minimal.py`).

The policy is enforced by the writers, not assumed of the readers: every writer that stores
text -- the spans file, the `--record` recording, the judge's verdict cache, a live MLflow
trace -- asks `refuse_text` first, and under `minimal` it refuses with one line (exit 2),
whatever asked it to write. A run holds its policy for the process while it plays (`holding`);
one run per process, and judge threads see it too, so it is a process-wide setting, not a
context variable.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Literal

from .exits import EXIT_BAD_INPUT, OpsEvalError

Policy = Literal["full", "minimal"]
POLICIES: tuple[Policy, ...] = ("full", "minimal")

_lock = threading.Lock()
_active: list[Policy] = []


class TextRefused(OpsEvalError):
    """A writer was asked to store text while a minimal-data run holds the process."""

    def __init__(self, writer: str, why: str) -> None:
        super().__init__(
            EXIT_BAD_INPUT, f"{writer}: refused under --data minimal ({why}); it keeps no text"
        )


def active() -> Policy:
    """The policy of the run holding the process; `full` when none does."""
    with _lock:
        return _active[-1] if _active else "full"


@contextlib.contextmanager
def holding(policy: Policy) -> Iterator[None]:
    """The process writes under `policy` for the block."""
    with _lock:
        _active.append(policy)
    try:
        yield
    finally:
        with _lock:
            _active.pop()


def refuse_text(writer: str, why: str) -> None:
    """TextRefused when a minimal-data run holds the process: `writer` would store text (`why`
    says which)."""
    if active() == "minimal":
        raise TextRefused(writer, why)
