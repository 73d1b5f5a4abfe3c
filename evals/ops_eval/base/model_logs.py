"""ADK's and LiteLLM's own error output while trials play, kept to the one line per trial that
the runner prints with the cause.

A model error (an endpoint answering 500 or garbage) ends the trial with `error`, and the
progress line says why. Left alone, ADK also logs that exception with its full traceback twice
(the node and the root node failed) and LiteLLM prints a help banner on stdout: a hundred lines
per trial that bury the cause. So, unless `--verbose`, while the trials play:
- records that carry a traceback are dropped from the `google_adk` and `LiteLLM` loggers (other
  warnings still reach stderr);
- below `floor`, records of ADK and of the agent's output guard are dropped too: the
  deterministic red team sets it to ERROR, because its scripted attackers make both log on
  purpose at every step (the guard a warning per link it removes, which the summary counts);
- LiteLLM's debug banner is off (`litellm.suppress_debug_info`).
Everything is put back afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

ADK_LOGGER = "google_adk"  # parent of every ADK module's logger
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")  # each with its own handler


class _NoTracebacks(logging.Filter):
    def __init__(self, floor: int = logging.WARNING, labels: int | None = None) -> None:
        super().__init__()
        self.floor = floor
        self.labels = labels

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info or record.levelno < self.floor:
            return False
        if self.labels is not None:  # a minimal-data run: the message as a scrubbed label
            from .scrub import label

            record.msg, record.args = label(record.getMessage(), self.labels), None
        return True


@contextlib.contextmanager
def model_logs(
    verbose: bool = False, floor: int = logging.WARNING, labels: int | None = None
) -> Iterator[None]:
    """Quiet the libraries' traceback logging for the block, unless `verbose`; ADK's and the
    output guards' records below `floor` are dropped too (the deterministic red team's scripted
    attackers call tools that do not exist, answer confirmations nobody asked for and put
    attackers' links and claims in answers on purpose; ADK and the guards warn at each, and
    the suite's verdicts say what came of it). `labels`: a minimal-data run's label length --
    every record left is then written as a scrubbed label of at most that many characters (a
    guard's warning quotes the link it removed)."""
    if verbose:
        yield
        return
    from ..agents.ops_agent import output_logger as guard
    from ..agents.ops_guards import logger as answers

    quiet = _NoTracebacks(floor, labels)
    # Neither ADK's module loggers nor the guards' have a handler of their own: their records
    # reach this one, which writes what is left to stderr as Python's last-resort handler would.
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.addFilter(quiet)
    loggers = [logging.getLogger(ADK_LOGGER), guard, answers]
    propagates = [lg.propagate for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.propagate = False
    for name in LITELLM_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    litellm = sys.modules.get("litellm")
    if litellm is None and "google.adk.models.lite_llm" in sys.modules:
        import litellm  # a LiteLLM-backed model imports it on its first call anyway
    banner = getattr(litellm, "suppress_debug_info", None)
    if litellm is not None:
        litellm.suppress_debug_info = True
    try:
        yield
    finally:
        for lg, propagate in zip(loggers, propagates, strict=True):
            lg.removeHandler(handler)
            lg.propagate = propagate
        for name in LITELLM_LOGGERS:
            logging.getLogger(name).removeFilter(quiet)
        if litellm is not None:
            litellm.suppress_debug_info = banner
