"""Calibrating the LLM judge against answers labelled by hand (by this project's engineer; see
the set's header), so its verdicts are trusted only as far as they were measured.

- `items`: the labelled set (`evals/calibration/set.yaml`, the project's: the only set whose
  reports certify) and its loader;
- `metrics`: agreement with its interval, Cohen's kappa, sensitivity and specificity with their
  denominators, verbosity bias, and the target;
- `run`: one calibration, item by item, into a report (stopped, with nothing to append, when
  the judge is unreachable or the budget refuses a call);
- `reports`: the append-only, hash-chained report log, and `standing` -- what the gate asks:
  the latest report on the project's set as it is now, against the project's target;
- `render`: text and JSON;
- `session`: one calibration from the command's flags to the appended report, every input
  checked before the judge is asked (its docstring lists the exit codes).

The command, `ops-eval calibrate`, is `commands.calibrate`.
May import: the layers below `judging` (`deciding.ledger`: the report log's chain), and the rest
of `judging` (the client, budget and setup).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "MIN_ITEMS": "items",
    "CalibrationItem": "items",
    "CalibrationSet": "items",
    "load_set": "items",
    "TARGET": "target",
    "Graded": "metrics",
    "Metrics": "metrics",
    "Rate": "metrics",
    "Target": "target",
    "measure": "metrics",
    "pearson": "metrics",
    "shortfalls": "metrics",
    "CalibrationReport": "reports",
    "ItemOutcome": "reports",
    "append_report": "reports",
    "not_counted": "reports",
    "project_set": "reports",
    "read_reports": "reports",
    "standing": "reports",
    "calibrate_judge": "session",
    "as_json": "render",
    "text_lines": "render",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
