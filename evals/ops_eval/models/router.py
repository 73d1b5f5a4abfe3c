"""Several servers of one model, one run: a LiteLLM Router behind ADK's LiteLlm (`router:FILE`).

FILE is the part of LiteLLM's own proxy/Router configuration that says where one model is
served -- a user who load-balances through LiteLLM already has it:

    model_list:
      - model_name: smollm2                       # every entry: the same model
        litellm_params:
          model: openai/smollm2-135m-instruct     # a LiteLLM provider prefix, as for --model
          api_base: http://10.0.0.5:8080/v1
          api_key: os.environ/LLAMA_KEY           # optional; the variable must be set
        model_info: {id: gpu-a}                   # optional: the server's name in the record
      - model_name: smollm2
        litellm_params: {model: openai/smollm2-135m-instruct, api_base: http://10.0.0.6:8080/v1}
    router_settings:                              # optional, each key optional
      routing_strategy: least-busy
      num_retries: 2
      allowed_fails: 0
      cooldown_time: 5
      timeout: 120

Every model call ADK makes goes through `Router.acompletion` with the request ADK would send to
one server (`RouterClient`, plugged into LiteLlm's `llm_client`). Measured with LiteLLM 1.96.2:
a refused connection, a dropped connection and a 5xx all come back as a retryable error, and a
server is cooled down (left out of the choice) synchronously in the failure callback, before
the retry picks a server -- but only once its failures exceed `allowed_fails` (LiteLLM's own
default, 3 a minute, let a call fail 1 time in 40 with one of two servers dead). So, unless
the file says otherwise: `allowed_fails` 0 (the first failure cools a server down),
`cooldown_time` 5 s (LiteLLM's default: a dead server costs one refused connection per 5 s,
and a server that answered one request with a 500 is back soon), and `num_retries` one per
server (every server can be tried; when none is left to try LiteLLM stops at once).

Which server answered each call is carried on the response (`SERVER_KEY` in its
`custom_metadata`, which ADK copies into the session's event) and read back per model event
(`play.py`), so the run record says which server answered every model call.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any, ClassVar

from ..agents.project import ModelConfigError
from ..base.exits import one_line
from ..core.model_call import SERVER_KEY
from .choice import ROUTER_PREFIX, ModelChoice, ModelUnavailable, Say, probe
from .router_file import RouterSpec, Server, load_router, shown_url

__all__ = ["RouterSpec", "Server", "load_router", "router_model", "server_of"]


# Per model call: the servers that answered it (one). Set by RoutedLlm in the context the call
# runs in, appended to by RouterClient in that same context (a coroutine awaited directly shares
# its caller's context), read back by RoutedLlm before it yields the response.
_ANSWERED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "answered_by", default=None
)


def server_of(response: Any) -> str | None:
    """The server a Router response came from: the deployment id LiteLLM reports (the server's
    name, as `build_router` gives every deployment one), else its base URL without credentials."""
    hidden = getattr(response, "_hidden_params", None) or {}
    found = hidden.get("model_id")
    if found:
        return str(found)
    base = hidden.get("api_base")
    return shown_url(str(base)) if base else None


def build_router(spec: RouterSpec) -> Any:
    """LiteLLM's Router over the servers, each deployment named by its server's name."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import logging

    import litellm

    model_list = []
    for server in spec.servers:
        params: dict[str, Any] = {"model": server.model, "api_base": server.api_base}
        if server.api_key is not None:
            params["api_key"] = server.api_key
        elif server.model.startswith("openai/"):
            params["api_key"] = "not-needed"  # LiteLLM insists on a key the server may ignore
        info = {"id": server.name}  # what the response reports as its `model_id`
        model_list.append(
            {"model_name": spec.model_name, "litellm_params": params, "model_info": info}
        )
    # Each deployment is registered in LiteLLM's price map, with a warning per model it has no
    # price for (a local server's, always): noise on the run's stderr, said once per server.
    quiet = logging.getLogger("LiteLLM")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        return litellm.Router(
            model_list=model_list, routing_strategy=spec.strategy, **spec.settings
        )
    finally:
        quiet.setLevel(level)


