"""Progress of a long run (trials, live attacks): a tqdm bar on a terminal, and one plain line
per finished item elsewhere (CI logs), each with the estimated time left. tqdm is imported only
for a terminal."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    def __init__(self, total: int, unit: str, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self.total, self.unit, self.done, self.failures = total, unit, 0, 0
        self.started = time.perf_counter()
        self.bar: Any = None
        if self.out.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=unit, file=self.out)

    def update(self, line: str, *, failed: bool = False) -> None:
        """One item finished; `line` says which and how (shown as a line off a terminal)."""
        self.done += 1
        self.failures += failed
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self.failures} errors", refresh=False)
            self.bar.update(1)
            return
        elapsed = time.perf_counter() - self.started
        left = elapsed / self.done * (self.total - self.done)
        self.out.write(f"{self.unit} {self.done}/{self.total}: {line}, ETA {left:.0f} s\n")
        self.out.flush()

    def close(self) -> None:
        """End the bar (also when the run stops early)."""
        if self.bar is not None:
            self.bar.close()
