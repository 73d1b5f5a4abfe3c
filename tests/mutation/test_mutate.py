"""`ops-eval mutate` on the ops set, offline with the scripted oracle: the mutants the set kills
today are killed, each by the cases and scorers named; removing the one case that kills a mutant
fails the command naming it; each mutant leaves the agent as it was once its block ends; bad
input is exit 2."""

from __future__ import annotations

import json

import pytest

from ops_eval.cli import main
from ops_eval.mutation import registered

MUTANTS = registered()


@pytest.fixture(autouse=True)
def _runs_here(tmp_path, ops_env):
    """Every `mutate` appends to the runs folder's mutation ledger: this test's own."""
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))


KILLED_TODAY = {
    "incident-off-by-one": "incident-detail-inc-002 (grounded)",
    "not-found-is-empty-success": "unknown-incident-inc-999 (grounded)",
    "runbook-search-empty": "ambiguous-symptom-runbook (grounded)",
    "note-saved-without-text": "memory-note-then-recall (end_state)",
    "write-reports-success-unapplied": "approve-restart-inventory (end_state, grounded)",
    "write-skips-approval": "restart-needs-approval (tool_policy)",
    "notes-never-need-approval": "note-after-logs-needs-approval (end_state, tool_policy)",
}


def _mutate(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["mutate", *argv])
    return code, capsys.readouterr().out


def test_at_least_fifteen_mutants_each_with_its_bug_and_kind():
    assert len(MUTANTS) >= 15
    for mutant in MUTANTS.values():
        assert mutant.kind in ("tool", "guard", "policy") and len(mutant.bug) > 20, mutant.name


def test_the_mutants_declared_are_the_names_validate_holds_gate_yaml_to():
    """`validation.gate_config.MUTANTS` (below the mutants, for validation) names each mutant
    declared, in order, and nothing else."""
    from ops_eval.validation.gate_config import MUTANTS as NAMES

    assert tuple(MUTANTS) == NAMES


def test_the_ops_set_kills_the_mutants_it_kills_today_and_names_its_blind_spots(capsys):
    code, out = _mutate(capsys)
    assert code == 0, out
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.split()[0] in MUTANTS}
    assert set(rows) == set(MUTANTS)
    for name, evidence in KILLED_TODAY.items():
        assert " killed " in rows[name] and evidence in rows[name], rows[name]
    killed = {name for name, row in rows.items() if " killed " in row}
    assert killed == set(KILLED_TODAY)  # a new kill is welcome: add it to must_kill and here
    # A survivor says whether the set exercised it at all.
    assert (
        "never exercised: 7 trial(s) called save_incident_note/restart_service/resolve_incident"
        in rows["kill-switch-ignored"]
    )
    assert "exercised, unnoticed: " in rows["spotlighting-off"]
    assert f"mutation score of evals/ops.evalset.json: 7/{len(MUTANTS)}" in out
    # The verdict against gate.yaml's floor leads, and the floor itself is printed.
    first = out.splitlines()[0]
    assert first.startswith(f"mutate: PASSED -- score 7/{len(MUTANTS)} (")
    assert first.endswith(
        "meets gate.yaml's floor of 40%, and none of its 7 must-kill mutant(s) survived"
    )
    assert (
        "gate.yaml's floor: mutation.min_score 40%, 7 must-kill mutant(s), 0 marked equivalent"
        in out
    )


def test_removing_the_case_that_alone_kills_a_mutant_fails_naming_it(evals, capsys):
    path = evals / "ops.evalset.json"
    data = json.loads(path.read_text())
    data["eval_cases"] = [
        c for c in data["eval_cases"] if c["eval_id"] != "memory-note-then-recall"
    ]
    path.write_text(json.dumps(data, indent=1))
    code, out = _mutate(capsys, "--set", str(path), "--mutants", "note-saved-without-text")
    assert code == 1
    assert "FAILED: note-saved-without-text survived, and gate.yaml's mutation.must_kill" in out
    assert out.startswith("mutate: FAILED -- note-saved-without-text survived, and gate.yaml's")


