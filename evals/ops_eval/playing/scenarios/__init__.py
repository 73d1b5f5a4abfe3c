"""Conversation scenarios, played: a case whose user is simulated rather than scripted turn by
turn.

- `conversation`: the scenario played from its starting prompt, move by move, until the user
  stops or a limit ends it, with who ended it and whose failure a limit is;
- `users`: the user's side -- a scripted user (the scenario's rules, for CI) and a model-backed
  one (ADK's user-simulator prompt with an approval protocol added, for live runs);
- `user_reply`: the model-backed user's reply read for its move as a person would read it.

A scenario's shape is a case's (`core.scenario`), its reference is checked with the scripted
user's own code (`validation.scenario_rules`), and its goals are scored like any case's
(`goal_calls`, `conversation_end` and the rest of `scorers`). The engine reaches it through
`playing.play`; outside this package only `playing.play` and `validation.scenario_rules`
import it.

May import: `base`, `core`, `models`, and `playing`'s own `session`, `turns`, `pulse` and
`sides`.
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

_EXPORTS = {
    "converse": "conversation",
    "Move": "users",
    "ModelUser": "users",
    "ScriptedUser": "users",
    "User": "users",
    "UserFailed": "users",
    "move_of": "users",
    "rule_fires": "users",
    "read_reply": "user_reply",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS)
