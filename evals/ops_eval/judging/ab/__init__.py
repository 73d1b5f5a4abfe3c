"""`ops-eval ab`: two runs of one eval set compared pair by pair, by a judge asked in both
orders (a winner only when both agree) or, with no judge, by the deterministic gating verdicts
(every scorer that uses a judge left out, and named).

- `pairs`: which runs, which trials make pairs, and what the judge is shown of each;
- `decide`: one pair's outcome, from the judge's two answers or the gating verdicts;
- `report`: the comparison as a pydantic model, as text or JSON;
- `compare`: two runs resolved, paired and compared, by a judge or by the verdicts (its
  docstring lists the exit codes).

The command, `ops-eval ab`, is `commands.ab`.
May import: the layers below `judging` (`deciding.gate`: the gating verdicts, the changes), and
the rest of `judging` (the client, budget, setup and `run.gate_budget`).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "compare_runs": "compare",
    "text_lines": "report",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
