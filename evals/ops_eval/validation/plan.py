"""The first stage of a run: read the eval set once, validate it, and fix what will run.

The set's file is read once; the validator checks that same text (a set it does not pass is
refused, exit 2), and ADK parses it once, in process, for the trajectory scorer's expected
invocations. The criteria and the deliberate negatives come from the validator's reading of the
files beside the set. A run reaches the validator through this one call (`check`), never its
rule modules.
"""

from __future__ import annotations

from pathlib import Path

from ..agents.ops_world import default_seed
from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..core.contracts import SetContracts, read_set_contracts, set_contracts_path
from ..core.criteria import read_criteria
from ..core.evalset import MalformedInput, read_evalset
from ..core.plan import Plan


def load_plan(set_path: Path, case_ids: list[str] | None = None) -> Plan:
    """The cases to run; OpsEvalError (exit 2) for a set the validator does not pass."""
    from .validator import check, render

    try:
        evalset = read_evalset(set_path)
    except MalformedInput as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    seed = default_seed()
    validated = check([set_path], [evalset], seed=seed, in_process=True)
    if validated.report.problems:
        lines = ["the eval set does not validate:", *render(validated.report)]
        raise OpsEvalError(EXIT_BAD_INPUT, "\n".join(lines))
    cases = evalset.cases
    if not cases:
        raise OpsEvalError(EXIT_BAD_INPUT, f"{evalset.display}: no case to run")
    if case_ids is not None:
        if not case_ids:
            raise OpsEvalError(EXIT_BAD_INPUT, "no case selected: the case list is empty")
        known = {c.eval_id for c in cases}
        unknown = [c for c in case_ids if c not in known]
        if unknown:
            raise OpsEvalError(
                EXIT_BAD_INPUT,
                f"{evalset.display}: no case {', '.join(map(repr, unknown))} "
                f"(cases: {', '.join(sorted(known))})",
            )
        cases = [c for c in cases if c.eval_id in case_ids]
    assert validated.negatives is not None  # a missing or broken file is a problem above
    return Plan(
        evalset=evalset,
        cases=cases,
        adk_cases={c.eval_id: c for c in validated.adk_sets[0].eval_cases},
        criteria=read_criteria(validated.configs[set_path.parent].data),
        negatives=validated.negatives,
        seed=seed,
        warnings=validated.report.warnings,
        set_contracts=_set_contracts(set_path),
    )


def _set_contracts(set_path: Path) -> SetContracts | None:
    """The set-level contracts that apply to `set_path` (beside it, or the project's for an ad-hoc
    set, as the validator reads them); None without the file. The validator reports a broken
    file first, so here it is an OpsEvalError (exit 2) only if it changed since."""
    contracts, broken = read_set_contracts(set_path)
    if broken:
        shown = set_contracts_path(set_path)
        raise OpsEvalError(EXIT_BAD_INPUT, "\n".join(f"{shown}: {error}" for error in broken))
    return contracts
