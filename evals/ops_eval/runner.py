"""The live eval runner: every case x repeat on the real agent and ADK Runner, scored and recorded.

Each trial gets a fresh state store and ADK session and plays all turns of its case in that one
session. A turn that ends at an approval pause is a legitimate end: the pending write is recorded
as waiting, with no state change -- unless the case's metadata says approve (with its rationale)
or deny, in which case the runner answers the pause that way and the end state is checked.

Verdicts: ADK's own trajectory evaluator with the configured criterion (exactly ADK's IN_ORDER),
plus the deterministic scorers of `scoring`. A model error, timeout or malformed call makes the
trial an `error`, reported apart and kept out of pass rates and pass^k. The gate is applied per
case as ADK does: the mean trajectory score of its valid trials must reach the threshold, and
every deterministic scorer must hold in all of them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ops_copilot.registry import tool_specs
from ops_copilot.seed import Seed, default_seed

from .agents import AGENTS
from .criteria import Criteria, read_criteria
from .evalset import CaseView, EvalSetFile, MalformedInput, read_evalset, read_json
from .records import (
    CallRec,
    CaseAggregate,
    GroupAggregate,
    ModelInfo,
    Rate,
    ResultRec,
    RunRecord,
    Score,
    TrialRecord,
    TurnRecord,
)
from .scoring import Call, complete_conversation, end_state, response_facts, tool_policy
from .stats import pass_hat_k, rate, wilson

REPO = Path(__file__).resolve().parents[2]
RUNS_DIR = REPO / "runs"
DEFAULT_SET = REPO / "evals" / "ops.evalset.json"
MAX_APPROVAL_ROUNDS = 5
MAX_MODEL_CALLS = 40
SCORERS = ("trajectory", "tool_policy", "complete", "facts", "end_state")
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INFRA = 0, 1, 2, 3


class RunError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Plan:
    evalset: EvalSetFile
    cases: list[CaseView]
    adk_cases: dict[str, Any]
    criteria: Criteria
    negatives: frozenset[str]
    seed: Seed


def load_plan(set_path: Path, case_ids: list[str] | None) -> Plan:
    """The cases to run; refuses (exit 2) a set the validator does not pass."""
    from .adk_schema import AdkCheckError
    from .validate import render, validate

    try:
        report = validate([set_path])
    except AdkCheckError as exc:
        raise RunError(EXIT_INFRA, str(exc)) from None
    if report.problems:
        raise RunError(
            EXIT_BAD_INPUT, "\n".join(["the eval set does not validate:", *render(report)])
        )
    try:
        evalset = read_evalset(set_path)
        _, config = read_json(set_path.parent / "test_config.json")
    except MalformedInput as exc:
        raise RunError(EXIT_BAD_INPUT, str(exc)) from None
    cases = evalset.cases
    if case_ids:
        known = {c.eval_id for c in cases}
        unknown = [c for c in case_ids if c not in known]
        if unknown:
            raise RunError(
                EXIT_BAD_INPUT,
                f"{evalset.display}: no case {', '.join(map(repr, unknown))} "
                f"(cases: {', '.join(sorted(known))})",
            )
        cases = [c for c in cases if c.eval_id in case_ids]
    from google.adk.evaluation.eval_set import EvalSet

    adk_set = EvalSet.model_validate_json(evalset.text)
    from ops_copilot.seed import ENTITY_KINDS, load_yaml

    from .validate import NEGATIVES_FILE, Negatives

    declared = Negatives.model_validate(load_yaml(set_path.parent / NEGATIVES_FILE) or {})
    negatives = frozenset(v for kind in ENTITY_KINDS for v in getattr(declared, kind))
    return Plan(
        evalset=evalset,
        cases=cases,
        adk_cases={c.eval_id: c for c in adk_set.eval_cases},
        criteria=read_criteria(config),
        negatives=negatives,
        seed=default_seed(),
    )


# -- one trial -----------------------------------------------------------------------------------


def _calls(records: list[CallRec]) -> list[Call]:
    return [Call(c.name, c.args) for c in records]


def _pause_text(pending: list[CallRec]) -> str:
    calls = ", ".join(
        f"{c.name}({', '.join(f'{k}={v}' for k, v in c.args.items())})" for c in pending
    )
    return f"Waiting for approval: {calls}. No state change."


async def play_case(
    case: CaseView, model: Any, seed: Seed
) -> tuple[list[TurnRecord], Any, Any, Any]:
    """Play every turn of `case` in one fresh session; returns turns, ADK events, workspace and
    the store's snapshot before the first turn."""
    from google.adk.agents.run_config import RunConfig

    from ops_copilot.workspace import Workspace

    from .replay import TRIAL_LABEL
    from .session import CONFIRMATION, AgentSession

    meta = case.meta
    assert meta is not None
    workspace = Workspace.fresh(seed)
    before = workspace.store.snapshot()
    agent = AGENTS[meta.agent].build(model)
    turns: list[TurnRecord] = []
    config = RunConfig(max_llm_calls=MAX_MODEL_CALLS)
    async with AgentSession(agent, workspace, app_name=meta.agent, run_config=config) as session:
        for spec in case.turns:
            TRIAL_LABEL.set(f"{case.eval_id}, turn {spec.index}")
            started = time.perf_counter()
            parts = [await session.send(spec.prompt)]
            answered: list[str] = []
            while parts[-1].pending and meta.approval and len(answered) < MAX_APPROVAL_ROUNDS:
                decision = meta.approval
                parts.append(
                    await session.answer_confirmations(
                        parts[-1].pending,
                        confirmed=decision.decision == "approve",
                        payload=decision.payload(),
                    )
                )
                answered.append(decision.decision)
            record = TurnRecord(
                index=spec.index,
                prompt=spec.prompt,
                reference=spec.reference,
                expected=[CallRec(name=c.name, args=c.args) for c in spec.calls],
                answered=answered,
                seconds=time.perf_counter() - started,
            )
            for part in parts:
                record.calls += [
                    CallRec(name=c.name, args=c.args)
                    for c in part.tool_calls
                    if c.name != CONFIRMATION
                ]
                record.results += [
                    ResultRec(name=r.name, response=r.response)
                    for r in part.tool_results
                    if r.name != CONFIRMATION
                ]
                record.prompt_tokens += part.prompt_tokens
                record.output_tokens += part.output_tokens
            record.pending = [
                CallRec(name=p.call.name, args=p.call.args) for p in parts[-1].pending
            ]
            texts = [t for part in parts for t in part.texts]
            record.response = texts[-1] if texts else ""
            if not record.response and record.pending:
                record.response = _pause_text(record.pending)
                record.response_synthesized = True
            turns.append(record)
        events = await session.events()
    return turns, events, workspace, before


