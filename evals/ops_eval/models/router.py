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
import types
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ops_copilot.model import PROVIDER_PREFIX, ModelConfigError

from ..base.exits import one_line
from ..playing.session import SERVER_KEY
from .choice import ROUTER_PREFIX, ModelChoice, ModelUnavailable, Say, probe, public_url

__all__ = ["RouterSpec", "Server", "load_router", "router_model", "server_of"]

ENV_PREFIX = "os.environ/"  # LiteLLM's way of naming a key held in an environment variable
DEFAULT_ALLOWED_FAILS = 0
DEFAULT_COOLDOWN_S = 5.0

Text = Annotated[str, StringConstraints(min_length=1)]


class _Strict(BaseModel):
    # strict: YAML's own types, no "3" read as a number, no `yes` as a count
    model_config = ConfigDict(extra="forbid", strict=True)


class LitellmParams(_Strict):
    model: Text
    """A LiteLLM model string with its provider prefix (`openai/<name>`, `ollama_chat/<tag>`)."""
    api_base: Text
    """The server's base URL, http(s)."""
    api_key: str | None = None
    """A key, or `os.environ/VAR` (then VAR must be set); never written to a record."""


class DeploymentInfo(_Strict):
    id: Text | None = None
    """The server's name in the record and the summary; default: its api_base without
    credentials."""


class Deployment(_Strict):
    model_name: Text
    litellm_params: LitellmParams
    model_info: DeploymentInfo | None = None


RoutingStrategy = Literal[
    # the strategies of LiteLLM 1.96.2 that mean something for servers of one model;
    # cost-based (one price), usage-based v1 (deprecated) and lar1 (routes by the agent's
    # stated confidence) do not
    "simple-shuffle",
    "least-busy",
    "latency-based-routing",
    "usage-based-routing-v2",
]


class RouterSettings(_Strict):
    """The Router settings a run honours; unset ones get this module's defaults."""

    routing_strategy: RoutingStrategy = "simple-shuffle"  # LiteLLM's own default
    num_retries: Annotated[int, Field(ge=0)] | None = None
    allowed_fails: Annotated[int, Field(ge=0)] | None = None
    cooldown_time: Annotated[float, Field(ge=0)] | None = None
    timeout: Annotated[float, Field(gt=0)] | None = None
    retry_after: Annotated[int, Field(ge=0)] | None = None


class RouterFile(_Strict):
    model_list: Annotated[list[Deployment], Field(min_length=1)]
    router_settings: RouterSettings = RouterSettings()


@dataclass(frozen=True)
class Server:
    """One deployment: its name (record, summary), its base URL as shown (no credentials), and
    what LiteLLM needs to reach it."""

    name: str
    shown: str
    model: str
    api_base: str = field(repr=False)
    api_key: str | None = field(default=None, repr=False)

    def label(self) -> str:
        return self.name if self.name == self.shown else f"{self.name} ({self.shown})"


@dataclass(frozen=True)
class RouterSpec:
    """A router file, read and checked: one model name, its servers, the Router's settings."""

    path: Path
    model_name: str
    servers: tuple[Server, ...]
    strategy: str
    settings: dict[str, Any]
    """Router(...) keywords besides model_list and routing_strategy, defaults applied."""

    def summary(self) -> str:
        s = self.settings
        return (
            f"{len(self.servers)} server(s) of {self.model_name} from {self.path}, "
            f"{self.strategy}, {s['num_retries']} retries, a server cooled down for "
            f"{s['cooldown_time']:g} s after {s['allowed_fails'] + 1} failure(s)"
        )


