"""A model chooser that always hands back one given model: how tests and benchmarks run the
harness (`running.execute(..., chooser=...)`) with a scripted model, selecting none."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..choice import ModelChoice, Say


def fixed_model(
    model: Any, name: str, reason: str, parallel: int | None = None
) -> Callable[..., Any]:
    """A chooser with the signature of `choose_model` that yields `model` (recording it when
    asked); `parallel` as a model choice declares it."""

    @contextlib.contextmanager
    def chooser(
        cli_model: str | None,
        *,
        say: Say,
        log_dir: Path,
        record: Path | None = None,
    ) -> Iterator[ModelChoice]:
        chosen = model
        if record is not None:
            from .replay import RecordingLlm

            chosen = RecordingLlm.to_file(model, record)
        yield ModelChoice(model=chosen, name=name, source="fixed", reason=reason, parallel=parallel)

    return chooser
