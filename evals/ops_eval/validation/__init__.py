"""Reading eval sets and holding them to the rules, before any model is called.

Holds: the files a validation reads (`discovery`, `files`, `adk`, `adk_parse`, `gate_config`), the
validator (`validator`: `validate` for the CLI, `check` for a run), what its rules share
(`problems`, `context`) and the rules: a case's `meta`, field by field (`meta_rules`), a case as a
whole and the text of its turns (`case_rules`), each expected call (`call_rules`), what a case may
expect of the agent under policy (`policy_rules`), reference answers that agree with the seed or
the state after the case's approved writes (`reference_rules`, reading them with the claims
reader narrowed to each text's words: `reference_reading`), trajectory contracts' argument
matchers (`contract_rules`), forbidden calls, order rules and budgets (`policy_contract_rules`),
tool faults (`fault_rules`), response checks (`response_rules`), conversation scenarios
(`scenario_rules`), whole files and across them (`set_rules`), the gate's policy (`gate_rules`), a
case that copies what the agent is given (`leaks`), and each case against its set's lock of
versions (`case_locks`); `plan`, which reads one set into the `core.plan.Plan` a run plays; and
the lock's own commands (`ops-eval cases`): the only ways it changes (`lock_edits`) and CI's check
that it only grew since a git ref (`lock_history`).

May import: `base`, `core`, `models`, `playing`, `scorers` (the validator checks a reference
answer with the scorers' own response check and a gate policy's scorer names against the
registry). A run imports `plan` only; the rule modules load when `check` is called.
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "AdkCheckError": "adk",
    "adk_worker": "adk",
    "GateConfigError": "gate_config",
    "read_gate_config": "gate_config",
    "gate_path": "gate_rules",
    "load_plan": "plan",
    "bump_cases": "lock_edits",
    "case_rows": "lock_edits",
    "lock_sets": "lock_edits",
    "check_against": "lock_history",
    "render": "validator",
    "render_warnings": "validator",
    "validate": "validator",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
