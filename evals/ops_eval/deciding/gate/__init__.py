"""The regression gate: is a candidate run worse than its baseline, by more than noise?

One module per part, none calling back up (the policy file is read by
`validation.gate_config`, which checks it for `ops-eval validate` too; the run records by
`results.runs`; the ledger is `deciding.ledger`; whether a gating scorer's judge is calibrated
is `judging.gate_check`, which `commands.gate` hands `decide`; the commands are `commands.gate`,
`commands.gate_override` and `commands.baseline`):

    outcomes   a trial's verdict under the gating scorers, and the tallies of a set or category
    changes    what differs between two run records (eval set, seed, criteria, scorers, model...)
    compare    the comparison per set and category, the flips, McNemar's p
    reader_check  a WARNING for a gating reader of answers not measured to hold (`readers`)
    overrides  who accepted a failed gate, and why
    pins       named baselines, kept as checked copies
    baseline   which run is the baseline: explicit, pinned, or the latest comparable one
    headline   what the text leads with: the gate's decision and why, a subset said once
    render     the text, JSON and GitHub formats, and what the judge check found (`JudgeCheck`)
    decide     one decision from the command's flags: inputs checked, compared, recorded

May import: the layers below `deciding`, and `deciding.ledger` and `deciding.readers`.
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "decide_gate": "decide",
    "BLOCKING": "changes",
    "record_override": "overrides",
    "pin": "pins",
    "pin_lines": "pins",
    "as_json": "render",
    "github_lines": "render",
    "text_lines": "render",
    "workflow_message": "render",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
