"""Which seed and which state store a tool call works on, per ADK session.

Every session gets its own workspace: the seed (immutable, shared) and a state store. By default
the store is a fresh `:memory:` database per session, so an eval case or `adk eval` run can never
leak state into the next one. `OPS_STATE_DB=path.db` makes interactive sessions (`adk web`,
`adk run`) share one file instead. Code that drives the agent itself binds its own workspace to a
session id before running it and releases it afterwards.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ops_copilot.guards.spotlight import Spotlit, fence, neutralise
from ops_copilot.seed.loading import Seed, default_seed
from ops_copilot.settings import current
from ops_copilot.store.state import StateStore


@dataclass
class Workspace:
    """The world one session sees, and how untrusted text from it is shown to the model."""

    seed: Seed
    store: StateStore
    writes_disabled: bool = False

    @classmethod
    def fresh(cls, seed: Seed | None = None, **settings: Any) -> Workspace:
        seed = seed or default_seed()
        return cls(seed=seed, store=StateStore.create(seed), **settings)

    def writes_refused(self) -> bool:
        """Writes are off for this workspace, or for the whole process (OPS_WRITES_DISABLED)."""
        return self.writes_disabled or current().writes_disabled

    def untrusted(self, text: str, source: str) -> Spotlit:
        """Text people or systems wrote (logs, runbooks, incident text, notes), fenced as data."""
        return fence(text, source)

    def title(self, text: str) -> str:
        """A short untrusted label (an incident or runbook title), defanged but not fenced."""
        return neutralise(text).text


class Workspaces:
    """session id -> workspace; thread-safe because ADK may run sync tools in worker threads."""

    def __init__(self) -> None:
        self._by_session: dict[str, Workspace] = {}
        self._shared: dict[str, StateStore] = {}
        self._lock = threading.Lock()

    def bind(self, session_id: str, workspace: Workspace) -> None:
        with self._lock:
            self._by_session[session_id] = workspace

    def release(self, session_id: str) -> Workspace | None:
        with self._lock:
            return self._by_session.pop(session_id, None)

    def get(self, session_id: str) -> Workspace:
        with self._lock:
            ws = self._by_session.get(session_id)
            if ws is None:
                ws = self._default()
                self._by_session[session_id] = ws
            return ws

    def _default(self) -> Workspace:
        seed = default_seed()
        path = current().state_db
        if path:
            store = self._shared.get(path)
            if store is None:
                store = self._shared[path] = StateStore.create(seed, path)
        else:
            store = StateStore.create(seed)
        return Workspace(seed=seed, store=store)


WORKSPACES = Workspaces()


def workspace_for(tool_context: Any) -> Workspace:
    """The workspace of the session a tool call belongs to."""
    return WORKSPACES.get(tool_context.session.id)


def call_ids(tool_context: Any) -> tuple[str, str, str]:
    """(session id, invocation id, user id) of a call, for notes and audit rows."""
    return tool_context.session.id, tool_context.invocation_id, tool_context.user_id
