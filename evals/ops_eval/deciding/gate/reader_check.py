"""Whether the readers behind a run's gating verdicts on answers were measured to hold: a WARNING
for each gating scorer that reads answers in words (`reads_answers`), judged some trial of the
run, and whose measurement against the hand-labelled answers (`deciding.readers`) misses its
target, was never made, or has lapsed (the scorer, a reader it calls, or the labelled set changed
since). A warning only: the run's verdicts stand and the exit code is unchanged -- it tells the
reader how far to trust them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...results.records import RunRecord
    from ...validation.gate_config import GateConfig


def reader_warnings(record: RunRecord, config: GateConfig, folder: Path | None = None) -> list[str]:
    """One line per such scorer (see the module docstring); one line for all of them when the
    labelled set or its measurement log cannot be read (nothing is known of any of them then)."""
    from ...base.exits import OpsEvalError
    from ...results.provenance import scorer_digest
    from ...scorers import registered
    from ..readers.items import default_folder, load_labelled
    from ..readers.reports import standing

    known = registered()
    names = [
        name
        for name in config.gating_scorers
        if name in known
        and known[name].reads_answers
        and any(name in t.scores and t.scores[name].counted for t in record.trials)
    ]
    if not names:
        return []
    folder = folder or default_folder()
    warnings = []
    try:
        labelled = load_labelled(folder)
        for name in names:
            why = standing(name, scorer_digest(name), labelled.sha256, folder)
            if why is not None:
                warnings.append(f"{name}: its verdicts on answers are not known to hold -- {why}")
    except OpsEvalError as exc:
        shown = ", ".join(names)
        return [f"{shown}: their verdicts on answers are not known to hold -- {exc}"]
    return warnings
