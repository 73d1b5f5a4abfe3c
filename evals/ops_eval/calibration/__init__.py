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
- `command`: `ops-eval calibrate`.
"""

from __future__ import annotations

from .items import MIN_ITEMS, CalibrationItem, CalibrationSet, load_set
from .metrics import TARGET, Graded, Metrics, Rate, Target, measure, pearson, shortfalls
from .reports import (
    CalibrationReport,
    ItemOutcome,
    append_report,
    not_counted,
    project_set,
    read_reports,
    standing,
)

__all__ = [
    "MIN_ITEMS",
    "TARGET",
    "CalibrationItem",
    "CalibrationReport",
    "CalibrationSet",
    "Graded",
    "ItemOutcome",
    "Metrics",
    "Rate",
    "Target",
    "append_report",
    "load_set",
    "measure",
    "not_counted",
    "pearson",
    "project_set",
    "read_reports",
    "shortfalls",
    "standing",
]
