"""Run records for the gate's tests (imported by name; see support.py): a record written into
the runs folder, optionally with a passing verdict in the ledger as if it had been gated."""

from __future__ import annotations

from pathlib import Path

from ops_eval.results.records import write_record
from ops_eval.results.synthetic import synthetic_record

SET = "evals/scenario.evalset.json"  # no required cases in the project's policy


def write_run(
    runs: Path, run_id: str, passes: list[list[bool | None]], hour: int, judged=False, **kw
) -> Path:
    """A run record in `runs`; `judged`: with a passing verdict under the shipped policy in the
    ledger, as if it had been gated -- what makes a run an automatic baseline."""
    cases = [(f"case-{i:02d}", "happy" if i % 2 else "negative", p) for i, p in enumerate(passes)]
    record = synthetic_record(
        cases, run_id=run_id, started_at=f"2026-11-30T{hour:02d}:00:00+00:00", eval_set=SET, **kw
    )
    path = runs / f"{run_id}.json"
    write_record(record, path)
    if judged:
        from ops_eval.deciding.ledger.chain import Ledger
        from ops_eval.deciding.ledger.entries import VerdictEntry
        from ops_eval.results.runs import file_sha256
        from ops_eval.validation.gate_config import gate_file, read_gate_config

        policy, _ = read_gate_config(gate_file())
        Ledger(runs / "gate-ledger.jsonl").append(
            VerdictEntry(
                candidate=run_id,
                candidate_sha256=file_sha256(path),
                baseline=None,
                baseline_sha256=None,
                policy_sha256=policy.digest(),
                verdict="pass",
                passed=True,
            )
        )
    return path


ALL_PASS = [[True] * 10] * 20
DROPPED = [[True] * 7 + [False] * 3] * 10 + [[True] * 10] * 10  # 200 -> 170 of 200
