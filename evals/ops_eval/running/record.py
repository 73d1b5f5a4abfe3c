"""A run's record built from its finished trials: aggregated, with what the run was of, by hash
(`provenance_fields`), and, for a run stopped before its end, marked interrupted."""

from __future__ import annotations

from typing import Any

from ..base.settings import current
from ..core.plan import Plan
from ..results.aggregation import aggregate, record_fields, scorer_rules
from ..results.record_parts import Interrupted, ShardInfo, TrialRecord
from ..results.records import RunRecord
from .options import RunOptions, planned_trials

CASE_VERSIONS = "case_versions"  # eval id -> (locked version or None, content hash)


def provenance_fields(plan: Plan) -> dict[str, Any]:
    """What a run was of, by hash: the eval set, seed, instructions, tool schema, scorers and
    git commit (the run record's fields, and an MLflow logged model's), and each case's content
    hash and locked version (`case_versions`, which `build_record` puts on the trials). Read
    before the run plays: the code it was of is the code it started with, the lock the one it
    started with, and no source is parsed after a signal landed (CPython 3.11's `ast.parse` can
    then fail, SystemError, gh-106905)."""
    from ..agents import AGENTS
    from ..core.case_lock import versions
    from ..results.provenance import git_state, scorers_digest, sha256, tool_schema_digest

    source = current().source_root  # an installed wheel has no commit of its own
    commit, dirty = git_state(source) if source else (None, None)
    agents = sorted({c.meta.agent for c in plan.cases if c.meta})
    return {
        "eval_set": plan.evalset.display,
        "eval_set_sha256": sha256(plan.evalset.text),
        "seed_sha256": plan.seed.digest,
        "instruction_sha256": {a: sha256(AGENTS[a].instruction) for a in agents},
        "tool_schema_sha256": tool_schema_digest(),
        "scorers_sha256": scorers_digest(),
        "git_commit": commit,
        "git_dirty": dirty,
        "eval_set_cases": len(plan.evalset.cases),
        CASE_VERSIONS: versions(plan.evalset),
    }


def _stamped(trials: list[TrialRecord], versions: dict[str, Any]) -> list[TrialRecord]:
    """Each trial with its case's content hash and locked version, as the set was played."""
    return [
        t.model_copy(
            update={"case_version": versions[t.case_id][0], "case_sha256": versions[t.case_id][1]}
        )
        for t in trials
    ]


def build_record(
    plan: Plan,
    trials: list[TrialRecord],
    options: RunOptions,
    provenance: dict[str, Any],
    interrupted: str | None = None,
    **run: Any,
) -> RunRecord:
    """The run record of `trials`, aggregated; `provenance` is `provenance_fields(plan)`, read
    before the run played; `run` gives run_id, started_at, seconds, model.
    `interrupted`: what stopped the run before its end -- the record then holds the trials
    that finished, has no verdict (exit 3), and says so."""
    cases = [(c.eval_id, c.meta.category if c.meta else "?") for c in plan.cases]
    shard = None
    if options.shard is not None:  # aggregates of the cases in the shard, as far as it goes
        keys = planned_trials(plan, options)
        present = {case for case, _ in keys}
        cases = [c for c in cases if c[0] in present]
        index, count = options.shard
        shard = ShardInfo(index=index, count=count, trials=keys, group=options.run_group)
    provenance = dict(provenance)
    trials = _stamped(trials, provenance.pop(CASE_VERSIONS))
    rules = scorer_rules()
    agg = aggregate(cases, trials, options.repeats, plan.criteria.threshold, rules)
    fields = record_fields(agg, trials, rules, interrupted=interrupted is not None)
    if options.minimal is not None:  # the trials are kept as hashes already; so are the rest
        fields["notes"] = [options.minimal.label(n) for n in fields["notes"]]
        run["model"] = options.minimal.model(run["model"])
        fields["data"] = options.minimal.kept()
    stopped = None
    if interrupted is not None:
        planned = len(planned_trials(plan, options))
        stopped = Interrupted(planned=planned, finished=len(trials), reason=interrupted)
        fields["notes"] = [
            f"interrupted ({interrupted}) after {len(trials)} of {planned} trials: the record "
            "holds the finished ones and has no verdict; the gate never takes it for a run",
            *fields["notes"],
        ]
    return RunRecord(
        **run,
        **provenance,
        criteria={"threshold": plan.criteria.threshold, "match_type": plan.criteria.match_type},
        repeats=options.repeats,
        concurrency=options.concurrency,
        selected_cases=[c.eval_id for c in plan.cases],
        trials=trials,
        shard=shard,
        interrupted=stopped,
        **fields,
    )
