"""Progress inside a trial: a trial silent for `SILENCE_S` seconds gets a line on stderr naming
it, its turn, the agent's model call (or the simulated user's reply) and the seconds so far --

    service-status-inventory #1: turn 1, model call 3, 24 s

-- and then one more each time that changes (a new model call, a new turn, the user's step), at
most one per `SILENCE_S`, or every `STILL_S` while nothing changes (a call that hangs still shows
its time). Lines, not a spinner: CI logs keep them. One sleeping task per trial, cancelled when
the trial ends; the lines are the run's console only, never its record. A line holds case ids,
counts and seconds (`playing.pulse`), and goes through the run's labelling all the same.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..playing.pulse import Pulse

SILENCE_S = 10.0
"""A trial this long without a line gets one; no trial gets lines more often than this."""
STILL_S = 30.0
"""While a trial's place has not changed, a line this often (its time still grows)."""
INDENT = "  "
"""What the run puts before each line, once labelled (a label keeps no leading space)."""


async def heartbeat(pulse: Pulse, say: Callable[[str], None]) -> None:
    """Say `pulse`'s line when it is due (see the module's docstring), until cancelled."""
    said_at, said = pulse.started, None
    while True:
        await asyncio.sleep(SILENCE_S)  # read at each wake: a test makes it short
        now = time.perf_counter()
        where = pulse.where()
        if where != said or now - said_at >= STILL_S:
            say(pulse.line(now))
            said_at, said = now, where
