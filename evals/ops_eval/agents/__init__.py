"""The adapter: the one place the harness reaches an agent under test, through the port the
agent's package declares (`agentport.AgentPort`, exported as `<package>.port:PORT`).

An eval case names its agent (`meta.agent`), `--agent` names one for a command; the name is a
Python package on the path, so a team's own ADK agent needs no change here. Parts of the harness
built for one agent's own capabilities (the ops copilot's guards, claims reader and store, which
the red team, `grounded`, `facts` and the guard mutants read) reach them here too.

Holds:
- `ports`: finding, checking and caching an agent's port by name (`port`, `AGENTS`,
  `UnknownAgent`, `DEFAULT_AGENT`), `--agent`'s choice (`chosen`, `chosen_agent`,
  `default_agent`, `case_agent`), and the seed each agent plays over (`seed_for`).
- The ops copilot's own parts, for the harness parts built on them, one facade a concern:
  `ops_world` (seed, tool tables, instruction, approval text),
  `ops_state` (the state store and write policy), `ops_guards` (spotlighting, claims, copies,
  links, the answer guard, provenance), `ops_writes` (the write tools' argument rules),
  `ops_agent` (the ADK agent and the modules its own mutants patch; loads ADK).
- `project`: the process's settings and the model route, which live in the ops copilot's
  package and which the harness's model selection shares.

May import: agentport and the agent packages (only this package may); nothing of the harness.
"""

from typing import Any

from .ports import (
    AGENTS,
    DEFAULT_AGENT,
    UnknownAgent,
    case_agent,
    chosen,
    chosen_agent,
    default_agent,
    port,
    seed_for,
)

__all__ = [
    "AGENTS", "DEFAULT_AGENT", "UnknownAgent", "case_agent", "chosen", "chosen_agent",
    "default_agent", "load_seed", "port", "seed_for",
]  # fmt: skip


def __getattr__(name: str) -> Any:  # noqa: N807
    """`load_seed`, the ops copilot's seed (`ops-eval seed` prints it), loaded on first use."""
    if name == "load_seed":
        from .ops_world import load_seed

        return load_seed
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
