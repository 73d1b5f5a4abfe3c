"""Several servers of one model, each conversation kept to one of them.

A llama-cpp-python server evaluates one prompt at a time and keeps one prompt's state, so two
conversations on one server evict each other's evaluated prefix and every request starts over.
With one server per concurrent conversation, each keeps its own: a conversation goes to the
server with the fewest requests in flight at its first request (then the fewest conversations)
and stays there; the session's id says which conversation a request belongs to.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from pydantic import PrivateAttr

from ..session import CONVERSATION


class Replicas(BaseLlm):
    replicas: list[Any]
    _assigned: dict[str, int] = PrivateAttr(default_factory=dict)
    _in_flight: list[int] = PrivateAttr(default_factory=list)

    def pick(self) -> int:
        """The server of the current conversation, chosen at its first request."""
        if not self._in_flight:
            self._in_flight = [0] * len(self.replicas)
        conversation = CONVERSATION.get() or ""
        if conversation not in self._assigned:
            taken = list(self._assigned.values())
            load = [(self._in_flight[i], taken.count(i), i) for i in range(len(self.replicas))]
            self._assigned[conversation] = min(load)[2]
        return self._assigned[conversation]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        index = self.pick()
        self._in_flight[index] += 1
        try:
            async for response in self.replicas[index].generate_content_async(llm_request, stream):
                yield response
        finally:
            self._in_flight[index] -= 1
