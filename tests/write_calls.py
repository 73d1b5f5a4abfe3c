"""The writes that wait for a human approval once a session has read logs, and the log read that
makes the note wait too (imported by name; see support.py)."""

from __future__ import annotations

import asyncio

from ops_eval import AgentSession, ToolCall

LOGS = ToolCall("search_service_logs", {"service": "database", "query": "pool"})
WRITES = {
    "save_incident_note": ToolCall(
        "save_incident_note", {"incident_id": "INC-008", "note": "Pool exhausted at 10:05."}
    ),
    "restart_service": ToolCall("restart_service", {"name": "inventory"}),
    "resolve_incident": ToolCall("resolve_incident", {"incident_id": "INC-002"}),
}

RESOLVE = WRITES["resolve_incident"]
APPROVE = {"rationale": "Memory limit raised; no OOM kills since.", "approver": "alice"}


def resolve_approved(workspace) -> dict:
    """One session through the real runner: a scripted model asks to resolve INC-002, a human
    approves it; the tool's result."""
    from ops_copilot.agent import build_agent
    from ops_eval.models.stand_ins import ScriptedLlm

    model = ScriptedLlm(script=[RESOLVE, "Done."])

    async def scenario():
        async with AgentSession(build_agent(model), workspace) as session:
            paused = await session.send("Resolve INC-002.")
            (pending,) = paused.pending
            return await session.answer_confirmation(pending, confirmed=True, payload=APPROVE)

    turn = asyncio.run(scenario())
    (result,) = [r.response for r in turn.tool_results if r.name == RESOLVE.name]
    return result
