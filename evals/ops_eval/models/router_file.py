"""A router file (`router:FILE`): the part of LiteLLM's proxy/Router configuration that says
where one model is served, read strictly into a `RouterSpec` -- the servers, their names, and the
router's settings with this project's defaults (`router` says why those) -- or one line saying
what is wrong with it, where (exit 2).
"""

from __future__ import annotations

import os
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..agents.project import PROVIDER_PREFIX, ModelConfigError
from ..base.exits import one_line
from ..base.strict import Strict
from .choice import public_url

ENV_PREFIX = "os.environ/"  # LiteLLM's way of naming a key held in an environment variable
DEFAULT_ALLOWED_FAILS = 0
DEFAULT_COOLDOWN_S = 5.0

Text = Annotated[str, StringConstraints(min_length=1)]


class _Strict(Strict):
    # strict: YAML's own types, no "3" read as a number, no `yes` as a count
    model_config = ConfigDict(strict=True)


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
        shown = shown_url(params.api_base)  # never the credentials or query a URL may carry
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


def shown_url(url: str) -> str:
    """A base URL as the record and banner show it: credentials in it are not its identity."""
    return public_url(url) or url


def _name(entry: Deployment) -> str:
    if entry.model_info and entry.model_info.id:
        return entry.model_info.id
    return shown_url(entry.litellm_params.api_base)


def _key(value: str | None) -> str | None:
    if value is not None and value.startswith(ENV_PREFIX):
        return os.environ[value[len(ENV_PREFIX) :]]
    return value


def load_router(path: Path) -> RouterSpec:
    """Read and check a router file; ModelConfigError, one line naming the file and the field,
    for anything it cannot run."""
    from opskit.textfiles import TextFileError, load_yaml

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
            shown=shown_url(e.litellm_params.api_base),
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
