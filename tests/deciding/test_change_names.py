"""What changed between two runs names each side whole: a hash is cut to its first 12 hex digits,
a name -- a model, an agent -- never (issue 43: the gate printed `openai/smoll… -> replay:…`)."""

from __future__ import annotations

from gate_runs import ALL_PASS, write_run

from ops_eval.cli import main
from ops_eval.deciding.gate.changes import Change

SMOLL = "openai/smollm2-135m-instruct"
REPLAY = "replay:evals/recordings/ops-smollm2-135m-instruct.jsonl"


def test_the_gate_names_both_models_whole_and_cuts_only_hashes(tmp_path, ops_env, capsys):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    write_run(tmp_path, "base0001", ALL_PASS, 1, judged=True, model=SMOLL, instruction="a" * 64)
    write_run(tmp_path, "cand0001", ALL_PASS, 2, model=REPLAY, instruction="b" * 64)
    assert main(["gate", "cand0001", "--baseline", "base0001"]) == 0
    out = capsys.readouterr().out
    assert f"  model: {SMOLL} -> {REPLAY}  [compared]" in out
    assert f"  instruction: ops_copilot {'a' * 12}… -> ops_copilot {'b' * 12}…  [compared]" in out


def test_a_hash_is_cut_wherever_it_stands_and_a_name_never():
    cases = Change("cases", f"{'c' * 64} (26 cases)", f"{'d' * 64} (2 cases)")
    assert cases.show() == f"cases: {'c' * 12}… (26 cases) -> {'d' * 12}… (2 cases)"
    long_name = "ollama/" + "x" * 60  # longer than any hash, not hex
    assert Change("model", long_name, SMOLL).show() == f"model: {long_name} -> {SMOLL}"
    assert Change("seed", "5" * 24, "6" * 25).show() == f"seed: {'5' * 24} -> {'6' * 12}…"
