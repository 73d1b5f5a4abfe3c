"""A case's tool faults (`meta.contracts.faults`) against the tool declarations.

A fault must be able to happen, or the case tests nothing: it names a tool of the case's agent that
the case expects to be called (or sits beside a fault that does: the rest of an outage), its `args`
are arguments that tool declares (an entity argument naming a seed entity or a declared negative, as
an expected call's must), an `empty` fault names a read whose empty result the harness knows, and a
fault on a write that waits for a human sits on an approval case that approves (the harness faults
such a write only after the approval, so without one the write never runs and the fault never
fires).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..agents import AGENTS
from ..playing.faults import EMPTY
from .call_rules import entity_problem
from .context import Context, Site
from .problems import Problem


def case_faults(ctx: Context, site: Site) -> Iterator[Problem]:
    meta = site.meta
    specs = AGENTS[meta.agent].tools()
    expected = {call.name for turn in site.case.turns for call in turn.calls}
    # A fault on a tool the case never calls cannot fire for an agent that follows it; beside a
    # fault that does fire it completes the outage (an empty store is empty to a guess too).
    fires = any(f.tool in expected for f in meta.contracts.faults)
    approves = meta.approval is not None and meta.approval.decision == "approve"
    for n, fault in enumerate(meta.contracts.faults, start=1):
        where = f"meta.contracts.faults[{n}]"
        spec = specs.get(fault.tool)
        if spec is None:
            yield site.problem(
                f"fault on {fault.tool!r}: not a tool of agent {meta.agent} "
                f"(tools: {', '.join(sorted(specs))})",
                field=f"{where}.tool",
            )
            continue
        for arg, value in fault.args.items():
            if arg not in spec.params:
                yield site.problem(
                    f"fault on {fault.tool}: {arg!r} is not an argument of {fault.tool} "
                    f"(arguments: {', '.join(spec.params) or 'none'})",
                    field=f"{where}.args.{arg}",
                )
            elif (kind := spec.entities.get(arg)) and (
                wrong := entity_problem(ctx, kind, value, site.meta.agent)
            ):
                yield site.problem(
                    f"fault on {fault.tool} never fires: {arg} {wrong}",
                    field=f"{where}.args.{arg}",
                )
        if fault.tool not in expected and not fires:
            yield site.problem(
                f"fault on {fault.tool}, which the case never expects to be called: it cannot "
                "fire for an agent that follows the case",
                field=f"{where}.tool",
            )
        if fault.kind == "empty" and fault.tool not in EMPTY:
            yield site.problem(
                f"fault on {fault.tool}: an empty result is only defined for reads "
                f"({', '.join(sorted(EMPTY))})",
                field=f"{where}.kind",
            )
        if spec.always_confirm and not approves:
            yield site.problem(
                f"fault on {fault.tool}: the write waits for a human, so the fault fires only "
                'after an approval; give the case meta.approval {"decision": "approve", ...}',
                field=f"{where}.tool",
            )
