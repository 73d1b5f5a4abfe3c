"""An HTTP proxy for tests that records every JSON request and response passing through it:
what a model server really receives, and what it answers."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextlib.contextmanager
def recording_proxy(
    upstream: str, reply_cap: int | None = None
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(the proxy's base URL, the exchanges so far: {"path", "request", "status", "response"})
    for an `upstream` base URL such as http://127.0.0.1:8080/v1. `reply_cap`: the upstream is
    asked for replies of at most that many tokens (a test's time bound on a model that would
    write to its context), while the exchange records the request as the client sent it."""
    exchanges: list[dict[str, Any]] = []
    root = upstream.rstrip("/").rsplit("/v1", 1)[0]

    class Handler(BaseHTTPRequestHandler):
        def _forward(self, body: bytes | None) -> None:
            sent = body
            if body and reply_cap is not None:
                capped = json.loads(body)
                capped["max_tokens"] = min(capped.get("max_tokens") or reply_cap, reply_cap)
                sent = json.dumps(capped).encode()
            request = urllib.request.Request(
                root + self.path, data=sent, method=self.command,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            try:
                with urllib.request.urlopen(request, timeout=600) as response:  # noqa: S310
                    status, data = response.status, response.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            if body:
                exchanges.append({
                    "path": self.path, "request": json.loads(body), "status": status,
                    "response": json.loads(data or b"null"),
                })  # fmt: skip
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._forward(None)

        def do_POST(self) -> None:  # noqa: N802
            self._forward(self.rfile.read(int(self.headers["Content-Length"])))

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", exchanges
    finally:
        server.shutdown()
