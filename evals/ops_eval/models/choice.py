"""What model selection hands a run: the model, its name and why it was chosen; and the probe
that tells whether an endpoint answers."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROBE_TIMEOUT_S = 1.5
REPLAY_PREFIX = "replay:"  # a model setting `replay:FILE` answers from a recording
ROUTER_PREFIX = "router:"  # `router:FILE`: a LiteLLM Router over several servers (`router.py`)

Say = Callable[[str], None]


class ModelUnavailable(RuntimeError):
    """The model cannot be reached or started (exit code 3)."""


@dataclass
class ModelChoice:
    model: Any  # what LlmAgent(model=...) takes
    name: str
    source: str  # --model | OPS_AGENT_MODEL | ollama | embedded | replay | fixed
    reason: str
    caveat: str | None = None
    endpoint: str | None = None
    parallel: int | None = None
    """How many conversations the model serves at once to advantage; None: no known limit."""
    agent_env: dict[str, str] | None = None
    """The settings under which the agent package reaches this model by itself (what `adk run`
    and `adk web` are given); None when it cannot (a recording, a test model)."""

    def described(self) -> dict[str, str | None]:
        """What a run record keeps of the choice (`records.ModelInfo`)."""
        return {
            "name": self.name,
            "source": self.source,
            "reason": self.reason,
            "caveat": self.caveat,
            "endpoint": self.endpoint,
        }

    def banner(self) -> list[str]:
        lines = [f"model: {self.name} ({self.reason})"]
        if self.caveat:
            lines.append(f"note:  {self.caveat}")
        return lines


def public_url(url: str | None) -> str | None:
    """A URL as a record, a pin or a message shows it: a user and password, a query and a
    fragment are left out (credentials, and keys passed as parameters, are not the server's
    identity), and so is a port that does not parse."""
    if not url:
        return url
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:  # an unbalanced [ in the host
        return "(a URL that does not parse)"
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def probe(
    url: str, timeout: float = PROBE_TIMEOUT_S, headers: dict[str, str] | None = None
) -> tuple[bool, str]:
    """(answered with 200, body or the reason it did not)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status == 200, response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
        return False, str(getattr(exc, "reason", exc))
