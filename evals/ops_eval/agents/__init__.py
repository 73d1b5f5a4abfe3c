"""The adapter: the one place the harness reaches an agent under test, through the port the
agent's package declares (`agentport.AgentPort`, exported as `<package>.port:PORT`).

An eval case names its agent (`meta.agent`), `--agent` names one for a command; the name is a
Python package on the path, so a team's own ADK agent needs no change here. Parts of the harness
built for one agent's own capabilities (the ops copilot's guards, claims reader and store, which
the red team, `grounded`, `facts` and the guard mutants read) reach them here too.

Holds:
- `ports`: finding, checking and caching an agent's port by name (`port`, `AGENTS`,
  `UnknownAgent`, `DEFAULT_AGENT`), and the seed each agent plays over (`seed_for`).

May import: base, agentport, and the agent packages (only this package may).
"""

from .ports import AGENTS, DEFAULT_AGENT, UnknownAgent, port, seed_for

__all__ = ["AGENTS", "DEFAULT_AGENT", "UnknownAgent", "port", "seed_for"]
