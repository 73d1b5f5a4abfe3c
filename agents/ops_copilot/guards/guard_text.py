"""The words the answer guard adds to a model's answer, and how a reader takes them off again.

The guard appends a warning that quotes each claim it flags (`answer_guard`). Whoever reads the
model's answer -- the harness's scorers -- must read the model's words only: read as the answer,
the guard's quote of a flagged claim is a claim the model never made. Apart from the guard so
that a reader of answers does not load the guard's machinery to find its text.
"""

from __future__ import annotations

WARNING = "Check before relying on this answer (ops-copilot answer guard):"


def own_words(text: str) -> str:
    """`text` without the warning the answer guard appended to it: what the model said."""
    cut = text.find(f"\n\n{WARNING}")
    return text if cut < 0 else text[:cut]
