"""The desk as the evaluation harness sees it: the one module a team adds to its agent."""

from __future__ import annotations

from agentport import AgentPort

from .seed import entities, load_seed, normalise
from .state import STATE
from .tools import TOOLS

PORT = AgentPort(
    name="ticket_desk",
    instruction_at="ticket_desk.prompt:INSTRUCTION",
    tools=lambda: TOOLS.tools,
    build="ticket_desk.agent:build_agent",
    load_seed=load_seed,
    entities=entities,
    normalise=normalise,
    state=STATE,
)
