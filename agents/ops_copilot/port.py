"""The ops copilot as the evaluation harness sees it (`agentport.AgentPort`): its tools, how it
is built, its seed and entities, and its per-session workspace. Reading this module imports no
ADK agent class and no model client; the builders are named, and load on first use.

Beyond what every agent declares, the ops copilot declares its guards and the readers built on
them in `extras` (the claims reader, the answer and output guards, spotlighting, the state
store), which the harness parts made for them (the red team, `grounded`, `facts`, the guard
mutants) read through the port.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentport import AgentPort
from ops_copilot.definition import tool_specs
from ops_copilot.seed.loading import ENTITY_KINDS, Seed, default_seed, load_seed, normalise


class WorkspaceState:
    """Each session's workspace (`workspace.Workspace`: the seed and a fresh in-memory store),
    bound by session id where the tools look it up (`workspace.WORKSPACES`)."""

    def fresh(self, seed: Seed) -> Any:
        from ops_copilot.store.workspace import Workspace

        return Workspace.fresh(seed)

    def bind(self, session_id: str, state: Any) -> None:
        from ops_copilot.store.workspace import WORKSPACES

        WORKSPACES.bind(session_id, state)

    def release(self, session_id: str) -> None:
        from ops_copilot.store.workspace import WORKSPACES

        WORKSPACES.release(session_id)

    def snapshot(self, state: Any) -> Any:
        return state.store.snapshot()

    def audit(self, state: Any) -> list[Any]:
        """The audit rows of the approved writes (optional in a `StatePort`)."""
        return state.store.audit_rows()

    def notes(self, state: Any) -> list[Any]:
        """The incident notes saved (optional in a `StatePort`)."""
        return state.store.notes()


def seed_at(root: Path | None) -> Seed:
    """The seed at `root`, or the project's (`OPS_SEED_DIR`, else the shipped one)."""
    return load_seed(root) if root else default_seed()


def entities(seed: Seed) -> dict[str, frozenset[str]]:
    return {kind: seed.ids(kind) for kind in ENTITY_KINDS}


STATE = WorkspaceState()

PORT = AgentPort(
    name="ops_copilot",
    instruction_at="ops_copilot.definition:INSTRUCTION",
    tools=tool_specs,
    build="ops_copilot.agent:build_agent",
    load_seed=seed_at,
    entities=entities,
    normalise=normalise,
    state=STATE,
    app="ops_copilot.confirmations:guarded_app",
    extras={
        # (tool, args, workspace) -> the refusal a write gets before anyone is asked, or None
        "precheck_write": "ops_copilot.store.writes:precheck_write",
        # the state is a `Workspace` whose store audits every approved write (`end_state`)
        "audited_store": True,
    },
)
