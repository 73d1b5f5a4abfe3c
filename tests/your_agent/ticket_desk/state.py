"""Each session's copy of the tickets, found by the session id a tool call carries."""

from __future__ import annotations

import copy
import threading
from typing import Any

from .seed import load_seed


class DeskState:
    """Fresh tickets per session (an `agentport.StatePort`); a session nobody bound (`adk web`)
    gets the default seed's."""

    def __init__(self) -> None:
        self._by_session: dict[str, dict[str, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def fresh(self, seed: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        return copy.deepcopy(seed)

    def bind(self, session_id: str, state: Any) -> None:
        with self._lock:
            self._by_session[session_id] = state

    def release(self, session_id: str) -> None:
        with self._lock:
            self._by_session.pop(session_id, None)

    def of(self, session_id: str) -> dict[str, dict[str, str]]:
        with self._lock:
            return self._by_session.setdefault(session_id, self.fresh(load_seed()))

    def snapshot(self, state: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        return {"tickets": {tid: t["state"] for tid, t in sorted(state.items())}}


STATE = DeskState()
