"""`ops-eval mutate` names each case it leaves out because it fails unmutated, one line each,
with why: the failing scorer and its detail -- a case left out is a case to fix, and its line
says where to start."""

from __future__ import annotations

import pytest
from validate_cli import case, mutate_ops

from ops_eval.cli import main


@pytest.fixture(autouse=True)
def _runs_here(tmp_path, ops_env):
    """Every `mutate` appends to the runs folder's mutation ledger: this test's own."""
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))


def test_a_case_that_fails_unmutated_is_left_out_with_its_failing_scorer_and_why(evals, capsys):
    """A reference that says a true thing no tool of the case returns validates (the seed agrees),
    and fails `grounded` on the scripted oracle, which answers with the reference."""

    def unfetched(data: dict) -> None:
        final = case(data, "service-status-inventory")["conversation"][0]["final_response"]
        final["parts"][0]["text"] += " INC-009 is SEV2."

    mutate_ops(evals, unfetched)
    argv = ["mutate", "--set", str(evals / "ops.evalset.json"), "--mutants", "incident-off-by-one"]
    code = main(argv)
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    at = out.index("left out (they fail unmutated):")
    assert out[at + 1] == (
        "  service-status-inventory: grounded: turn 1: says INC-009 severity SEV2; no tool "
        "returned INC-009's severity"
    )
    assert out[at + 2].startswith("mutant ")  # one line a case, then the table
