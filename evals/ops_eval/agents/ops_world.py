"""The ops copilot's world, for the harness parts built on it: its seed (the entity kinds, ids
and their normal form, the 'did you mean' match), its tool tables and instruction, the approval's
text rules. Light: no ADK import.

Only this adapter imports the agent packages; the harness parts that read these are the ones a
port cannot serve another agent with (docs/your-agent.md, "What needs which declaration").
"""

from ops_copilot.definition import tool_specs, write_tools
from ops_copilot.prompt import INSTRUCTION
from ops_copilot.seed.loading import (
    ENTITY_KINDS,
    EntityKind,
    Seed,
    SeedError,
    closest,
    default_seed,
    load_seed,
    normalise,
)
from ops_copilot.tools.approval import (
    APPROVER_MAX_CHARS,
    NOTHING_CHANGED,
    RATIONALE_MAX_CHARS,
    Approval,
    normalise_text,
    rationale_problem,
    visible_chars,
)

__all__ = [
    "APPROVER_MAX_CHARS", "ENTITY_KINDS", "INSTRUCTION", "NOTHING_CHANGED", "RATIONALE_MAX_CHARS",
    "Approval", "EntityKind", "Seed", "SeedError", "closest", "default_seed",
    "load_seed", "normalise", "normalise_text", "rationale_problem", "tool_specs", "visible_chars",
    "write_tools",
]  # fmt: skip
