"""The embedded default model's one departure from what LiteLLM sends any server: its first
reply to each user message is constrained to be a call of one of the tools it was given.

Why: SmolLM2-135M's own chat template has no tools, so it is served with ours
(`templates/chatml-tools.jinja`), which shows it every declaration and the `<tool_call>` format
llama.cpp parses. Shown them, it still writes prose (no call in 8 tries), and llama.cpp's
`tool_choice: "required"` lets prose come first (measured with this build), so neither makes it
call a tool.

How: the first request of a user turn -- the last message is the user's -- carries OpenAI's
`response_format` (`json_schema`): one object `{"name": <a tool>, "arguments": <that tool's
parameter schema>}`, which llama.cpp's server turns into a grammar. The reply is that JSON as the
message's content, which ADK's LiteLlm reads as a tool call (its fallback for servers that
answer with a JSON call as text), so the agent runs it. Every later request of the turn, after a
tool result, is sent exactly as LiteLLM makes it: the model may answer, or call again in
`<tool_call>` form, which the server parses itself. Besides this, the embedded server is asked
what any model a run serves itself is asked (`embedded.client`): greedy sampling (temperature 0,
unless OPS_AGENT_TEMPERATURE says otherwise) and, for this 135M model only, replies of at most
256 tokens; the messages, the tools and every other field are LiteLLM's, as Ollama or vLLM would
get them.
"""

from __future__ import annotations

from typing import Any

RESPONSE_FORMAT_NAME = "tool_call"


def call_schema(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The JSON schema of one call of any of `tools` (OpenAI tool declarations); None for no
    tools."""
    options = []
    for tool in tools:
        fn = tool.get("function") or {}
        if not fn.get("name"):
            continue
        parameters = fn.get("parameters") or {"type": "object", "properties": {}}
        options.append(
            {
                "type": "object",
                "properties": {"name": {"const": fn["name"]}, "arguments": parameters},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": options} if options else None


def _role(message: Any) -> str | None:
    if isinstance(message, dict):
        return message.get("role")
    return getattr(message, "role", None)


def opening_format(messages: list[Any], tools: list[dict[str, Any]] | None) -> dict | None:
    """The `response_format` of a request that opens a user turn with tools; None otherwise."""
    if not tools or not messages or _role(messages[-1]) != "user":
        return None
    schema = call_schema(tools)
    if schema is None:
        return None
    return {"type": "json_schema", "json_schema": {"name": RESPONSE_FORMAT_NAME, "schema": schema}}


def opening_call_client() -> Any:
    """LiteLlm's client, with `opening_format` added to the requests it applies to (ADK's
    LiteLlm module is imported only here, on first use)."""
    from google.adk.models.lite_llm import LiteLLMClient

    class OpeningCallClient(LiteLLMClient):
        async def acompletion(self, model: Any, messages: Any, tools: Any, **kwargs: Any) -> Any:
            if kwargs.get("response_format") is None:
                found = opening_format(messages, tools)
                if found is not None:
                    kwargs["response_format"] = found
            return await super().acompletion(model, messages, tools, **kwargs)

    return OpeningCallClient()
