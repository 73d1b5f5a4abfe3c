"""A tiny OpenAI-compatible chat server for tests that go through a real HTTP model route
(LiteLLM, `adk web`, `adk run`) without a real model: a scripted stand-in, named as such."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], dict[str, Any]]


def tool_call(name: str, args: dict[str, Any], n: int = 0) -> dict[str, Any]:
    """An assistant message that calls one tool."""
    call = {"id": f"call_{n}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def text(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


@contextlib.contextmanager
def fake_openai(
    reply: Reply, usage: int | None | str = "default"
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(base URL, the requests received); `reply(request)` gives each answer's message.
    `usage`: the total tokens each answer reports (None: no usage at all; default 2)."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})

        def do_POST(self) -> None:  # noqa: N802
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append(request)
            message = reply(request)
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            body = {
                "id": f"chatcmpl-{len(received)}", "object": "chat.completion", "created": 0,
                "model": request.get("model", "fake"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }  # fmt: skip
            if usage is None:
                del body["usage"]
            elif usage != "default":
                body["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": usage}
            self._send(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", received
    finally:
        server.shutdown()


def after_tool_results(first: dict[str, Any], then: dict[str, Any]) -> Reply:
    """`first` until a tool result is in the conversation after the last user message, then
    `then`."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        return then if any(m["role"] == "tool" for m in messages[last_user:]) else first

    return reply