def adk_trajectory(events: list[Any], expected: list[Any], criteria: Criteria) -> list[float]:
    """ADK's verdict: its own event-to-invocation conversion and trajectory evaluator."""
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    actual = EvaluationGenerator.convert_events_to_eval_invocations(events)
    if len(actual) != len(expected):
        raise RuntimeError(f"{len(actual)} invocations for {len(expected)} expected turns")
    criterion = ToolTrajectoryCriterion(
        threshold=criteria.threshold,
        match_type=ToolTrajectoryCriterion.MatchType[criteria.match_type],
        ignore_args=criteria.ignore_args,
    )
    evaluator = TrajectoryEvaluator(
        eval_metric=EvalMetric(
            metric_name="tool_trajectory_avg_score",
            threshold=criteria.threshold,
            criterion=criterion,
        )
    )
    result = evaluator.evaluate_invocations(actual, expected)
    return [r.score for r in result.per_invocation_results]


def score_trial(
    plan: Plan, case: CaseView, turns: list[TurnRecord], scores: list[float], before, workspace
) -> dict[str, Score]:
    meta = case.meta
    assert meta is not None
    writes = {n for n, s in tool_specs().items() if s.is_write}
    guarded = {n for n, s in tool_specs().items() if s.always_confirm}
    mean = sum(scores) / len(scores) if scores else 0.0
    out = {
        "trajectory": Score(
            passed=mean >= plan.criteria.threshold,
            value=mean,
            detail=f"{plan.criteria.match_type}, per turn {scores}",
        )
    }
    policy = tool_policy(
        [_calls(t.calls) for t in turns], [_calls(t.expected) for t in turns], writes
    )
    out["tool_policy"] = Score(passed=policy.passed, detail=policy.detail)
    done = complete_conversation([t.response for t in turns], len(case.turns))
    out["complete"] = Score(passed=done.passed, detail=done.detail)
    known = plan.seed.ids("service") | plan.seed.ids("runbook") | plan.seed.ids("skill")
    facts = [response_facts(t.reference, t.response, known, plan.negatives) for t in turns]
    bad = [f"turn {t.index}: {f.detail}" for t, f in zip(turns, facts, strict=True) if not f.passed]
    out["facts"] = Score(passed=not bad, detail="; ".join(bad))
    decision = meta.approval.decision if meta.approval else None
    expected_writes = [c for t in turns for c in _calls(t.expected)]
    state = end_state(
        before,
        workspace.store.snapshot(),
        approved_writes=[c for c in expected_writes if c.name in guarded]
        if decision == "approve"
        else [],
        expected_notes=sum(c.name in writes - guarded for c in expected_writes)
        if decision != "deny"
        else 0,
        rationale=meta.approval.rationale if decision == "approve" else None,
        audit_rationales=[r.rationale for r in workspace.store.audit_rows()],
    )
    out["end_state"] = Score(passed=state.passed, detail=state.detail)
    return out