def _where(loc: tuple[Any, ...]) -> str:
    """`model_list[1].litellm_params.api_base` from pydantic's location tuple."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that holds the field at `loc` (to list its keys beside an unknown one)."""
    current: Any = RouterFile
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(part)
        if info is None:
            return None
        current = _unwrap(info.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """list[X], X | None, Annotated[X, ...] -> X."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (list, Union, types.UnionType):
            inner = [a for a in get_args(annotation) if a is not type(None)]
            annotation = inner[0]
        else:
            return annotation


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    where = _where(loc)
    if error["type"] == "extra_forbidden":
        holder = _model_at(loc[:-1])
        allowed = f" (allowed: {', '.join(holder.model_fields)})" if holder else ""
        return f"{where}: unknown key{allowed}"
    if error["type"] == "missing":
        return f"{where}: missing"
    got = error.get("input")
    plain = isinstance(got, str | int | float | bool) and loc[-1:] != ("api_key",)  # a secret
    shown = f" (got {got!r:.60})" if plain else ""
    return f"{where}: {error['msg']}{shown}" if where else f"{error['msg']}{shown}"


def _problem(data: RouterFile) -> str | None:
    """What no field check sees: a bad URL, a model without a provider, a key variable unset,
    entries that are not one model, two entries naming one server."""
    first = data.model_list[0]
    names: dict[str, int] = {}
    for i, entry in enumerate(data.model_list):
        params = entry.litellm_params
        at = f"model_list[{i}]"
        for where, text in (("model_name", entry.model_name), ("model_info.id", _id(entry))):
            if text is not None and not text.isprintable():
                return f"{at}.{where}: {text!r} holds a control character"
        shown = _shown(params.api_base)  # never the credentials or query a URL may carry
        if params.api_base.split(":", 1)[0].lower() not in ("http", "https"):
            return f"{at}.litellm_params.api_base: {shown!r} must start with http:// or https://"
        bad = _url_problem(params.api_base)
        if bad:
            return f"{at}.litellm_params.api_base: {shown!r} {bad}"
        if any(ch.isspace() for ch in params.model) or not PROVIDER_PREFIX.match(params.model):
            return (
                f"{at}.litellm_params.model: {params.model!r} needs a LiteLLM provider prefix "
                "(openai/<name>, ollama_chat/<tag>)"
            )
        key = params.api_key or ""
        if key.startswith(ENV_PREFIX) and not os.environ.get(key[len(ENV_PREFIX) :]):
            return f"{at}.litellm_params.api_key: {key} is not set"
        if entry.model_name != first.model_name:
            return (
                f"{at}.model_name: {entry.model_name!r} is not {first.model_name!r} "
                "(model_list[0]): a router file lists the servers of one model"
            )
        if params.model != first.litellm_params.model:
            return (
                f"{at}.litellm_params.model: {params.model!r} is not "
                f"{first.litellm_params.model!r} (model_list[0]): a router file lists the "
                "servers of one model"
            )
        name = _name(entry)
        if name in names:
            given_id = entry.model_info is not None and entry.model_info.id is not None
            field_ = "model_info.id" if given_id else "litellm_params.api_base"
            return (
                f"{at}.{field_}: server {name!r} is model_list[{names[name]}]'s too "
                "(each server once, or a distinct model_info.id)"
            )
        names[name] = i
    return None


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be reached as written (a space, a bad port, no host), or None."""
    from urllib.parse import urlsplit

    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return "holds a space or a control character"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"is not a URL ({exc})"
    try:
        parts.port  # noqa: B018 -- parsing the port is the check
    except ValueError as exc:
        port = parts.netloc.rsplit("@", 1)[-1].rsplit(":", 1)[-1]
        return f"is not a URL: port {port!r} ({exc})"
    if parts.username is not None:  # measured: LiteLLM's call then fails ("Connection error")
        return (
            "carries a user or password, which LiteLLM does not send: give the key as "
            "litellm_params.api_key (os.environ/VAR)"
        )
    host = parts.hostname
    if not host:
        return "names no host"
    try:  # what the connection will need of the name (a bad one would read as a dead server)
        if "%" in host:
            raise UnicodeError
        host.encode("idna")
    except UnicodeError:
        return f"names a host that is no valid host name ({host[:80]!r})"
    return None


def _id(entry: Deployment) -> str | None:
    return entry.model_info.id if entry.model_info else None


def _shown(url: str) -> str:
    """A base URL as the record and banner show it: credentials in it are not its identity."""
    return public_url(url) or url


def _name(entry: Deployment) -> str:
    if entry.model_info and entry.model_info.id:
        return entry.model_info.id
    return _shown(entry.litellm_params.api_base)


def _key(value: str | None) -> str | None:
    if value is not None and value.startswith(ENV_PREFIX):
        return os.environ[value[len(ENV_PREFIX) :]]
    return value


def load_router(path: Path) -> RouterSpec:
    """Read and check a router file; ModelConfigError, one line naming the file and the field,
    for anything it cannot run."""
    from ops_copilot.textfiles import TextFileError, load_yaml

    where = str(path)
    try:
        raw = load_yaml(path)
    except TextFileError as exc:
        raise ModelConfigError(f"{where}: {exc}") from None
    if not isinstance(raw, dict):
        raise ModelConfigError(
            f"{where}: not a LiteLLM router configuration (the top level is not a mapping "
            "with model_list)"
        )
    try:
        data = RouterFile.model_validate(raw)
    except ValidationError as exc:
        raise ModelConfigError(one_line(f"{where}: {_first_problem(exc)}")) from None
    problem = _problem(data)
    if problem:  # a name from the file may hold a line break: the message stays one line
        raise ModelConfigError(one_line(f"{where}: {problem}"))
    servers = tuple(
        Server(
            name=_name(e),
            shown=_shown(e.litellm_params.api_base),
            model=e.litellm_params.model,
            api_base=e.litellm_params.api_base,
            api_key=_key(e.litellm_params.api_key),
        )
        for e in data.model_list
    )
    given = data.router_settings
    settings: dict[str, Any] = {
        "num_retries": len(servers),
        "allowed_fails": DEFAULT_ALLOWED_FAILS,
        "cooldown_time": DEFAULT_COOLDOWN_S,
    }
    settings.update(given.model_dump(exclude={"routing_strategy"}, exclude_none=True))
    return RouterSpec(
        path=path,
        model_name=data.model_list[0].model_name,
        servers=servers,
        strategy=given.routing_strategy,
        settings=settings,
    )


# -- which server answered ----------------------------------------------------------------------

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
    return _shown(str(base)) if base else None


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
