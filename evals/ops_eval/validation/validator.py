"""The offline validator: every eval case agrees with ADK's schema, the agent's tools, the seed,
the project's policies and the strict criteria -- before any model is called.

It is a list of small rules, each yielding problems (`case_rules`, `meta_rules`, `call_rules`,
`policy_rules`, `reference_rules`, `response_rules`, `set_rules`, `gate_rules`, `case_locks`), run
over files read once (`files`); the context files -- criteria, negatives, contracts and the gate's
policy (`gate.yaml`, checked here so a policy that cannot gate fails the PR that writes it) -- are
looked for beside the sets that could be read (a missing file is only "file not found"). All
problems are collected in one run, one line each, naming file, case, turn, call and field; every
field is read defensively, so no content of a file reaches a traceback. Which arguments name seed
entities, which tools write and which need approval all come from the tool declarations; the
deliberate negatives come from `negatives.yaml`; a case is held out by its `meta.split`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.ops_world import Seed, default_seed
from ..base.settings import current
from ..core.contracts import set_contracts_path
from ..core.evalset import EvalSetFile, MalformedInput, display_path, read_evalset
from ..core.negatives import Negatives
from . import adk
from .call_rules import expected_calls
from .case_locks import lock_problems
from .case_rules import eval_id, has_turns, session_input, turn_texts
from .context import Context, Site
from .contract_rules import case_contracts, contracts_file
from .discovery import CONFIG_FILE, discover
from .fault_rules import case_faults
from .files import NEGATIVES_FILE, Config, Fallbacks, read_configs, read_negatives
from .gate_rules import gate_file_problems
from .meta_rules import valid_meta
from .policy_contract_rules import case_policy, set_policy
from .policy_rules import (
    answer_reference,
    category_fits,
    notes_after_untrusted,
    writes_approvable,
    writes_where_allowed,
)
from .problems import Problem, Report, render, render_warnings
from .reference_rules import references_agree
from .response_rules import response_checks
from .scenario_rules import draft_reviewed, goal_fits, reference_walk, scenario_shape, user_rules
from .set_rules import adk_accepts, holdout_unseen, negatives_still_missing, set_id

__all__ = [
    "CASE_RULES",
    "CONFIG_FILE",
    "NEGATIVES_FILE",
    "Negatives",
    "Problem",
    "Report",
    "Validated",
    "check",
    "render",
    "render_warnings",
    "validate",
]

Rule = Callable[[Context, Site], Iterator[Problem]]

# Run in this order on every case. A case whose `meta` is invalid gets that problem and every
# other rule, with what its meta does say (rules bound to an unknown category skip it).
CASE_RULES: tuple[Rule, ...] = (
    eval_id,
    valid_meta,
    draft_reviewed,
    scenario_shape,
    has_turns,
    turn_texts,
    expected_calls,
    writes_where_allowed,
    notes_after_untrusted,
    writes_approvable,
    category_fits,
    answer_reference,
    references_agree,
    session_input,
    case_faults,
    case_contracts,
    case_policy,
    response_checks,
    user_rules,
    goal_fits,
    reference_walk,
)


@dataclass
class Validated:
    """A validation's report, and what it read and parsed, for a run to use without reading or
    parsing again."""

    report: Report
    sets: list[EvalSetFile] = field(default_factory=list)
    configs: dict[Path, Config] = field(default_factory=dict)
    negatives: Negatives | None = None
    adk_sets: dict[int, Any] = field(default_factory=dict)  # set index -> ADK's EvalSet


def _case_problems(ctx: Context, site: Site) -> Iterator[Problem]:
    for rule in CASE_RULES:
        yield from rule(ctx, site)


def check(
    files: list[Path],
    sets: list[EvalSetFile],
    problems: list[Problem] | None = None,
    *,
    seed: Seed | None = None,
    negatives_file: Path | None = None,
    in_process: bool = False,
) -> Validated:
    """Validate eval sets already read from `files` (`problems`: those of the files that could
    not be read). The context files are those beside the sets read -- a file that could not be
    read has no context to check -- and the project's evals/ stand in for missing ones, with a
    warning. `in_process`: parse with ADK here and keep the parsed sets."""
    problems = list(problems or [])
    if not sets:  # nothing read: no criteria or negatives to check it against, no fallback
        return Validated(Report(problems=problems))
    fallbacks = Fallbacks(current().evals_dir)
    for es in sets:
        fallbacks.shown.setdefault(es.path.parent, display_path(es.path))
    configs = read_configs((es.path.parent for es in sets), problems, fallbacks)
    negatives_path = negatives_file or fallbacks.path(sets[0].path.parent, NEGATIVES_FILE)
    negatives = read_negatives(negatives_path, problems)
    for es in sets:  # an ad-hoc set's contracts are the project's too (`set_contracts_path`)
        fallbacks.took(es.path.parent, set_contracts_path(es.path))
    distinct = list({id(c): c for c in configs.values()}.values())  # a shared fallback once
    items = [("evalset", es.text) for es in sets] + [("config", c.text) for c in distinct]
    ctx = Context(  # a seed that does not load stops here, before ADK's check is begun
        seed=seed or default_seed(),
        negatives=negatives or Negatives(),
        negatives_file=display_path(negatives_path),
    )
    lock_warnings: list[str] = []  # a set with no lock, outside the project's evals/
    try:
        pending = adk.start(items, in_process=in_process)
        try:
            if negatives is not None:
                problems += negatives_still_missing(ctx)
            for es in sets:
                problems += set_id(es)
                for case in es.cases:
                    problems += _case_problems(ctx, Site(es, case))
            problems += contracts_file(ctx, sets)
            problems += gate_file_problems(sets)
            problems += holdout_unseen(sets)
            problems += set_policy(ctx, sets)
            problems += lock_problems(sets, lock_warnings)  # a case edited without a new version
        except BaseException:
            pending.cancel()  # a rule that crashed, or Ctrl-C: no worker is left behind
            raise
    finally:
        ctx.close()
    problems += adk_accepts(sets, distinct, pending.finish())
    report = Report(
        problems=problems,
        files=len(sets),
        cases=sum(len(s.cases) for s in sets),
        warnings=fallbacks.warnings() + lock_warnings,
    )
    return Validated(report, sets, configs, negatives, pending.parsed)


def validate(
    paths: Iterable[str | Path] = (),
    *,
    seed: Seed | None = None,
    negatives_file: Path | None = None,
) -> Report:
    """Validate the eval sets named or found under `paths` (default: the project's evals/)."""
    paths = list(paths)
    evals_dir = current().evals_dir
    files = discover(paths, evals_dir)
    if not files:
        where = ", ".join(map(str, paths)) or str(evals_dir)
        message = "no *.evalset.json files here: nothing to validate"
        return Report(problems=[Problem(where, message, malformed=True)])
    problems: list[Problem] = []
    sets = []
    for path in files:
        try:
            sets.append(read_evalset(path))
        except MalformedInput as exc:
            problems.append(Problem(exc.file, exc.message, malformed=True))
    return check(files, sets, problems, seed=seed, negatives_file=negatives_file).report
