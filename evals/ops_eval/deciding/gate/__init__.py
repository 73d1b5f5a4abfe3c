"""The regression gate: is a candidate run worse than its baseline, by more than noise?

One module per part, none calling back up:

    config     the gate's policy (`evals/gate.yaml`): thresholds, required cases, gating scorers
    outcomes   a trial's verdict under the gating scorers, and the tallies of a set or category
    changes    what differs between two run records (eval set, seed, criteria, scorers, model...)
    compare    the verdict per set and category, the flips, McNemar's p
    judge_check  whether a gating scorer's judge is calibrated (`calibration.standing`)
    entries    what a ledger line holds: a verdict, a pin, an override
    ledger     the append-only, hash-chained log of those lines
    overrides  who accepted a failed verdict, and why
    runs       which run record a command line names (path, run id, prefix, the newest)
    pins       named baselines, kept as checked copies
    baseline   which run is the baseline: explicit, pinned, or the latest comparable one
    render     the text, JSON and GitHub formats
    command    `ops-eval gate`, `ops-eval gate override`, `ops-eval baseline pin|list`

Nothing here is imported by `ops-eval validate` except `config`: keep this file import-free.
"""
