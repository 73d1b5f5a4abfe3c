"""Fuzz target: answers to one confirmation pause arriving at the same time.

A write waits for approval; then any mix of answers to that one pause -- the same approval sent
again (a double-click, a client's retry), another approver's, a denial, an approval whose
rationale says nothing or that names nobody, a `confirmed` that is only truthy text --
is submitted at once through the real ADK runner. Whatever the mix and the order they are
started in, the write happens at most once: exactly once when at least one answer was a valid
approval, never otherwise; one tool result says it was applied, and the store still verifies.
"""

from __future__ import annotations

import asyncio

from hypothesis import event, given
from hypothesis import strategies as st
from write_calls import LOGS, WRITES

from ops_copilot.agent import build_agent
from ops_copilot.store.workspace import Workspace
from ops_eval import AgentSession
from ops_eval.models.stand_ins import ScriptedLlm
from support import run

ANSWERS = {
    "approve": (True, {"rationale": "Matches the pool alert in the logs.", "approver": "alice"}),
    "approve-bob": (
        True,
        {"rationale": "Seen the same alert on the dashboard.", "approver": "bob"},
    ),
    "deny": (False, None),
    "empty-rationale": (True, {"rationale": "\u200b ok", "approver": "alice"}),
    "no-approver": (True, {"rationale": "Matches the pool alert in the logs."}),
    "confirmed-text": ("true", {"rationale": "Matches the pool alert.", "approver": "alice"}),
}


def _written(workspace: Workspace, tool: str) -> int:
    snapshot = workspace.store.snapshot()
    return snapshot.notes if tool == "save_incident_note" else snapshot.audit


@given(
    tool=st.sampled_from(sorted(WRITES)),
    answers=st.lists(st.sampled_from(sorted(ANSWERS)), min_size=1, max_size=5),
)
def test_answers_arriving_at_once_write_at_most_once(tool, answers):
    workspace = Workspace.fresh()
    model = ScriptedLlm(script=[LOGS, WRITES[tool], *(["Done."] * len(answers))])

    async def scenario():
        async with AgentSession(build_agent(model), workspace) as session:
            (pending,) = (await session.send("Check the database logs, then act.")).pending
            return await asyncio.gather(
                *(
                    session.answer_confirmation(
                        pending, confirmed=ANSWERS[a][0], payload=ANSWERS[a][1]
                    )
                    for a in answers
                )
            )

    turns = run(scenario())
    approvals = sum(a.startswith("approve") for a in answers)
    event(f"{approvals} valid approvals of {len(answers)} answers")
    applied = [
        r.response
        for t in turns
        for r in t.tool_results
        if r.name == tool and r.response.get("status") == "ok"
    ]
    expected = 1 if approvals else 0
    assert _written(workspace, tool) == expected, answers
    assert len(applied) == expected, answers
    assert workspace.store.verify().ok
