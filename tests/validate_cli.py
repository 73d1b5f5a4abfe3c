"""`ops-eval validate` through its CLI entry point, and the edits its tests make to a copy of the
eval sets (the `evals` fixture): read and write a set, find a case or a turn's expected calls,
change the ops set in place. What a test of one validation rule needs to break one thing and
read the exact problem line."""

from __future__ import annotations

import json
from pathlib import Path

from ops_eval.cli import main
from support import REPO

EVALS = REPO / "evals"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def save(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2))


def case(data: dict, eval_id: str) -> dict:
    return next(c for c in data["eval_cases"] if c["eval_id"] == eval_id)


def calls(data: dict, eval_id: str, turn: int = 1) -> list[dict]:
    return case(data, eval_id)["conversation"][turn - 1]["intermediate_data"]["tool_uses"]


def validate(capsys, *args: str) -> tuple[int, list[str], str]:
    """`ops-eval validate ARGS`: its exit code, its non-empty output lines, its stderr."""
    code = main(["validate", *args])
    out = capsys.readouterr()
    return code, [ln for ln in out.out.splitlines() if ln], out.err


def mutate_ops(evals: Path, change) -> None:
    """Apply `change` to the ops set of the copy `evals` (its JSON, in place)."""
    path = evals / "ops.evalset.json"
    data = load(path)
    change(data)
    save(path, data)
