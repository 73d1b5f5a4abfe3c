"""What a run is asked to do (`RunOptions`), and the checks that refuse a bad request (exit 2)
before any trial runs: counts, the shard, the record's path."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..base.inputs import (
    MAX_CONCURRENCY,
    MAX_REPEATS,
    MAX_SHARDS,
    count,
    output_file,
    trial_timeout,
)
from ..base.settings import current
from ..core.plan import Plan
from ..results.minimal import Minimal


def _default_set() -> Path:
    return current().evals_dir / "ops.evalset.json"


@dataclass
class RunOptions:
    set_path: Path = field(default_factory=_default_set)
    cases: list[str] | None = None
    repeats: int = 1
    concurrency: int = 1
    model: str | None = None
    record: Path | None = None
    output: Path | None = None
    timeout_s: float = 600.0
    verbose: bool = False
    """Let ADK and LiteLLM log each model error's traceback (default: one line per trial)."""
    shard: tuple[int, int] | None = None
    """(I, N): run only shard I of N of the case x repeat trials (`record_parts.shard_slice`)."""
    run_group: str | None = None
    """With `shard`: the name all shards of one run share, which `ops-eval merge` compares."""
    users: str = "scripted"
    """Who plays the user of a conversation scenario: `scripted` (its rules) or `model` (the
    run's model, with the scenario's plan and persona)."""
    data: str | None = None
    """`--data`: `full` or `minimal`; None: as the gate's policy says for the set (`full` unless
    it lists the set under `minimal_data`)."""
    minimal: Minimal | None = None
    """How the run writes under minimal data (`data_policy`); None: it keeps everything."""


def planned_trials(plan: Plan, options: RunOptions) -> list[tuple[str, int]]:
    """(case id, repeat) of every trial the run plays, in order: all of them, or its shard's."""
    from ..results.record_parts import planned, shard_slice

    ids = [c.eval_id for c in plan.cases]
    if options.shard is None:
        return planned(ids, options.repeats)
    return shard_slice(ids, options.repeats, *options.shard)


def check_options(options: RunOptions) -> None:
    """Repeats, concurrency and the trial timeout, refused (exit 2) before anything runs --
    for `ops-eval run` and `ops-eval mlflow` alike."""
    count("--repeats", options.repeats, MAX_REPEATS)
    count("--concurrency", options.concurrency, MAX_CONCURRENCY)
    trial_timeout("--timeout", options.timeout_s)
    if options.shard is not None:
        index, shards = options.shard
        if not 1 <= index <= shards <= MAX_SHARDS:
            raise OpsEvalError(
                EXIT_BAD_INPUT, f"--shard {index}/{shards}: needs 1 <= I <= N <= {MAX_SHARDS:,}"
            )


def check_shard(plan: Plan, options: RunOptions) -> None:
    """A shard with no trial in it (more shards than trials) is refused before anything runs."""
    if options.shard is not None and not planned_trials(plan, options):
        index, count = options.shard
        total = len(plan.cases) * options.repeats
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--shard {index}/{count}: holds no trial (the run has {total} trial(s))",
        )


def data_policy(options: RunOptions, plan: Plan) -> Minimal | None:
    """How the run writes: None to keep everything, or its `Minimal` -- when `--data minimal`
    asks or the gate's policy lists the set. Refused (exit 2): `--data full` for a set the
    policy keeps minimal (a flag never loosens it), and, under minimal, no key, `--record`
    (a recording holds every request) and `--verbose` (tracebacks quote the model's text)."""
    from ..results.minimal import data_key
    from ..validation.gate_config import gate_data
    from ..validation.gate_rules import gate_path

    where = gate_path(plan.evalset.path.parent)
    declared, label_chars = gate_data(plan.evalset.path, where)
    if declared and options.data == "full":
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--data full: {where} keeps minimal data for {plan.evalset.path.name} "
            "(minimal_data); a flag may not loosen it",
        )
    if not declared and options.data != "minimal":
        return None
    if options.record is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            "--record: refused under minimal data (a recording holds every model request "
            "and response)",
        )
    if options.verbose:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            "--verbose: refused under minimal data (a full traceback quotes the model's text)",
        )
    from ..results.vocabulary import Vocabulary

    secret = current().data_key
    key = data_key(secret.get_secret_value() if secret else None)
    names = [n for c in plan.cases for n in (c.eval_id, c.meta.category if c.meta else "")]
    return Minimal(key, label_chars, Vocabulary.of(names))


def record_path(options: RunOptions, plan: Plan, started: datetime) -> Path:
    """The record's path, refused before any trial runs when it cannot be written."""
    if options.output is None:
        stamp = started.strftime("%Y%m%dT%H%M%SZ")
        name = plan.evalset.path.name.removesuffix(".evalset.json")
        return current().runs_dir / f"{stamp}-{name}-{uuid.uuid4().hex[:6]}.json"
    return output_file("--output", options.output)


def capped_by_model(options: RunOptions, parallel: int | None) -> str | None:
    """Why fewer trials run at once than asked: the model serves fewer conversations at once
    to advantage (the embedded server, one; more would only slow it)."""
    if parallel is None or options.concurrency <= parallel:
        return None
    return (
        f"the model serves {parallel} conversation(s) at a time to advantage; concurrency "
        f"{options.concurrency} lowered to {parallel}"
    )
