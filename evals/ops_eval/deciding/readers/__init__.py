"""Measuring the readers of answers -- every scorer that judges an answer in words (`facts`,
`grounded`, `complete`, `contains`, `not_contains`: `reads_answers` in the registry) and the
agent's answer guard -- against real models' answers labelled by hand, as the judge is measured
(`judging.calibration`).

- `items`: the labelled set (`evals/calibration/answers.jsonl` for the trials as played,
  `answers.yaml` for the labels, its header the labelling rules and the split by case);
- `collect`: trials of live run records added to the set, for labelling;
- `rescore`: each labelled trial scored again, offline, by the readers as they are now;
- `metrics`: false fails and false passes (the guard: false flags) with their denominators and
  intervals, "not measured" under 40 items per class;
- `reports`: the append-only measurement log and `standing`, what the gate warns on;
- `measure`: every reader measured and the measurement appended, and its text (the exit codes).

The command is `ops-eval readers` (`commands.readers`).
May import: the layers below `deciding`, and `deciding.ledger` (the log's chain).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "collect_answers": "collect",
    "collected_lines": "collect",
    "default_folder": "items",
    "measure_readers": "measure",
    "text_lines": "measure",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
