"""Mutation testing: would the eval set notice if the agent broke? All of it in one package,
above what it drives -- the engine that plays its mutants (`running`), the gate's rule that
judges a live one (`deciding`), MLflow tracking (`outputs.tracking`) and the red team
(`redteam`) -- and below the commands that expose it (`commands.mutate`, and `commands.history`
and `commands.report` for the scores it keeps):

- `mutants`: the deterministic mutants of the agent (its tools', guards', write policy's, any
  agent's through its port) and the instruction mutants played live, with their registry;
- `offline`: an eval set played under each deterministic mutant with the scripted oracle --
  killed, survived or equivalent, the score, gate.yaml's floor;
- `live`: instruction mutants on a live model, each judged against the unmutated agent by the
  gate's rule;
- `redteam`: the deterministic red team under each guard mutant a set lets survive;
- `ledger`: the scores an eval set has had (`mutation.jsonl`), `history --mutation`'s table and
  the line a run's report quotes;
- `tracking`: a score as an MLflow run (`mutate --mlflow`);
- `options`: `mutate`'s live options and the check of which mode takes which (argparse only).

Nothing below imports this package. What lower layers need of mutation testing reaches them
another way: the mutants' names, which `validate` holds gate.yaml's `mutation` block to, are
declared in `validation.gate_config` (`MUTANTS`; the registry refuses to load unless it holds
exactly those); the report's mutation line is handed to `outputs.report.written` by its
command. The names below are the public surface; each loads its module on first use, so
importing the package costs nothing.

May import: every layer below `commands` (`agents` to `redteam`).
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

_EXPORTS = {
    # the command's options
    "REPEATS": "options",
    "TIMEOUT_S": "options",
    "add_live_options": "options",
    "check_modes": "options",
    # the mutants
    "Mutant": "mutants",
    "OWN_AGENTS": "mutants",
    "for_agents": "mutants",
    "registered": "mutants",
    "instruction_mutants": "mutants.instruction",
    # played offline with the scripted oracle
    "Mutation": "offline",
    "Verdict": "offline",
    "floor_problems": "offline",
    "mutate": "offline",
    "said": "offline",
    "select_mutants": "offline",
    "verdict_lines": "offline",
    # the red team under the guard mutants
    "redteam_kill": "redteam",
    "with_redteam": "redteam",
    # instruction mutants on a live model
    "LiveVerdict": "live",
    "live_folder": "live",
    "live_lines": "live",
    "live_run_options": "live",
    "mutate_live": "live",
    "play_live": "live",
    # the ledger and its readers
    "LedgerError": "ledger",
    "MutationEntry": "ledger",
    "append": "ledger",
    "entries": "ledger",
    "entry_for": "ledger",
    "entry_of": "ledger",
    "latest_for": "ledger",
    "mutation_history": "ledger",
    "mutation_line": "ledger",
    # MLflow
    "log_mutation": "tracking",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
