"""What tests import by name: the repository's root, and a coroutine runner. (Not in a conftest:
every folder's conftest.py is imported as `conftest`, so a name imported from one could come
from another.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(coro):
    return asyncio.run(coro)


class TestEnv:
    """Environment variables set or removed for one test, the settings read again after each
    change, and both put back by `close`. The settings must be read again *after* the variables
    are restored: a module-scoped fixture of the next test is set up before that test's own
    function-scoped fixtures, so it would read settings left over from this one."""

    __test__ = False  # not a test class

    def __init__(self) -> None:
        import pytest

        self._patch = pytest.MonkeyPatch()

    def setenv(self, name: str, value: str) -> None:
        from ops_eval.base.settings import reload

        self._patch.setenv(name, value)
        reload()

    def delenv(self, name: str) -> None:
        from ops_eval.base.settings import reload

        self._patch.delenv(name, raising=False)
        reload()

    def close(self) -> None:
        from ops_eval.base.settings import reload

        self._patch.undo()
        reload()


def forge_ledger(path: Path, edit, key: bytes | None = None) -> None:
    """Rewrite a hash-chained JSONL log (gate ledger, calibration reports) as a forger with
    write access would: `edit` changes the list of line bodies (without hash, prev, sig), then
    every line's prev and hash are recomputed -- signed with `key` when given, a key the forger
    may or may not hold."""
    import json

    from ops_eval.deciding.ledger.chain import GENESIS, canonical, entry_hash

    bodies = [
        {k: v for k, v in json.loads(line).items() if k not in ("hash", "prev", "sig")}
        for line in path.read_text().splitlines()
    ]
    prev, lines = GENESIS, []
    for body in edit(bodies):
        fields = {**body, "prev": prev}
        fields["hash"] = prev = entry_hash(fields)
        if key is not None:
            from ops_eval.deciding.ledger.signing import signature

            fields["sig"] = signature(key, prev)
        lines.append(canonical(fields).decode())
    path.write_text("".join(f"{line}\n" for line in lines))
