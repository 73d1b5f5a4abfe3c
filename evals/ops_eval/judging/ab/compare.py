"""Two runs of one eval set compared pair by pair (`ops-eval ab`): resolved and paired
(`pairs`), then judged in both orders by the configured judge (through the verdict cache and
the token budget of `evals/gate.yaml`), or -- with no judge -- compared by the deterministic
gating verdicts: the gate policy's gating scorers less every scorer that uses a judge
(`uses_judge` in the registry), named in the report.

Exit codes (`ABReport.exit_code`, and OpsEvalError): 0 the comparison was made (a report, not
a gate: losing is not a failure); 2 bad input or configuration (an unknown run, the same run
twice, two eval sets, no shared case, a judge setting or a gate policy that cannot be read); 3
incomplete -- a judge call failed for at least one pair (the report is printed in full and
marked INCOMPLETE), no pair could be compared at all, or the judge could not be started.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ..budget import Budget
    from ..client import Judge
    from ..setup import NoJudge
    from .pairs import Pair, Runs
    from .report import ABReport


def _deterministic_scorers(runs: Runs) -> tuple[list[str], list[str]]:
    """(the gate policy's gating scorers that do not use a judge, the ones left out because they
    do); OpsEvalError (exit 2) when the policy cannot be read, or when a run's trials carry
    none of a scorer used (a record from an older scorer set would be compared by fewer scorers
    than the other, silently)."""
    from ...base.inputs import bad_input
    from ...scorers import registered
    from ...validation.gate_config import GateConfigError, gate_file, read_gate_config

    try:
        config, _ = read_gate_config(gate_file())
    except GateConfigError as exc:
        raise bad_input(str(exc)) from None
    known = registered()
    judged = [s for s in config.gating_scorers if s in known and known[s].uses_judge]
    scorers = [s for s in config.gating_scorers if s not in judged]
    for label, record in (("A", runs.a), ("B", runs.b)):
        valid = [t for t in record.trials if t.status != "error"]
        missing = [s for s in scorers if valid and not any(s in t.scores for t in valid)]
        if missing:
            raise bad_input(
                f"run {label} {record.run_id}: no trial carries the gating scorer(s) "
                f"{', '.join(missing)} (a record from an older scorer set)"
            )
    return scorers, judged


def _base(runs: Runs, only_a: list[str], only_b: list[str]) -> dict[str, Any]:
    from ...deciding.gate.changes import changes
    from .report import Side

    def side(record: Any, path: Any) -> Side:
        return Side(run_id=record.run_id, path=str(path), model=record.model.name)

    return {
        "a": side(runs.a, runs.a_path),
        "b": side(runs.b, runs.b_path),
        "eval_set": runs.a.eval_set,
        "eval_set_sha256": runs.a.eval_set_sha256,
        "differences": [c.show() for c in changes(runs.a, runs.b)],
        "only_a": only_a,
        "only_b": only_b,
        "changed": runs.changed(),
    }


def _deterministic(
    runs: Runs, pairs: list[Pair], base: dict[str, Any], why: NoJudge, say: Callable[[str], None]
) -> ABReport:
    from .decide import verdict_pair
    from .report import ABReport

    scorers, left_out = _deterministic_scorers(runs)
    aside = f"; left out, as they use a judge: {', '.join(left_out)}" if left_out else ""
    say(
        f"warning: {why.reason}: compared by the deterministic gating verdicts, not by a judge "
        f"(scorers: {', '.join(scorers)}{aside})"
    )
    return ABReport(
        **base,
        method="deterministic",
        no_judge=why.reason,
        gating_scorers=scorers,
        judge_scorers_left_out=left_out,
        pairs=[verdict_pair(p, scorers) for p in pairs],
    )


def _judged(judge: Judge, pairs: list[Pair], base: dict[str, Any], err: TextIO) -> ABReport:
    import os

    from ...base.exits import one_line
    from ...base.model_logs import model_logs
    from ...base.progress import Progress
    from ..prompts import PAIRING
    from .decide import judge_pair
    from .report import LABEL, ABReport

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # noqa: F401  -- imported first, so model_logs can quiet its banner

    results = []
    progress = Progress(len(pairs), "pair", err)
    try:
        with model_logs():
            for pair in pairs:
                result = judge_pair(judge, pair)
                results.append(result)
                progress.update(
                    f"{one_line(pair.case_id)} #{pair.repeat} {LABEL[result.outcome]}",
                    failed=result.no_verdict == "judge_error",
                )
    finally:
        progress.close()
    return ABReport(
        **base,
        method="judge",
        judge=judge.use(),
        prompt_version=PAIRING.version,
        pairs=results,
    )


def compare_runs(spec_a: str, spec_b: str, err: TextIO, budget: Budget | None = None) -> ABReport:
    """Resolve, pair and compare; the report. OpsEvalError (exit 2) for bad input or
    configuration, before any judge is started or asked; (exit 3) for an embedded judge that
    could not be started."""
    from ...base.exits import EXIT_INFRA, OpsEvalError
    from ...base.inputs import bad_input
    from ...base.settings import current
    from ...models.choice import ModelUnavailable
    from ..run import gate_budget
    from ..setup import NoJudge, configured, open_judge
    from .pairs import open_runs, pair_trials

    def say(line: str) -> None:
        print(line, file=err, flush=True)

    runs = open_runs(spec_a, spec_b, current().runs_dir)
    pairs, only_a, only_b = pair_trials(runs)
    base = _base(runs, only_a, only_b)
    config = configured()
    if isinstance(config, NoJudge):
        return _deterministic(runs, pairs, base, config, say)
    budget = budget if budget is not None else gate_budget()
    if budget.problem is not None:
        raise bad_input(f"judge budget: {budget.problem}; no judge call could be made")
    try:
        with open_judge(say, current().runs_dir, budget, config=config) as judge:
            assert not isinstance(judge, NoJudge)  # a JudgeConfig opens a Judge
            say(f"judging {len(pairs)} pair(s) with {judge.pin}, each in both orders")
            return _judged(judge, pairs, base, err)
    except ModelUnavailable as exc:  # the embedded judge could not be started
        raise OpsEvalError(EXIT_INFRA, f"judge unavailable: {exc}") from None