@functools.cache
def _client_class() -> type:
    from google.adk.models.lite_llm import LiteLLMClient

    class RouterClient(LiteLLMClient):
        """LiteLlm's client with `Router.acompletion` in place of `litellm.acompletion`: the
        request ADK built for one server goes to the Router's model group instead."""

        def __init__(self, router: Any, model_name: str) -> None:
            self.router = router
            self.model_name = model_name

        async def acompletion(self, model: Any, messages: Any, tools: Any, **kwargs: Any) -> Any:
            response = await self.router.acompletion(
                model=self.model_name, messages=messages, tools=tools, **kwargs
            )
            box = _ANSWERED.get()
            server = server_of(response)
            if box is not None and server is not None:
                box.append(server)
            return response

        def completion(
            self, model: Any, messages: Any, tools: Any, stream: bool = False, **kwargs: Any
        ) -> Any:
            return self.router.completion(
                model=self.model_name, messages=messages, tools=tools, stream=stream, **kwargs
            )

    return RouterClient


@functools.cache
def _llm_class() -> type:
    from google.adk.models.lite_llm import LiteLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse

    class RoutedLlm(LiteLlm):
        """ADK's LiteLlm over a Router; each response says which server answered it
        (`custom_metadata[SERVER_KEY]`, which ADK copies into the session's event)."""

        names_its_server: ClassVar[bool] = True
        """Read by `play.py`: this model's events say which server answered them."""

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            box: list[str] = []
            _ANSWERED.set(box)
            async for response in super().generate_content_async(llm_request, stream=stream):
                if box:
                    metadata = dict(response.custom_metadata or {})
                    metadata[SERVER_KEY] = box[-1]
                    response.custom_metadata = metadata
                yield response

    return RoutedLlm


def routed_llm(spec: RouterSpec, router: Any) -> Any:
    """ADK's model for `LlmAgent(model=...)`: requests shaped for the model every server
    serves (a router file is one model), sent through the Router."""
    client = _client_class()(router, spec.model_name)
    return _llm_class()(model=spec.servers[0].model, llm_client=client)


def _probe(server: Server) -> tuple[str, dict[str, str] | None]:
    """The URL that says whether `server` answers, and its key as a bearer token."""
    base = server.api_base.rstrip("/")
    ollama = server.model.startswith(("ollama/", "ollama_chat/"))
    url = f"{base}/api/tags" if ollama else f"{base}/models"
    return url, ({"Authorization": f"Bearer {server.api_key}"} if server.api_key else None)


def preflight(spec: RouterSpec, say: Say) -> list[str]:
    """Probe every server; ModelUnavailable naming each and why when none answers; else one
    line per server that did not (the run goes on: the Router leaves a server out once it
    fails), which is also returned."""
    down = []
    for server in spec.servers:
        url, headers = _probe(server)
        ok, detail = probe(url, headers=headers)
        if not ok:
            down.append(one_line(f"{server.label()}: {detail}"))
    if len(down) == len(spec.servers):
        raise ModelUnavailable(f"no server of {spec.path} answers: {'; '.join(down)}")
    for line in down:
        say(f"router: a server does not answer, the others serve the run: {line}")
    return down


@contextlib.contextmanager
def router_model(value: str, source: str, say: Say) -> Iterator[ModelChoice]:
    """The model for `router:FILE`: the file read, every server probed, the Router built, and
    its callbacks unhooked from LiteLLM's global lists on the way out."""
    file = value[len(ROUTER_PREFIX) :].strip()
    if not file:
        raise ModelConfigError(f"{source}: router: needs a configuration file (router:FILE)")
    spec = load_router(Path(file))
    down = preflight(spec, say)
    router = build_router(spec)
    try:
        yield ModelChoice(
            model=routed_llm(spec, router),
            # the model every server serves, as a run on one of them names it: merge and the
            # gate compare runs by it (the file's model_name is only an alias for the group)
            name=spec.servers[0].model,
            source=source,
            reason=f"from {source} {value.strip()}: a LiteLLM Router over {spec.summary()}",
            caveat=(
                f"{len(down)} of {len(spec.servers)} server(s) did not answer before the run: "
                f"{'; '.join(down)}"
                if down
                else None
            ),
            endpoint=", ".join(s.label() for s in spec.servers),
        )
    finally:
        router.discard()
