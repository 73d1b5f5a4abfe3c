"""The evaluation harness of the ops copilot (CLI: `ops-eval`).

A run flows down one staircase, each step its own module, none calling back up:

    plan -> play -> scorers -> aggregation -> records -> report

beside the offline validator (`validation`), the red team (`redteam`), model selection
(`models`) and deterministic stand-in models (`models.stand_ins`). The names below are the public
surface; each loads its module on first use, so importing the package costs nothing.
"""

from __future__ import annotations

from .base.exports import lazy_getattr

_EXPORTS: dict[str, str] = {
    # one tool call, one played turn, one trial view
    "ToolCall": "core.calls",
    "Turn": "core.calls",
    "TrialView": "core.trial",
    "in_order": "core.calls",
    # eval set files
    "Case": "core.evalset",
    "CaseMeta": "core.evalset",
    "ApprovalDecision": "core.evalset",
    "EvalSetFile": "core.evalset",
    "read_evalset": "core.evalset",
    # the stages of a run
    "Plan": "core.plan",
    "load_plan": "validation.plan",
    "AgentSession": "playing.session",
    "play_turn": "playing.play",
    "play_trial": "playing.play",
    "MAX_MODEL_CALLS": "playing.play",
    "Score": "scorers",
    "scorer": "scorers",
    "registered": "scorers",
    "score_trial": "scorers",
    "aggregate": "results.aggregation",
    "RunRecord": "results.records",
    "TrialRecord": "results.records",
    "RecordError": "results.records",
    "load_record": "results.records",
    "SCHEMA_VERSION": "results.records",
    "RunOptions": "running.options",
    "execute": "commands.run",
    "summary_lines": "outputs.report",
    "markdown": "outputs.report",
    "html_report": "outputs.report",
    # beside the run
    "validate": "validation.validator",
    "DirectContext": "core.direct",
    "choose_model": "models",
    "ModelChoice": "models",
    "ModelUnavailable": "models",
    "OpsEvalError": "base.exits",
    "EvalSettings": "base.settings",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
