"""Plumbing every layer uses, and nothing of the domain: exit codes and the error that carries
one (`exits`), settings (`settings`), statistics and the one `Rate` (`stats`), checks of CLI
inputs (`inputs`), the strict pydantic base (`strict`), lazy public names (`exports`), progress
lines (`progress`), optional dependency groups (`groups`), model log capture (`model_logs`),
which data a run may write, `full` or `minimal` (`data_policy`), the scrubber that clears a free
text to a label a minimal-data run may keep (`scrub`), and what a piece of code reads, as one
hash (`code_digest`).

May import: nothing of `ops_eval` outside this package (the agent package's settings only).
"""

from __future__ import annotations

from .exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "EXIT_BAD_INPUT": "exits",
    "EXIT_FAILED": "exits",
    "EXIT_INFRA": "exits",
    "EXIT_OK": "exits",
    "OpsEvalError": "exits",
    "exit_code_of": "exits",
    "measured_failure": "exits",
    "unwind_on_signals": "exits",
    "MAX_REPEATS": "inputs",
    "add_agent_option": "inputs",
    "bad_input": "inputs",
    "count": "inputs",
    "id_list": "inputs",
    "number_option": "inputs",
    "parse_run_group": "inputs",
    "parse_shard": "inputs",
    "tcp_port": "inputs",
    "trial_timeout": "inputs",
    "current": "settings",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
