"""A Runner plugin that keeps a confirmation answer ADK cannot parse from crashing the run.

On resume, ADK parses the user's `adk_request_confirmation` answer into its `ToolConfirmation`
(google/adk/flows/llm_flows/tools/_confirmation.py, `run_async`, step 1, via
`ToolConfirmation.from_response_dict`) before any agent or tool callback runs, and lets the
error escape: `confirmed: [true]`, `{"x": 1}`, `"maybe"` or null, a field the model does not
have, a non-text `hint`, or a `{"response": ...}` wrapper that is not a JSON object ended the
run with a ValidationError traceback (nothing was changed, but nothing was said either).

The one hook that sees the answer before the session stores it is a plugin's
`on_user_message_callback`, which may replace the message. `ConfirmationGuard` parses each
confirmation answer the way ADK will; one that fails is replaced by a rejection
(`confirmed: false`) whose `hint` carries a code for why, so the session keeps no answer ADK
cannot read. ADK then resumes the tool as rejected, and the guard's `before_tool_callback`
answers that call with the project's own refusal (`invalid_approval`, saying which part was
wrong) instead of ADK's bare "rejected". The reason shown comes from a closed list below, never
from the user's text: a hand-written hint can at most produce one of these refusals. Answers ADK
can parse are left alone for the tool's own check (`approval.read_approval`), which still
refuses a `confirmed` that is only truthy.

Wire it where a Runner is built, through an App (ADK deprecates a Runner's own `plugins`):
`InMemoryRunner(app=guarded_app(agent, app_name))`, and expose `app = guarded_app(root_agent,
...)` beside `root_agent` so `adk web` and `adk run` load it with the guard.
"""

from __future__ import annotations

import logging
from typing import Any

from google.adk.apps import App
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.genai import types
from pydantic import ValidationError

from ops_copilot.tools.approval import CONFIRMATION_CALL, invalid_approval

log = logging.getLogger(__name__)

MARK = "ops-copilot refused an answer ADK cannot parse: "
_GOT = "confirmed: must be the JSON boolean true, got "
# Why an answer was neutralised: code (kept in the rewritten answer's hint) -> what the refusal
# says. Only these texts ever reach the model.
WHY = {
    "confirmed-list": _GOT + "a list",
    "confirmed-object": _GOT + "an object",
    "confirmed-text": _GOT + "text",
    "confirmed-number": _GOT + "a number",
    "confirmed-null": _GOT + "null",
    "confirmed-other": _GOT + "another type",
    "extra-field": "the answer has a field a confirmation does not have",
    "hint": "hint: must be text",
    "not-json": "the answer is not JSON",
    "not-an-object": "the answer is not a JSON object",
    "other": "the answer is not a confirmation",
}
_KINDS = {list: "list", dict: "object", str: "text", int: "number", float: "number"}


def _code(exc: Exception) -> str:
    """The WHY code of ADK's parse failure."""
    if not isinstance(exc, ValidationError):
        return "not-json"  # json.loads of the wrapper's text: not JSON, or not a string at all
    err = exc.errors()[0]
    if err["type"] == "extra_forbidden":
        return "extra-field"
    if err["type"] == "model_type":
        return "not-an-object"
    if err["loc"][:1] == ("confirmed",):
        value = err.get("input")
        return (
            "confirmed-null" if value is None else f"confirmed-{_KINDS.get(type(value), 'other')}"
        )
    if err["loc"][:1] == ("hint",):
        return "hint"
    return "other"


def problem(response: Any) -> str | None:
    """None when ADK can parse `response` as a confirmation; else the WHY code."""
    try:
        ToolConfirmation.from_response_dict(response)
    except (ValueError, TypeError) as exc:  # ValidationError and JSONDecodeError are ValueErrors
        return _code(exc)
    return None


def neutralise(message: types.Content) -> types.Content | None:
    """`message` with every confirmation answer ADK cannot parse replaced by a rejection that
    records why; None when there is none (the message goes on unchanged)."""
    parts = list(message.parts or [])
    changed = False
    for i, part in enumerate(parts):
        fr = part.function_response
        if fr is None or fr.name != CONFIRMATION_CALL or fr.response is None:
            continue
        code = problem(fr.response)
        if code is None:
            continue
        log.warning("confirmation %s refused: %s", fr.id, WHY[code])
        rejection = {"confirmed": False, "hint": MARK + code}
        parts[i] = part.model_copy(
            update={"function_response": fr.model_copy(update={"response": rejection})}
        )
        changed = True
    return message.model_copy(update={"parts": parts}) if changed else None


class ConfirmationGuard(BasePlugin):
    """Neutralises confirmation answers ADK cannot parse, and refuses the call they answered."""

    def __init__(self, name: str = "ops_copilot_confirmation_guard") -> None:
        super().__init__(name=name)

    async def on_user_message_callback(
        self, *, invocation_context: Any, user_message: types.Content
    ) -> types.Content | None:
        return neutralise(user_message)

    async def before_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any
    ) -> dict[str, Any] | None:
        confirmation = getattr(tool_context, "tool_confirmation", None)
        hint = getattr(confirmation, "hint", None)
        if getattr(confirmation, "confirmed", None) is not False or not isinstance(hint, str):
            return None
        why = WHY.get(hint.removeprefix(MARK)) if hint.startswith(MARK) else None
        return invalid_approval(why).result(action=tool.name) if why else None


def guarded_app(agent: Any, name: str) -> App:
    """An ADK App running `agent` with the ConfirmationGuard, for a Runner or `adk web`."""
    return App(name=name, root_agent=agent, plugins=[ConfirmationGuard()])