async def run_trial(
    plan: Plan, case: CaseView, repeat: int, model: Any, timeout_s: float
) -> TrialRecord:
    meta = case.meta
    assert meta is not None
    from google.adk.agents.invocation_context import LlmCallsLimitExceededError

    trial = TrialRecord(case_id=case.eval_id, category=meta.category, repeat=repeat, status="error")
    started = time.perf_counter()
    try:
        turns, events, workspace, before = await asyncio.wait_for(
            play_case(case, model, plan.seed), timeout=timeout_s
        )
        trial.turns = turns
        scores = adk_trajectory(events, plan.adk_cases[case.eval_id].conversation, plan.criteria)
        for turn, value in zip(turns, scores, strict=True):
            turn.trajectory_score = value
        trial.scores = score_trial(plan, case, turns, scores, before, workspace)
        trial.state_after = workspace.store.snapshot().model_dump()
        trial.status = "passed" if all(s.passed for s in trial.scores.values()) else "failed"
    except LlmCallsLimitExceededError:
        # The agent looped: its own failure, not the infrastructure's. Every scorer fails.
        detail = f"the agent looped past {MAX_MODEL_CALLS} model calls"
        trial.scores = {name: Score(passed=False, detail=detail) for name in SCORERS}
        trial.status = "failed"
    except TimeoutError:
        trial.error = f"timed out after {timeout_s:.0f} s"
    except Exception as exc:  # model errors, replay misses, malformed calls: an error trial
        first_line = (str(exc).strip().splitlines() or [""])[0][:300]
        trial.error = f"{type(exc).__name__}: {first_line}"
    trial.seconds = time.perf_counter() - started
    return trial


# -- aggregates ----------------------------------------------------------------------------------


def _rate(k: int, n: int) -> Rate:
    lo, hi = wilson(k, n)
    return Rate(passed=k, n=n, ci_low=lo, ci_high=hi, text=rate(k, n))


def _group(name: str, trials: list[TrialRecord]) -> GroupAggregate:
    valid = [t for t in trials if t.status != "error"]
    return GroupAggregate(
        name=name,
        trials=len(trials),
        errors=len(trials) - len(valid),
        rate=_rate(sum(t.status == "passed" for t in valid), len(valid)),
    )


