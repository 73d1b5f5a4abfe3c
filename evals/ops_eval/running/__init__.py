"""A live run's parts, between the results it writes and the command that drives it: its options
(`options`), its trials played and scored by the engine, the one loop over trials and over the
red team's units of work (`trials`), a progress line from a trial silent a while
(`heartbeat`), its judge opened for the run (`judge`), its record built
(`record`), and a run from end to end
(`execute`, which puts them together); `ops-eval mlflow` uses the same parts, each row played
by the engine's step. The engine also plays an eval set under each deterministic mutant of the
agent for mutation testing (the `mutation` package, above, drives it).

May import: `base`, `core`, `models`, `playing`, `scorers`, `validation` (the plan), `results`.
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "RunOptions": "options",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
