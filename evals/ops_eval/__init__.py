"""The evaluation harness of the ops copilot (CLI: `ops-eval`).

A run flows down one staircase, each step its own module, none calling back up:

    plan -> play -> scorers -> aggregation -> records -> report

beside the offline validator (`validation`), the red team (`redteam`), model selection
(`models`) and deterministic stand-in models (`testing`). The names below are the public
surface; each loads its module on first use, so importing the package costs nothing.
"""

from __future__ import annotations

from .exports import lazy_getattr

_EXPORTS: dict[str, str] = {
    # one tool call, one played turn, one trial view
    "ToolCall": "calls",
    "Turn": "calls",
    "TrialView": "calls",
    "in_order": "calls",
    # eval set files
    "Case": "evalset",
    "CaseMeta": "evalset",
    "ApprovalDecision": "evalset",
    "EvalSetFile": "evalset",
    "read_evalset": "evalset",
    # the stages of a run
    "Plan": "plan",
    "load_plan": "plan",
    "AgentSession": "session",
    "play_turn": "play",
    "play_trial": "play",
    "MAX_MODEL_CALLS": "play",
    "Score": "scorers",
    "scorer": "scorers",
    "registered": "scorers",
    "score_trial": "scorers",
    "aggregate": "aggregation",
    "RunRecord": "records",
    "TrialRecord": "records",
    "RecordError": "records",
    "load_record": "records",
    "SCHEMA_VERSION": "records",
    "RunOptions": "run",
    "execute": "run",
    "summary_lines": "report",
    "markdown": "report",
    "html_report": "report",
    # beside the run
    "validate": "validation",
    "DirectContext": "direct",
    "choose_model": "models",
    "ModelChoice": "models",
    "ModelUnavailable": "models",
    "OpsEvalError": "exits",
    "EvalSettings": "settings",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
