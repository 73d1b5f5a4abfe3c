"""An agent's port by name: `<name>.port` is imported and its `PORT` checked once, so a typo in
an eval set or `--agent` is one line naming the agent, never a traceback.

`AGENTS` is the ports loaded so far, the default agent's first: what a rule over "every agent"
(a set-level contract, the leak index) reads. The validator loads the port of every case's agent
before those rules run.

`--agent NAME` (`chosen`) makes NAME the agent of every case that names none, for the one
command it was given to; a case that names another agent is then refused (`CaseMeta`), since its
tools and references were written for that one.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from agentport import AgentPort

DEFAULT_AGENT = "ops_copilot"


class UnknownAgent(ValueError):
    """A name that is not an importable package declaring an agent port."""


_PORTS: dict[str, AgentPort] = {}
_SEEDS: dict[str, Any] = {}
_LOCK = threading.RLock()
_CHOSEN: list[str] = []  # `--agent`'s name while its command runs (process-wide: trials play
# on threads of their own, which a context variable would not reach)


def chosen_agent() -> str | None:
    """The agent `--agent` chose for the command running now; None when it chose none."""
    return _CHOSEN[-1] if _CHOSEN else None


def case_agent(name: str) -> str:
    """`name` as a case's agent: a package declaring a port, and `--agent`'s when it chose one;
    else `UnknownAgent` (a ValueError: the validator reports it on `meta.agent`)."""
    port(name)
    picked = chosen_agent()
    if picked is not None and name != picked:
        raise UnknownAgent(
            f"the case is for agent {name!r}, and --agent chose {picked!r} "
            "(drop --agent, or run a set written for that agent)"
        )
    return name


def default_agent() -> str:
    """The agent of a case that names none: `--agent`'s, else the project's (`DEFAULT_AGENT`)."""
    return chosen_agent() or DEFAULT_AGENT


@contextmanager
def chosen(name: str | None) -> Iterator[None]:
    """`--agent NAME` for the block (no choice for None); `UnknownAgent` when NAME declares no
    port, before anything is read."""
    if name is None:
        yield
        return
    port(name)
    _CHOSEN.append(name)
    try:
        yield
    finally:
        _CHOSEN.pop()


def port(name: str) -> AgentPort:
    """The port `name` declares; `UnknownAgent` (one line) when it declares none."""
    found = _PORTS.get(name)
    if found is not None:
        return found
    if not name.isidentifier():
        raise UnknownAgent(f"agent {name!r}: not a Python package name")
    try:
        module = importlib.import_module(f"{name}.port")
    except ModuleNotFoundError as exc:
        if exc.name not in (name, f"{name}.port"):
            raise
        raise UnknownAgent(
            f"agent {name!r}: no package {name!r} with a `port` module on the path "
            "(see docs/your-agent.md)"
        ) from None
    declared = getattr(module, "PORT", None)
    if not isinstance(declared, AgentPort):
        raise UnknownAgent(f"agent {name!r}: {name}.port.PORT is not an agentport.AgentPort")
    if declared.name != name:
        raise UnknownAgent(f"agent {name!r}: its port is named {declared.name!r}")
    with _LOCK:
        return _PORTS.setdefault(name, declared)


def seed_for(name: str, run_seed: Any) -> Any:
    """The seed agent `name` plays over: `run_seed` (the run's `--seed`, the default agent's)
    for every agent that loads its seed as the default agent does (the ops copilot and the
    triage agent share one), else the agent's own default seed, loaded once."""
    loader = port(name).load_seed
    if loader is port(DEFAULT_AGENT).load_seed:
        return run_seed
    with _LOCK:
        if name not in _SEEDS:
            _SEEDS[name] = loader(None)
        return _SEEDS[name]


class _Loaded(Mapping[str, AgentPort]):
    """name -> port: any agent by name (loaded on first use); iterating gives the default agent
    and every agent loaded so far."""

    def __getitem__(self, name: str) -> AgentPort:
        try:
            return port(name)
        except UnknownAgent as exc:
            raise KeyError(name) from exc

    def __contains__(self, name: object) -> bool:
        try:
            return isinstance(name, str) and bool(port(name))
        except UnknownAgent:
            return False

    def __iter__(self) -> Iterator[str]:
        port(DEFAULT_AGENT)
        port(default_agent())
        return iter(list(_PORTS))

    def __len__(self) -> int:
        return len(list(iter(self)))


AGENTS: Mapping[str, AgentPort] = _Loaded()
