"""One approval acts at most once, whatever arrives at the same time: the same confirmation
answer submitted twice or three times at once (a double-click, a client's retry) through the
real ADK runner, for every write kind that waits for an approval."""

from __future__ import annotations

import asyncio

import pytest
from write_calls import LOGS, WRITES

from ops_copilot.agent import build_agent
from ops_eval import AgentSession
from ops_eval.models.stand_ins import ScriptedLlm
from support import run

APPROVE = {"rationale": "Matches the pool alert in the logs.", "approver": "alice"}


def _submit_at_once(workspace, write, times: int):
    """Pause `write` for approval, then send the same approving answer `times` times at once."""
    model = ScriptedLlm(script=[LOGS, write, *(["Done."] * times)])

    async def scenario():
        async with AgentSession(build_agent(model), workspace) as session:
            paused = await session.send("Check the database logs, then act.")
            (pending,) = paused.pending
            assert pending.call.name == write.name
            return await asyncio.gather(
                *(
                    session.answer_confirmation(pending, confirmed=True, payload=APPROVE)
                    for _ in range(times)
                )
            )

    return run(scenario())


@pytest.mark.parametrize("times", [2, 3])
@pytest.mark.parametrize("tool", sorted(WRITES))
def test_an_approval_submitted_several_times_at_once_acts_once(workspace, tool, times):
    turns = _submit_at_once(workspace, WRITES[tool], times)
    snapshot = workspace.store.snapshot()
    written = snapshot.notes if tool == "save_incident_note" else snapshot.audit
    assert written == 1, f"{times} submits of one approval wrote {written} rows"
    results = [r.response for t in turns for r in t.tool_results if r.name == tool]
    applied = [r for r in results if r.get("status") == "ok"]
    assert len(applied) == 1, results
    # the others are told it was done: by this approval, or (a resolution) already resolved
    others = [r.get("reason") for r in results if r not in applied]
    assert len(others) == times - 1 and set(others) <= {"already_applied", "already_resolved"}
    assert workspace.store.verify().ok
