"""A case's tool faults (`meta.contracts.faults`) against the tool declarations.

A fault must be able to happen, or the case tests nothing: it names a tool of the case's agent,
its `args` are arguments that tool declares, an `empty` fault names a read whose empty result
the harness knows, and a fault on a write that waits for a human sits on an approval case that
approves (the harness faults such a write only after the approval, so without one the write
never runs and the fault never fires).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..agents import AGENTS
from ..faults import EMPTY
from .context import Context, Site
from .problems import Problem


def case_faults(ctx: Context, site: Site) -> Iterator[Problem]:
    meta = site.meta
    specs = AGENTS[meta.agent].tool_specs()
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
        for arg in fault.args:
            if arg not in spec.params:
                yield site.problem(
                    f"fault on {fault.tool}: {arg!r} is not an argument of {fault.tool} "
                    f"(arguments: {', '.join(spec.params) or 'none'})",
                    field=f"{where}.args.{arg}",
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
