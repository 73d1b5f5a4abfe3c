"""A chat handler for llama-cpp-python's server that does OpenAI tool calling the way OpenAI
servers do, for ChatML models such as the embedded SmolLM2. Loaded only inside the embedded
server process (`llama_server`).

What llama-cpp-python's own `chatml-function-calling` gets wrong, measured here:
- it ignores `tools` unless the request names a `tool_choice`, where OpenAI (and Ollama, vLLM)
  default to "auto" whenever tools are present -- so the model never saw a tool;
- its template reads `content` of an assistant message that carries `tool_calls`, which OpenAI
  clients (LiteLLM among them) leave out -- so the second request of any tool exchange failed;
- it does not render `tool` messages at all -- so the model never saw a tool's result;
- it shows each tool's parameters but not its description.

This handler fixes all four, so the request LiteLLM sends stays exactly what it would send to
Ollama or vLLM. Tool calls are constrained by grammars: first the choice between a message and a
known tool, then the arguments by the tool's JSON schema, so a call parses unless the token
limit cuts it short.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from llama_cpp import llama_grammar

MAX_CALLS_PER_TURN = 3  # the model may call several tools in one answer, not without end
DEFAULT_MAX_TOKENS = 256  # a message or one call's arguments, when the request sets no limit
END = "<|im_end|>"


def _block(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}{END}\n"


def _tools_text(tools: list[dict[str, Any]]) -> str:
    lines = [
        "",
        "You can call tools. To call one or more tools, answer with, for each call:",
        "functions.<tool name>:",
        '{"argument": "value"}',
        "To answer the user instead, begin your answer with:",
        "message:",
        "Call a tool only for information you do not have yet. Once a tool has returned what "
        "the user asked for, answer with message: and do not call it again.",
        "",
        "Tools:",
    ]
    for tool in tools:
        fn = tool.get("function", {})
        lines.append(f"functions.{fn.get('name')}: {fn.get('description', '').strip()}")
        lines.append(f"parameters: {json.dumps(fn.get('parameters') or {})}")
    return "\n".join(lines)


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """The ChatML prompt: tools described in the system block, calls and results in the turns."""
    names: dict[str, str] = {}  # tool call id -> tool name, to label each result
    out = []
    system_done = False
    for message in messages:
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else _text_parts(content)
        if role == "system":
            described = _tools_text(tools) if tools and not system_done else ""
            out.append(_block("system", text + described))
            system_done = True
        elif role == "user":
            out.append(_block("user", text))
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            body = [f"message:\n{text}"] if text else []
            for call in calls:
                fn = call.get("function", {})
                names[call.get("id", "")] = fn.get("name", "")
                body.append(f"functions.{fn.get('name')}:\n{fn.get('arguments') or '{}'}")
            out.append(_block("assistant", "\n".join(body)))
        elif role == "tool":
            name = names.get(message.get("tool_call_id", ""), "tool")
            out.append(_block("tool", f"functions.{name} returned:\n{text}"))
    if tools and not system_done:
        out.insert(0, _block("system", _tools_text(tools).lstrip()))
    return "".join(out) + "<|im_start|>assistant\n"


def _text_parts(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _grammar(text: str) -> Any:
    return llama_grammar.LlamaGrammar.from_string(text, verbose=False)


def _choice_grammar(names: list[str], allow_message: bool, allow_end: bool) -> Any:
    """What may come next: a call of a known tool, a message, or (after a call) the end. The end
    is an empty choice: llama.cpp lets the end-of-generation token through only once the grammar
    is complete, so an end spelt as text could never be chosen."""
    return _grammar(choice_rule(names, allow_message, allow_end))


def choice_rule(names: list[str], allow_message: bool, allow_end: bool) -> str:
    options = [f'"functions.{n}:"' for n in names]
    if allow_message:
        options.append('"message:"')
    return f"root ::= ({' | '.join(options)})" + ("?" if allow_end else "") + "\n"


def _answer_grammar(response_format: Any) -> Any:
    """The grammar of a JSON answer the request asks for; None for free text. The schema's
    property order is kept, so a reply schema can make the model write one field first."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_object":
        return None
    schema = response_format.get("schema")
    if isinstance(schema, dict):
        return llama_grammar.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    return _grammar(llama_grammar.JSON_GBNF)


def _args_grammar(schema: dict[str, Any]) -> Any:
    try:
        return llama_grammar.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    except Exception:  # a schema the converter cannot take: any JSON object will do
        return _grammar(llama_grammar.JSON_GBNF)