def aggregate(plan: Plan, trials: list[TrialRecord], repeats: int) -> dict[str, Any]:
    cases = []
    for case in plan.cases:
        mine = [t for t in trials if t.case_id == case.eval_id]
        valid = [t for t in mine if t.status != "error"]
        passed = sum(t.status == "passed" for t in valid)
        trajectory = [t.scores["trajectory"].value or 0.0 for t in valid]
        mean = sum(trajectory) / len(trajectory) if trajectory else None
        deterministic = all(
            t.scores[name].passed for t in valid for name in SCORERS if name != "trajectory"
        )
        gate = None if not valid else (mean >= plan.criteria.threshold and deterministic)
        cases.append(
            CaseAggregate(
                case_id=case.eval_id,
                category=case.meta.category if case.meta else "?",
                trials=len(mine),
                errors=len(mine) - len(valid),
                rate=_rate(passed, len(valid)),
                pass_hat_k=pass_hat_k(passed, len(valid), repeats) if repeats > 1 else None,
                trajectory_mean=mean,
                gate=gate,
            )
        )
    categories = [
        _group(cat, [t for t in trials if t.category == cat])
        for cat in dict.fromkeys(c.category for c in cases)
    ]
    scorers = []
    for name in SCORERS:
        valid = [t for t in trials if t.status != "error"]
        scorers.append(
            GroupAggregate(
                name=name,
                trials=len(trials),
                errors=len(trials) - len(valid),
                rate=_rate(sum(t.scores[name].passed for t in valid), len(valid)),
            )
        )
    hats = [c.pass_hat_k for c in cases if c.pass_hat_k is not None]
    # Cases with fewer than k valid trials have no pass^k; the set figure says over how many.
    return {
        "cases": cases,
        "categories": categories,
        "scorers": scorers,
        "total": _group("all", trials),
        "pass_hat_k": sum(hats) / len(hats) if hats else None,
        "pass_hat_k_cases": len(hats),
    }


# -- provenance ----------------------------------------------------------------------------------


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def tool_schema_digest() -> str:
    schema = {
        name: {
            "effect": s.effect,
            "confirm": s.confirm,
            "untrusted": s.untrusted,
            "entities": dict(s.entities),
            "params": {p.name: [p.required, p.annotation] for p in s.params.values()},
            "doc": (s.func.__doc__ or "").strip(),
        }
        for name, s in tool_specs().items()
    }
    return _sha(json.dumps(schema, sort_keys=True))


def git_state() -> tuple[str | None, bool | None]:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        return commit, bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        return None, None


# -- the run -------------------------------------------------------------------------------------


class Progress:
    """A bar with ETA on a terminal, one plain line per trial elsewhere (CI logs)."""

    def __init__(self, total: int, out=sys.stderr) -> None:
        self.total = total
        self.done = 0
        self.errors = 0
        self.out = out
        self.tty = out.isatty()
        self.started = time.perf_counter()

    def update(self, trial: TrialRecord) -> None:
        self.done += 1
        self.errors += trial.status == "error"
        elapsed = time.perf_counter() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        if self.tty:
            width = 30
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "." * (width - filled)
            self.out.write(
                f"\r[{bar}] {self.done}/{self.total} trials, {self.errors} errors, "
                f"ETA {eta:4.0f} s "
            )
            if self.done == self.total:
                self.out.write("\n")
        else:
            extra = f" ({trial.error})" if trial.error else ""
            self.out.write(
                f"trial {self.done}/{self.total}: {trial.case_id} #{trial.repeat} {trial.status}"
                f"{extra} in {trial.seconds:.1f} s, ETA {eta:.0f} s\n"
            )
        self.out.flush()


async def run_trials(
    plan: Plan, model: Any, repeats: int, concurrency: int, timeout_s: float,
    on_done: Callable[[TrialRecord], None] | None = None,
) -> list[TrialRecord]:  # fmt: skip
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(case: CaseView, repeat: int) -> TrialRecord:
        async with semaphore:
            trial = await run_trial(plan, case, repeat, model, timeout_s)
        if on_done:
            on_done(trial)
        return trial

    jobs = [one(case, r) for case in plan.cases for r in range(1, repeats + 1)]
    return list(await asyncio.gather(*jobs))


