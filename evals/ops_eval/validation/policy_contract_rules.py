"""Rules about the policy contracts (`contracts.py`): forbidden calls, order rules and budgets.

A forbidden rule names a tool of the case's agent (a set-level rule: of some agent) and only
arguments that tool declares; an entity argument names a seed entity or a declared negative. None of
them may contradict the case's own expected calls -- the case could not pass with its gold
trajectory: an expected call a forbidden rule forbids, an expected write before a read of its target
under `read_before_write`, more expected calls in a turn than the tool-call budget. These use the
scorers' own reading (`call_policy`), and hold for the set's rules (from `contracts.yaml`) against
every case of the set. That a budget figure is positive is the format's own check (`Budget`),
reported with the other shape problems.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from agentport import ToolSpec
from opskit.textfiles import resolved

from ..agents import AGENTS
from ..core.call_policy import describe, forbidden_hits, placed, writes_before_reads
from ..core.contracts import Forbidden, read_set_contracts, set_contracts_path
from ..core.evalset import EvalSetFile, display_path
from .call_rules import entity_problem
from .context import Context, Site
from .problems import Problem

SET_FILE_FIELD = "contracts.yaml forbidden"
CASE_FIELD = "contracts.forbidden"


def _unknown(
    ctx: Context, rules: list[Forbidden], specs: Mapping[str, ToolSpec], owner: str, prefix: str
):
    """(message, field) for rules naming no tool of `owner`, an undeclared argument, or an entity
    the seed lacks (a rule that could never forbid anything)."""
    for i, rule in enumerate(rules):
        if rule.tool is None:
            continue
        spec = specs.get(rule.tool)
        if spec is None:
            yield f"forbids {rule.tool!r}, which is not a tool of {owner}", f"{prefix}[{i}].tool"
            continue
        for arg, value in rule.args.items():
            if arg not in spec.params:
                yield (
                    f"forbids {rule.tool} with argument {arg!r}, which {rule.tool} does not "
                    "declare",
                    f"{prefix}[{i}].args.{arg}",
                )
            elif (kind := spec.entities.get(arg)) and (wrong := entity_problem(ctx, kind, value)):
                yield (
                    f"forbids {rule.tool} with {arg} {wrong}: the rule can never apply",
                    f"{prefix}[{i}].args.{arg}",
                )


def set_policy(ctx: Context, sets: list[EvalSetFile]) -> Iterator[Problem]:
    """Each `contracts.yaml` (once, however many sets share its folder): its forbidden rules name
    tools and arguments of some agent. A broken file is `contract_rules.contracts_file`'s."""
    specs = {n: s for entry in AGENTS.values() for n, s in entry.tools().items()}
    files = {resolved(set_contracts_path(es.path)): es.path for es in sets}
    for path in files.values():  # each file once, however many sets (or folders) share it
        contracts, _ = read_set_contracts(path)
        if contracts is None:
            continue
        shown = display_path(set_contracts_path(path))
        for message, where in _unknown(ctx, contracts.forbidden, specs, "any agent", "forbidden"):
            yield Problem(shown, message, field=where)


def case_policy(ctx: Context, site: Site) -> Iterator[Problem]:
    """The case's own forbidden rules against its agent; every rule that applies to it (the
    set's and its own) against its expected calls."""
    meta = site.meta
    specs = AGENTS[meta.agent].tools()
    own = meta.contracts.forbidden
    for message, where in _unknown(ctx, own, specs, f"agent {meta.agent}", CASE_FIELD):
        yield site.problem(message, field=where)
    base, _ = site.evalset.set_contracts
    merged = meta.contracts.merged_over(base)
    inherited = len(base.forbidden) if base else 0

    def source(rule: Forbidden) -> str:
        i = next(i for i, r in enumerate(merged.forbidden) if r is rule)
        return f"{SET_FILE_FIELD}[{i}]" if i < inherited else f"{CASE_FIELD}[{i - inherited}]"

    turns = [(t.index, t.calls) for t in site.case.turns]
    for at, rule in forbidden_hits(placed(turns), merged.forbidden, specs):
        yield site.problem(
            f"the case expects {at.call.show()}, which {describe(rule)} forbids",
            turn=at.turn,
            call=at.index,
            field=source(rule),
        )
    if "read_before_write" in merged.order:
        own_rule = "read_before_write" in meta.contracts.order
        order_field = "contracts.order" if own_rule else "contracts.yaml order"
        for at, (kind, name) in writes_before_reads(placed(turns), specs):
            yield site.problem(
                f"read_before_write: the case expects {at.call.show()} before any read of "
                f"{kind} {name}",
                turn=at.turn,
                call=at.index,
                field=order_field,
            )
    limit = merged.budget.tool_calls if merged.budget else None
    for turn in site.case.turns:
        if limit is not None and len(turn.calls) > limit:
            yield site.problem(
                f"the case expects {len(turn.calls)} tool calls "
                f"({', '.join(c.name for c in turn.calls)}), over the tool-call budget {limit}",
                turn=turn.index,
                field="contracts.budget.tool_calls",
            )
