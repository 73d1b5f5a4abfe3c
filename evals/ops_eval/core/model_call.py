"""What a model call carries besides its content, shared by the session that reads it and the
models that write it: ADK's confirmation call, the metadata key naming the server that answered,
and which trial turn the call belongs to."""

from __future__ import annotations

import contextvars

CONFIRMATION = "adk_request_confirmation"
SERVER_KEY = "ops_eval_server"
"""The `custom_metadata` key of a model response (and so of its session event, into which ADK
copies it) that names the server which answered it: set by a routed model (`models.router`),
read per model event by `server_of_event`."""

# What the model call being made belongs to ("case X, turn N"), for recordings and replay misses.
LABEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("label", default=None)
