"""Tool-call residue never reaches the history: a content-free text part beside a function call
is dropped from the model's response by the agent itself (`ops_copilot.residue`), on every model
route and with every output guard off, while a response's real text is never touched.

The scripted model (a stand-in, named as such) behaves as Qwen2.5 through llama.cpp did: it
sends its call with an empty fence beside it, and once the tool answered it copies its own
previous message when the history still holds that text -- else it answers in words."""

from __future__ import annotations

import json

import pytest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from ops_copilot.agent import build_agent
from ops_copilot.residue import content_free, drop_residue
from ops_eval import RunOptions, ToolCall, execute
from ops_eval.models.stand_ins import ScriptedLlm, fixed_model

STATUS = ToolCall("get_service_status", {"name": "inventory"})
FENCE = "```json\n\n```"
ANSWER = "The inventory service is down. It is owned by the fulfilment team."


def copies_its_residue(request) -> str:
    """The small model's habit: answer with its own previous text, when the history has one."""
    said = [
        p.text for c in request.contents or [] if c.role == "model" for p in c.parts or [] if p.text
    ]
    return said[-1] if said else ANSWER


def played(tmp_path, residue: str):
    model = ScriptedLlm(script=[[residue, STATUS], copies_its_residue])
    options = RunOptions(
        cases=["service-status-inventory"], output=tmp_path / "run.json", record=tmp_path / "rec"
    )
    _, record, _ = execute(options, chooser=fixed_model(model, "scripted", "a test's script"))
    (trial,) = record.trials
    recorded = [json.loads(line) for line in (tmp_path / "rec").read_text().splitlines()[1:]]
    return trial, recorded


@pytest.mark.parametrize("residue", [FENCE, "```\n```", "<tools></tools>", " \n", "<|im_end|>"])
def test_residue_beside_a_call_never_reaches_the_history(tmp_path, residue):
    trial, recorded = played(tmp_path, residue)
    first, second = recorded
    # The model's first response held the residue (the recording keeps what it returned) ...
    sent = first["responses"][0]["content"]["parts"]
    assert any(p.get("text") == residue for p in sent)
    # ... and the next request, built from ADK's history, holds the call alone.
    model_turns = [c["parts"] for c in second["contents"] if c["role"] == "model"]
    assert model_turns == [[{"call": "get_service_status", "args": {"name": "inventory"}}]]
    (turn,) = trial.turns
    assert turn.response == ANSWER and turn.texts == [ANSWER]
    assert trial.scores["complete"].outcome == "pass"


def test_the_residue_is_dropped_with_every_output_guard_off():
    """The red team's guard-off modes replace `after_model_callback`; the residue still goes."""
    agent = build_agent(ScriptedLlm(script=[]), after_model_callback=None)
    (callback,) = agent.canonical_after_model_callbacks
    response = LlmResponse(
        content=types.Content(
            role="model",
            parts=[types.Part(text=FENCE), types.Part(function_call=types.FunctionCall(name="x"))],
        )
    )
    import asyncio

    cleaned = asyncio.run(callback(callback_context=None, llm_response=response))
    assert [p.function_call.name for p in cleaned.content.parts] == ["x"]


@pytest.mark.parametrize(
    "text",
    [
        "Checking the inventory service.",
        "See https://status.example.com",
        '<a href="https://status.example.com"></a>',
        "```INC-002```",
        '```json\n{"name": "inventory"}\n```',
        "✅",
        "<tool_response>{}</tool_response>",
    ],
)
def test_text_that_says_anything_is_kept_beside_a_call(text):
    assert not content_free(text)
    parts = [types.Part(text=text), types.Part(function_call=types.FunctionCall(name="x"))]
    response = LlmResponse(content=types.Content(role="model", parts=parts))
    assert drop_residue(response) is None


def test_an_answer_without_a_call_is_never_touched():
    """Residue is what is left beside a call; an empty answer is the model's own (and
    `complete` fails it)."""
    response = LlmResponse(content=types.Content(role="model", parts=[types.Part(text=FENCE)]))
    assert content_free(FENCE) and drop_residue(response) is None


def test_each_agent_is_read_as_its_own_packages_by_adks_runner(caplog):
    """ADK names an agent's app after its class's module: the triage agent, built on the ops
    copilot's residue-free class, once logged 'App name mismatch' on every trial."""
    from google.adk.runners import InMemoryRunner

    from triage_report.agent import build_agent as build_triage

    for app, agent in (
        ("ops_copilot", build_agent(ScriptedLlm(script=[]))),
        ("triage_report", build_triage(ScriptedLlm(script=[]))),
    ):
        caplog.clear()
        InMemoryRunner(agent=agent, app_name=app)
        assert "App name mismatch" not in caplog.text, app
