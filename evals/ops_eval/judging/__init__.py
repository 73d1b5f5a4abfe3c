"""The LLM judge, all of it: evidence graded by a model, trusted only as far as it was measured.

- `verdicts`: what a judge must reply (analysis first, then the verdict) and what is kept of it;
- `prompts`: the instructions, the untrusted-data fence, and each prompt's derived version;
- `client`: one configured judge -- cache, budget, the call, the schema-constrained reply;
- `cache`: verdicts by (judge pin, prompt version, content); errors are never cached;
- `budget`: a token budget; a call that could exceed it is not made;
- `setup`: which judge OPS_JUDGE_* name (none, a LiteLLM model, or the embedded server);
- `run`: the judge opened for a run (`judged`, which `ops-eval run`, `mlflow` and `mutate` hand
  the engine), the gate policy's budget (`gate_budget`), and `execute` with that judge handed;
- `gate_check`: whether a gating scorer's judge is calibrated (`ops-eval gate` hands it to
  `deciding.gate.decide`);
- `mlflow`: MLflow's judge -- its MLFLOW_JUDGE_* configuration and its one call (no cache, no
  budget);
- `calibration`: the judge measured against answers labelled by hand, and the report log the
  gate reads;
- `ab`: two runs compared pair by pair by the judge (`ops-eval ab`).

A judge's reply is a verdict only when it validates; anything else is a `JudgeError`, never a
pass and never a fail. What the layers below know of the judge is `core.judge_port`: the engine
(`running.judge`) and the `llm_judge` scorer reach the judge only through what they are handed.

The layer sits above `deciding` (the gate's outcomes and changes, the ledger calibration
chains its reports in) and below `outputs` (MLflow's judge scorer asks `mlflow.ask_judge`).
May import: the layers below `judging` (`base` to `deciding`).
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "Asked": "client",
    "Judge": "client",
    "JudgeConfig": "client",
    "JudgeUse": "client",
    "CONVERSATIONS": "prompts",
    "GRADING": "prompts",
    "PAIRING": "prompts",
    "JudgeError": "verdicts",
    "JudgeUnreachable": "verdicts",
    "JudgeVerdict": "verdicts",
    "PairVerdict": "verdicts",
    "Preference": "verdicts",
    "Verdict": "verdicts",
    "parse_verdict": "verdicts",
    "Budget": "budget",
    "BudgetBlocked": "budget",
    "VerdictCache": "cache",
    "NoJudge": "setup",
    "configured": "setup",
    "open_judge": "setup",
    "judged": "run",
    "gate_budget": "run",
    "execute": "run",
    "check_judges": "gate_check",
    "JUDGE_PROMPT_VERSION": "mlflow",
    "judge_messages": "mlflow",
    "ask_judge": "mlflow",
    "judge_config": "mlflow",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
