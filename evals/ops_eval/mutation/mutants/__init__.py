"""Deterministic mutants of the agent, declared once each (see `base`: what a mutant is, and the
registry), one module per kind: the ops copilot's tools' (`tools`), its guards' and write
policy's (`guards`), the instruction's (`instruction`, played live), and any agent's through its
port (`port`); `for_agents` picks the ones a set's agents have.

May import: `agents` (the adapter: the ops copilot's modules the mutants patch, and any
agent's port) and `validation.gate_config` (`MUTANTS`, the names the registry must hold).
"""

from .base import OWN_AGENTS, Mutant, registered
from .port import for_agents

__all__ = ["OWN_AGENTS", "Mutant", "for_agents", "registered"]
