"""Playing a case on the real agent: the ADK session (`session`), one trial, or one scripted
session of fixed prompts (the red team's), turn by turn (`play`), a played turn built from the
runs it took, shared by cases and scenarios (`turns`), conversation scenarios -- played until the
user stops or a limit ends it, with a scripted or a model-backed user (`scenarios`) -- tool
faults made real at the tool boundary (`faults`), where a trial is as it plays, for the run's
progress lines (`pulse`), whose failure a trial's error is -- the model's, the simulated user's,
a tool's, the time limit's, a scorer's (`sides`) -- ADK's spans kept per trial (`spans`), and
ADK's own `adk run` / `adk web` with a chosen model (`interactive`). The mutants of the agent
are mutation testing's (`mutation`).

May import: `base`, `core`, `models`.
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "launch": "interactive",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