def build_record(
    plan: Plan, trials: list[TrialRecord], *, model_info: ModelInfo, repeats: int,
    concurrency: int, started_at: str, seconds: float,
) -> RunRecord:  # fmt: skip
    agg = aggregate(plan, trials, repeats)
    verdicts = [c.gate for c in agg["cases"]]
    if any(v is False for v in verdicts):
        code = EXIT_FAILED
    elif any(v is None for v in verdicts):
        code = EXIT_INFRA
    else:
        code = EXIT_OK
    commit, dirty = git_state()
    agents = sorted({c.meta.agent for c in plan.cases if c.meta})
    return RunRecord(
        run_id=uuid.uuid4().hex[:12],
        started_at=started_at,
        seconds=seconds,
        model=model_info,
        eval_set=plan.evalset.display,
        eval_set_sha256=_sha(plan.evalset.text),
        seed_sha256=plan.seed.digest,
        instruction_sha256={a: _sha(AGENTS[a].instruction) for a in agents},
        tool_schema_sha256=tool_schema_digest(),
        git_commit=commit,
        git_dirty=dirty,
        criteria={"threshold": plan.criteria.threshold, "match_type": plan.criteria.match_type},
        repeats=repeats,
        concurrency=concurrency,
        selected_cases=[c.eval_id for c in plan.cases],
        trials=trials,
        gate_passed=code == EXIT_OK,
        exit_code=code,
        **agg,
    )


def default_output(plan: Plan, started: datetime) -> Path:
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    name = plan.evalset.path.name.removesuffix(".evalset.json")
    return RUNS_DIR / f"{stamp}-{name}-{uuid.uuid4().hex[:6]}.json"


def check_output(path: Path) -> None:
    """Refuse an unusable record path before any trial runs, so no run's results are lost."""
    if path.is_dir():
        raise RunError(EXIT_BAD_INPUT, f"--output {path}: is a folder; give a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise RunError(EXIT_BAD_INPUT, f"--output {path}: cannot write ({exc.strerror})") from None


def now() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunOptions:
    set_path: Path = DEFAULT_SET
    cases: list[str] | None = None
    repeats: int = 1
    concurrency: int = 1
    model: str | None = None
    record: Path | None = None
    output: Path | None = None
    timeout_s: float = 600.0


def execute(options: RunOptions, *, chooser: Callable[..., Any] | None = None, out=None, err=None):
    """Run the eval; returns (exit code, record or None, record path or None). Errors in the
    input or the model become RunError with the exit code, never a traceback."""
    from .models import ModelUnavailable, choose_model
    from .report import summary_lines

    out = out or sys.stdout
    err = err or sys.stderr
    chooser = chooser or choose_model
    if options.repeats < 1 or options.concurrency < 1:
        raise RunError(EXIT_BAD_INPUT, "--repeats and --concurrency must be at least 1")
    plan = load_plan(options.set_path, options.cases)
    started = now()
    path = options.output or default_output(plan, started)
    check_output(path)
    say = lambda line: print(line, file=err, flush=True)  # noqa: E731
    from ops_copilot.model import ModelConfigError

    try:
        with chooser(options.model, say=say, log_dir=RUNS_DIR, record=options.record) as choice:
            for line in choice.banner():
                print(line, file=out, flush=True)
            trials_n = len(plan.cases) * options.repeats
            print(
                f"running {len(plan.cases)} case(s) x {options.repeats} repeat(s) = {trials_n} "
                f"trials from {plan.evalset.display}, concurrency {options.concurrency}",
                file=out, flush=True,
            )  # fmt: skip
            progress = Progress(trials_n, out=err)
            t0 = time.perf_counter()
            trials = asyncio.run(
                run_trials(
                    plan, choice.model, options.repeats, options.concurrency, options.timeout_s,
                    on_done=progress.update,
                )
            )  # fmt: skip
            seconds = time.perf_counter() - t0
            info = ModelInfo(
                name=choice.name, source=choice.source, reason=choice.reason,
                caveat=choice.caveat, endpoint=choice.endpoint,
            )  # fmt: skip
    except ModelConfigError as exc:
        raise RunError(EXIT_BAD_INPUT, str(exc)) from None
    except ModelUnavailable as exc:
        raise RunError(EXIT_INFRA, f"model unavailable: {exc}") from None
    record = build_record(
        plan, trials, model_info=info, repeats=options.repeats, concurrency=options.concurrency,
        started_at=started.isoformat(timespec="seconds"), seconds=seconds,
    )  # fmt: skip
    if all(t.status == "error" for t in trials):
        record.exit_code = EXIT_INFRA
        record.notes.append("every trial errored: the model is unreachable or broken")
    path.write_text(record.model_dump_json(indent=1), encoding="utf-8")
    for line in summary_lines(record):
        print(line, file=out)
    print(f"run record: {path}", file=out)
    return record.exit_code, record, path
