"""The regression gate: is a candidate run worse than its baseline, by more than noise?

One module per part, none calling back up:

    config    the gate's policy (`evals/gate.yaml`): thresholds, required cases, gating scorers
    outcomes  a trial's verdict under the gating scorers, and the tallies of a set or category
    changes   what differs between two run records (eval set, seed, criteria, scorers, model...)
    compare   the verdict per set and category, the flips, McNemar's p
    ledger    the append-only, hash-chained log of verdicts, pins and overrides
    baseline  which run is the baseline: explicit, pinned, or the latest comparable one
    render    the text, JSON and GitHub formats
    command   `ops-eval gate`, `ops-eval baseline`, `ops-eval gate override`
"""
