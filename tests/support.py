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


def refigured(record):
    """`record` (a RunRecord, or its JSON as a dict) with each trial's status and the figures
    worked out again from its trials' scores, as a run that played those trials would have
    written them: what a test that edits a record's trials writes, since a record that says
    other than its trials make is refused."""
    from ops_eval.results.follows import recomputed
    from ops_eval.results.record_parts import trial_status
    from ops_eval.results.records import RunRecord

    if isinstance(record, dict):
        return refigured(RunRecord.model_validate(record)).model_dump(mode="json")
    trials = [
        t if t.status == "error" else t.model_copy(update={"status": trial_status(t.scores)})
        for t in record.trials
    ]
    record = record.model_copy(update={"trials": trials})
    made = recomputed(record)
    assert made is not None, "a record naming a scorer this code lacks"
    return record.model_copy(update=made)


def unhashed(record):
    """The record as version 5 wrote it: no case hashes, no count of the set's cases."""
    trials = [
        t.model_copy(update={"case_sha256": None, "case_version": None}) for t in record.trials
    ]
    return record.model_copy(update={"schema_version": 5, "eval_set_cases": None, "trials": trials})
