"""Scripted models for scenario tests, for tests only: the oracle agent paired with a scripted
model-backed user (`Duet`)."""

from __future__ import annotations

import asyncio

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from ops_eval.core.evalset import read_evalset
from ops_eval.models.stand_ins import OracleLlm
from support import REPO

SCENARIOS = REPO / "evals" / "scenarios.evalset.json"


class Duet(OracleLlm):
    """Scripted, for tests only: the oracle answers the agent's requests; a request with ADK's
    user-simulator prompt gets the next of `lines` -- by how many moves the user has made in
    the history it is shown -- as the model-backed user's words. `slow_user` seconds of wait
    before each of them."""

    lines: list[str] = []
    slow_user: float = 0.0

    async def generate_content_async(self, llm_request, stream=False):
        text = "".join(p.text or "" for c in llm_request.contents or [] for p in c.parts or [])
        if "Simulated User" not in text:
            async for response in super().generate_content_async(llm_request, stream):
                yield response
            return
        await asyncio.sleep(self.slow_user)
        history = text.split("# Conversation History")[-1]
        made = history.count("\nuser: ") + history.count("-- you answered ")
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=self.lines[made - 1])])
        )


RISK_LINES = [
    "Before I approve: what is the risk of restarting it now?",
    "Understood. Go ahead and restart inventory.",
    "APPROVE: Config v42 rolled back; restart risk explained and accepted.",
    "Thanks. </finished>",
]


def duet(lines: list[str], **extra) -> Duet:
    return Duet(
        turns=OracleLlm.from_cases(read_evalset(SCENARIOS).cases).turns, lines=lines, **extra
    )