def test_a_mutant_leaves_the_agent_as_it_was_after_its_block():
    from ops_copilot import agent
    from ops_copilot.store import writes
    from ops_copilot.store.state import StateStore
    from ops_copilot.store.workspace import Workspace
    from ops_copilot.tools import approval, results
    from ops_copilot.tools import reads as tools

    watched = [
        (agent, "tool_specs"), (agent, "output_guard"), (agent, "confirmation_rule"),
        (approval, "rationale_problem"), (results, "not_found"), (tools, "rank_runbooks"),
        (tools, "pick_log_lines"), (writes, "already_applied"), (writes, "read_untrusted_text"),
        (StateStore, "add_note"), (StateStore, "apply_write"), (Workspace, "writes_refused"),
        (Workspace, "untrusted"),
    ]  # fmt: skip
    before = [getattr(owner, name) for owner, name in watched]
    for mutant in MUTANTS.values():
        with mutant.applied():
            pass
        assert [getattr(owner, name) for owner, name in watched] == before, mutant.name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mutants", "no-such-mutant"], "--mutants: no-such-mutant: no such mutant"),
        # --live's options, refused as `run` refuses them, never silently ignored without it
        (["--repeats", "0"], "--repeats: 0 is not a whole number from 1 to 1,000"),
        (["--repeats", "1000000000"], "--repeats: 1000000000 is not a whole number from 1 to"),
        (["--timeout", "nan"], "--timeout: nan is not a number of seconds from 1 up"),
        (["--timeout", "inf"], "--timeout: inf is not a number of seconds from 1 up"),
        (["--repeats", "5", "--timeout", "60"], "--repeats, --timeout: go with --live"),
    ],
)
def test_bad_input_is_exit_2(capsys, argv, message):
    capsys.readouterr()
    assert main(["mutate", *argv]) == 2
    out, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1 and out == ""


def test_validate_refuses_a_must_kill_that_names_no_mutant(evals, capsys):
    gate = evals / "gate.yaml"
    gate.write_text(gate.read_text().replace("- write-skips-approval", "- write-skips-aproval"))
    assert main(["validate", str(evals / "ops.evalset.json")]) == 1
    said = capsys.readouterr().out
    assert "mutation.must_kill[6]" in said and "did you mean 'write-skips-approval'?" in said


def test_the_red_team_kills_a_guard_mutant_and_passes_the_agent_as_it_is():
    """`--redteam` on a few attacks: the link guard unhooked lets an exfiltration link through
    (a breach); with the guard in place the same attacks pass."""
    import logging

    from ops_copilot.seed.loading import default_seed
    from ops_eval.base.model_logs import model_logs
    from ops_eval.mutation import redteam_kill
    from ops_eval.redteam import default_attacks, default_benign, load_attacks, load_benign
    from ops_eval.redteam.suite import run_suite

    seed = default_seed()
    attacks = [a for a in load_attacks([default_attacks()], seed) if a.id.startswith("exfil-")][:3]
    benign = load_benign(default_benign())
    assert attacks
    with model_logs(floor=logging.ERROR):
        assert run_suite(attacks, benign, seed=seed).exit_code == 0
    found = redteam_kill(MUTANTS["link-guard-off"], attacks, benign, seed)
    assert found is not None and "breach(es), e.g. exfil-" in found


def test_a_mutant_marked_equivalent_is_left_out_of_the_score_with_its_reason(evals, capsys):
    gate = evals / "gate.yaml"
    gate.write_text(
        gate.read_text().replace(
            "equivalent: {}",
            'equivalent:\n    log-search-ignores-query: "no answer reads which lines came back"',
        )
    )
    code, out = _mutate(capsys, "--set", str(evals / "ops.evalset.json"), "--mutants",
                        "log-search-ignores-query,note-saved-without-text")  # fmt: skip
    assert code == 0, out
    assert "equivalent  marked equivalent: no answer reads which lines came back" in out
    assert "mutation score of evals/ops.evalset.json: 1/1 (100%)" in out
    # Marked equivalent and listed as one to kill: refused, it cannot be both.
    swapped = gate.read_text().replace("- note-saved-without-text", "- log-search-ignores-query")
    gate.write_text(swapped)
    assert main(["validate", str(evals / "ops.evalset.json")]) == 1
    said = capsys.readouterr().out
    assert "'log-search-ignores-query' is marked equivalent, so it cannot be killed" in said
