"""The evaluation harness of the ops copilot and of any agent that declares a port (CLI:
`ops-eval`).

Holds one sub-package per layer, bottom to top as `LAYERS` in tools/architecture.py declares
them (a module imports its own layer and those below, never one above):
- `base`: plumbing -- exit codes, settings, statistics, CLI input checks, the data policy;
- `agents`: the adapter, the one place the harness reaches an agent, through its port;
- `core`: the domain -- calls, turns, cases, scenarios, contracts, checks, the plan;
- `models`: model selection, the embedded server, the router, stand-ins;
- `playing`: a case played on the agent -- session, turns, conversations, faults;
- `scorers`: the registry and one module per scorer;
- `validation`: eval sets read into a plan and held to the rules;
- `results`: the run record, its index, aggregation, merge, provenance, minimal data;
- `running`: a run's options, its trials played and scored, its record built;
- `deciding`: the gate, the readers' measurement, the ledger;
- `judging`: the LLM judge -- its client, the judge opened for a run, the gate's judge check,
  calibration, A/B;
- `outputs`: reports, history, MLflow tracking;
- `redteam`: the deterministic and live injection suites;
- `mutation`: mutation testing -- the mutants, played offline and live, the red team under the
  guard mutants, the ledger of scores;
- `commands`: one module per CLI command;
- `cli`: the parser only.

A run, end to end: the plan (`validation.plan`) -> trials played (`playing`) -> scores
(`scorers`) -> the run record (`results`) -> the report (`outputs.report`). The names below are
the public surface; each loads its module on first use, so importing the package costs nothing.
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
    "execute": "judging.run",  # the engine's run, with the run's judge handed
    "run_summary": "outputs.report",
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
