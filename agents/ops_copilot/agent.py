"""The ops copilot ADK agent: `root_agent`, built from the declared tools and the instruction."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.tools.base_tool import BaseTool  # noqa: E402
from google.adk.tools.function_tool import FunctionTool  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from google.genai import types  # noqa: E402

from ops_copilot.definition import tool_specs  # noqa: E402
from ops_copilot.guards.answer_guard import flag_answer  # noqa: E402
from ops_copilot.guards.output_guard import guard_links  # noqa: E402
from ops_copilot.prompt import INSTRUCTION  # noqa: E402
from ops_copilot.residue import drop_residue  # noqa: E402
from ops_copilot.store.workspace import workspace_for  # noqa: E402
from ops_copilot.store.writes import (  # noqa: E402
    precheck_write,
    read_untrusted_text,
    write_provenance,
)
from ops_copilot.tools.registry import ToolSpec  # noqa: E402

AGENT_NAME = "ops_copilot"
DESCRIPTION = "Incident-response copilot over a fixed seed of services, incidents and runbooks."


def _after_untrusted(**kwargs: Any) -> bool:
    return read_untrusted_text(kwargs["tool_context"])


def confirmation_rule(spec: ToolSpec) -> bool | Any:
    """ADK's `require_confirmation` for a declared tool."""
    return {"never": False, "always": True, "after_untrusted": _after_untrusted}[spec.confirm]


def build_tools(specs: dict[str, ToolSpec] | None = None) -> list[FunctionTool]:
    """One ADK FunctionTool per declared tool, with the confirmation rule it declares."""
    specs = dict(tool_specs() if specs is None else specs)
    return [FunctionTool(s.func, require_confirmation=confirmation_rule(s)) for s in specs.values()]


def refuse_doomed_writes(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, Any] | None:
    """Answer a write that cannot run (unknown target, writes disabled, nothing to do) before a
    human is asked to approve it. Runs again when an approval arrives."""
    spec = tool_specs().get(tool.name)
    if spec is None or not spec.is_write:
        return None
    return precheck_write(tool.name, args, workspace_for(tool_context))


def show_provenance(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
) -> None:
    """When ADK's gate paused a write for approval, put where its arguments came from
    (`provenance`) into the request the human sees: the hint says it in words, flagged sources
    first, and the payload carries the trace. The pause itself stays ADK's."""
    requested = tool_context.actions.requested_tool_confirmations
    call_id = tool_context.function_call_id
    spec = tool_specs().get(tool.name)
    if spec is None or not spec.is_write or call_id not in requested:
        return None
    taken = {k: v for k, v in args.items() if k in spec.params}  # what the tool will run with
    provenance = write_provenance(tool.name, taken, tool_context)
    requested[call_id] = requested[call_id].model_copy(
        update={"hint": provenance.hint(), "payload": provenance.payload()}
    )
    return None


OutputGuard = Callable[[Any, LlmResponse], LlmResponse | None]
OUTPUT_GUARDS: dict[str, OutputGuard] = {"links": guard_links, "answers": flag_answer}


def output_guard(names: Iterable[str] = tuple(OUTPUT_GUARDS)) -> OutputGuard | None:
    """One `after_model_callback` running the named guards in order, each on what the one before
    returned (ADK stops at the first callback that returns a response, so they are chained
    here); None when no guard is named."""
    guards = [OUTPUT_GUARDS[n] for n in names]
    if not guards:
        return None

    def guard(callback_context: Any, llm_response: LlmResponse) -> LlmResponse | None:
        changed = None
        for one in guards:
            changed = one(callback_context, changed or llm_response) or changed
        return changed

    return guard


def generation_config() -> types.GenerateContentConfig | None:
    """The sampling settings of OPS_AGENT_TEMPERATURE, for any model route; None when unset."""
    from ops_copilot.model import temperature

    value = temperature()
    return None if value is None else types.GenerateContentConfig(temperature=value)


class ResidueFree(LlmAgent):
    """An LlmAgent whose model responses lose their tool-call residue (`drop_residue`) before
    anything else sees them: then the agent's own `after_model_callback`s run, in ADK's way
    (the first that returns a response wins), on the cleaned response."""

    @property
    def canonical_after_model_callbacks(self) -> list[Any]:
        callbacks = list(super().canonical_after_model_callbacks)

        async def residue_first(*, callback_context: Any, llm_response: LlmResponse) -> Any:
            cleaned = drop_residue(llm_response)
            for callback in callbacks:
                result = callback(
                    callback_context=callback_context, llm_response=cleaned or llm_response
                )
                if inspect.isawaitable(result):
                    result = await result
                if result:
                    return result
            return cleaned

        return [residue_first]


def build_agent(model: Any = None, *, name: str = AGENT_NAME, **overrides: Any) -> LlmAgent:
    """The agent with `model` (default: from OPS_AGENT_MODEL and friends). Its model responses
    lose their tool-call residue first (`ResidueFree`), whatever callbacks it is given."""
    if model is None:
        from ops_copilot.model import build_model

        model = build_model()
    settings: dict[str, Any] = dict(
        name=name,
        model=model,
        description=DESCRIPTION,
        instruction=INSTRUCTION,
        tools=build_tools(),
        before_tool_callback=refuse_doomed_writes,
        after_tool_callback=show_provenance,  # the approval request says where arguments came from
        after_model_callback=output_guard(),  # untrusted links removed; answers checked
        generate_content_config=generation_config(),
    )
    settings.update(overrides)
    return ResidueFree(**settings)


def __getattr__(name: str) -> Any:
    """`root_agent` (and `app`, the agent behind the confirmation guard), built from
    configuration on first use (as adk run/web/eval ask for it), so importing this module to build
    an agent with another model does not load LiteLLM."""
    if name == "root_agent":
        agent = build_agent()
        globals()["root_agent"] = agent
        return agent
    if name == "app":  # ADK's loader looks for `app` first: the agent behind the confirmation guard
        from ops_copilot.confirmations import guarded_app

        agent = globals().get("root_agent") or __getattr__("root_agent")
        app = guarded_app(agent, AGENT_NAME)
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