def handler(
    llama: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = None,
    functions: list[dict[str, Any]] | None = None,
    function_call: Any = None,
    temperature: float = 0.2,
    max_tokens: int | None = None,
    stream: bool = False,
    stop: Any = None,
    seed: int | None = None,
    response_format: Any = None,
    **sampling: Any,
) -> Any:
    """llama-cpp-python's chat handler signature; returns an OpenAI chat completion. A request
    without tools may constrain its answer with llama-cpp-python's `response_format`:
    `{"type": "json_object"}` for any JSON object, with a `schema` for that schema."""
    if functions and not tools:  # the legacy form
        tools = [{"type": "function", "function": f} for f in functions]
        tool_choice = function_call
        if isinstance(tool_choice, dict) and "name" in tool_choice:
            tool_choice = {"type": "function", "function": {"name": tool_choice["name"]}}
    tools = tools or []
    if tool_choice is None:  # OpenAI's default: "auto" when tools are present
        tool_choice = "auto" if tools else "none"
    limit = max_tokens if max_tokens and max_tokens > 0 else DEFAULT_MAX_TOKENS
    keep = {k: v for k, v in sampling.items() if k in _SAMPLING}

    def complete(prompt: str, grammar: Any = None, tokens: int = limit, stops=(END,)) -> Any:
        return llama.create_completion(
            prompt=prompt,
            temperature=temperature,
            max_tokens=tokens,
            stop=list(stops),
            grammar=grammar,
            seed=seed,
            **keep,
        )

    by_name = {t["function"]["name"]: t["function"] for t in tools if "function" in t}
    prompt = render(messages, tools if tool_choice != "none" else [])
    usage = {"prompt_tokens": 0, "completion_tokens": 0}

    def count(completion: Any) -> str:
        """The completion's text; usage counts the conversation's prompt once (later steps
        extend it, and the server reuses what it already evaluated) and every generated token."""
        got = completion.get("usage", {})
        usage["prompt_tokens"] = usage["prompt_tokens"] or got.get("prompt_tokens", 0)
        usage["completion_tokens"] += got.get("completion_tokens", 0)
        return completion["choices"][0]["text"]

    allowed = list(by_name)
    forced = isinstance(tool_choice, dict)  # exactly one call of the named tool
    if forced:
        name = (tool_choice.get("function") or {}).get("name")
        if name not in by_name:
            raise ValueError(f"tool_choice names {name!r}, which is not among the tools")
        allowed = [name]
    if tool_choice == "none" or not allowed:
        grammar = _answer_grammar(response_format)
        text = count(complete(prompt, grammar)).strip()
        return _response(llama, _strict_json(text) if grammar else text, [], usage, stream)

    calls: list[dict[str, Any]] = []
    allow_message = tool_choice == "auto"
    while len(calls) < (1 if forced else MAX_CALLS_PER_TURN):
        head = count(
            complete(
                prompt,
                _choice_grammar(allowed, allow_message and not calls, bool(calls)),
                tokens=32,
                stops=(),
            )
        )
        if head == "message:":
            text = count(complete(prompt + "message:\n"))
            return _response(llama, text.strip(), [], usage, stream)
        if not head.startswith("functions."):
            break  # the empty choice: the end of a run of calls
        name = head[len("functions.") : -1]
        prompt += f"{head}\n"
        schema = by_name.get(name, {}).get("parameters") or {"type": "object"}
        arguments = count(complete(prompt, _args_grammar(schema), stops=()))
        prompt += f"{arguments}\n"
        calls.append({"name": name, "arguments": _strict_json(arguments)})
    return _response(llama, None, calls, usage, stream)


def _strict_json(text: str) -> str:
    """Arguments, or an answer asked for as JSON, as strict JSON: llama-cpp-python's schema
    grammar lets raw control characters into strings, which JSON (and so every client)
    refuses. The value is unchanged; only its spelling is."""
    try:
        return json.dumps(json.loads(text, strict=False))
    except ValueError:
        return text  # cut short by the token limit: the client reports it


_SAMPLING = {
    "top_p",
    "top_k",
    "min_p",
    "typical_p",
    "presence_penalty",
    "frequency_penalty",
    "repeat_penalty",
    "tfs_z",
    "mirostat_mode",
    "mirostat_tau",
    "mirostat_eta",
    "logits_processor",
}


def _response(
    llama: Any, text: str | None, calls: list[dict[str, Any]], usage: dict[str, int], stream: bool
) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{uuid.uuid4().hex[:24]}",
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in calls
        ]
    finish = "tool_calls" if calls else "stop"
    response = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": getattr(llama, "model_path", "embedded"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]},
    }
    return _as_stream(response) if stream else response


def _as_stream(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The same answer as one chunk, for a client that asked to stream."""
    choice = response["choices"][0]
    delta = dict(choice["message"])
    if "tool_calls" in delta:
        delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(delta["tool_calls"])]
    yield {
        "id": response["id"],
        "object": "chat.completion.chunk",
        "created": response["created"],
        "model": response["model"],
        "choices": [{"index": 0, "delta": delta, "finish_reason": choice["finish_reason"]}],
    }
