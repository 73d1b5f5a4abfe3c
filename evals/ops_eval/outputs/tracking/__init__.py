"""`ops-eval mlflow`: every conversation of an eval set as an MLflow GenAI evaluation row, scored
by MLflow wrappers over the scorer registry, with ADK's traces, the instruction as a prompt
version and a logged model that ends READY or FAILED -- in a local SQLite store or on a team's
tracking server.

Modules: `config` (store, experiment; no MLflow), `rows` (rows and outputs; no MLflow), `scorers`
(the wrappers, and MLflow's judge asking `judging.mlflow`), `live` (playing an eval set for MLflow
and writing its run record), `replay` (the conversations' event loop; a recorded run's spans drawn
or replayed), `lineage` (prompts, logged model), `store` (the tracking store checked before any
model starts), `evaluation` (the one `mlflow.genai.evaluate` call and its verdict), `audit` (what
the store holds of one run record, for `ops-eval audit-run --mlflow`), `logged` (a run logged: a
record as it was written, or an eval set played live; the command's exit code). The commands are
`commands.mlflow` and `commands.mlflow_ui`; a mutation score is logged by `mutation.tracking`
through `config`, `store` and `evaluation`. MLflow is imported only inside functions, when a
command runs.

May import: the layers below `outputs` (`running` for a live MLflow run, `judging` for MLflow's
judge).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "scan_store": "audit",
    "masked": "config",
    "tracking_target": "config",
    "summary_lines": "evaluation",
    "live_options": "live",
    "log_live": "logged",
    "log_record": "logged",
    "refuse_live_options": "logged",
    "ui_command": "store",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
