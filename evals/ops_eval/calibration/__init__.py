"""Calibrating the LLM judge against human labels, so its verdicts are trusted only as far as
they were measured.

- `items`: the labelled set (`evals/calibration/set.yaml`) and its loader;
- `metrics`: agreement with its interval, Cohen's kappa, sensitivity and specificity with their
  denominators, verbosity bias, and the target;
- `run`: one calibration, item by item, into a report;
- `reports`: the append-only, hash-chained report log, and `standing` -- what the gate asks;
- `render`: text and JSON;
- `command`: `ops-eval calibrate`.
"""

from __future__ import annotations

from .items import MIN_ITEMS, CalibrationItem, CalibrationSet, load_set
from .metrics import TARGET, Graded, Metrics, Rate, Target, measure, pearson, shortfalls
from .reports import CalibrationReport, ItemOutcome, append_report, read_reports, standing

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
    "pearson",
    "read_reports",
    "shortfalls",
    "standing",
]
