"""The embedded server's tool-calling chat handler, with a scripted stand-in for llama.cpp:
OpenAI's defaults, every message rendered, calls that always parse."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def llama_tools():
    """The handler module; its `local` group is installed first when missing (as the embedded
    end-to-end tests do), so these tests never skip silently on a fresh machine."""
    from ops_eval.models import local_deps
    from ops_eval.settings import current

    if local_deps.missing() and current().skip_embedded_test:
        pytest.skip("OPS_SKIP_EMBEDDED_TEST=1 and the embedded model's `local` group is missing")
    local_deps.ensure(print)
    from ops_eval.models import llama_tools

    return llama_tools


TOOLS = [
    {"type": "function", "function": {
        "name": "get_service_status", "description": "Get one service's status.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}},
                       "required": ["name"]}}},
    {"type": "function", "function": {"name": "list_services", "description": "List services.",
                                      "parameters": {"type": "object", "properties": {}}}},
]  # fmt: skip


class ScriptedLlama:
    """Answers create_completion with the next text of a script; records every prompt."""

    model_path = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts, self.prompts, self.grammars = list(texts), [], []

    def create_completion(self, prompt, grammar=None, **kwargs):
        self.prompts.append(prompt)
        self.grammars.append(grammar)
        text = self.texts.pop(0)
        return {"choices": [{"text": text}], "usage": {"prompt_tokens": len(prompt),
                                                       "completion_tokens": len(text)}}  # fmt: skip


def test_tools_without_tool_choice_mean_auto_as_openai_says(llama_tools):
    llama = ScriptedLlama("functions.get_service_status:", '{"name": "inventory"}', "")
    out = llama_tools.handler(
        llama, [{"role": "user", "content": "Inventory?"}], tools=TOOLS, temperature=0.0
    )
    message = out["choices"][0]["message"]
    assert out["choices"][0]["finish_reason"] == "tool_calls" and message["content"] is None
    (call,) = message["tool_calls"]
    assert call["function"] == {"name": "get_service_status", "arguments": '{"name": "inventory"}'}
    assert "functions.get_service_status: Get one service's status." in llama.prompts[0]
    assert llama.grammars[0] is not None  # the choice between a tool and a message is constrained


def test_a_message_answer(llama_tools):
    llama = ScriptedLlama("message:", " Inventory is down. ")
    out = llama_tools.handler(llama, [{"role": "user", "content": "Hi"}], tools=TOOLS)
    assert out["choices"][0]["message"] == {"role": "assistant", "content": "Inventory is down."}


def test_every_message_is_rendered_tool_results_with_their_tools_name(llama_tools):
    messages = [
        {"role": "system", "content": "You are ops."},
        {"role": "user", "content": "Inventory?"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "get_service_status", "arguments": '{"name": "inventory"}'}}]},  # no content
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "down"}'},
    ]  # fmt: skip
    prompt = llama_tools.render(messages, TOOLS)
    assert prompt.startswith("<|im_start|>system\nYou are ops.\n")
    assert 'functions.get_service_status:\n{"name": "inventory"}<|im_end|>' in prompt
    assert '<|im_start|>tool\nfunctions.get_service_status returned:\n{"status": "down"}' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_tool_choice_none_answers_in_words_and_shows_no_tools(llama_tools):
    llama = ScriptedLlama("Just words.")
    out = llama_tools.handler(
        llama, [{"role": "user", "content": "Hi"}], tools=TOOLS, tool_choice="none"
    )
    assert out["choices"][0]["message"]["content"] == "Just words."
    assert "functions." not in llama.prompts[0]


def test_arguments_are_strict_json_even_when_the_grammar_let_a_newline_in(llama_tools):
    raw = '{"name": "a\nb"}'
    llama = ScriptedLlama("functions.get_service_status:", raw, "")
    out = llama_tools.handler(llama, [{"role": "user", "content": "x"}], tools=TOOLS)
    arguments = out["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"name": "a\nb"}


def test_the_end_of_a_run_of_calls_is_an_empty_choice(llama_tools):
    """llama.cpp lets the end token through only once the grammar is complete: after a call the
    choice may be empty; before any call it may not."""
    assert llama_tools.choice_rule(["a"], False, True) == 'root ::= ("functions.a:")?\n'
    assert llama_tools.choice_rule(["a"], True, False) == 'root ::= ("functions.a:" | "message:")\n'


def test_a_forced_tool_is_called_exactly_once_and_must_exist(llama_tools):
    llama = ScriptedLlama("functions.list_services:", "{}")
    forced = {"type": "function", "function": {"name": "list_services"}}
    out = llama_tools.handler(
        llama, [{"role": "user", "content": "x"}], tools=TOOLS, tool_choice=forced
    )
    assert len(out["choices"][0]["message"]["tool_calls"]) == 1
    missing = {"type": "function", "function": {"name": "nope"}}
    with pytest.raises(ValueError, match="'nope', which is not among the tools"):
        llama_tools.handler(
            ScriptedLlama(), [{"role": "user", "content": "x"}], tools=TOOLS, tool_choice=missing
        )


def test_calls_per_answer_are_bounded(llama_tools):
    texts = []
    for _ in range(llama_tools.MAX_CALLS_PER_TURN):
        texts += ["functions.list_services:", "{}"]
    llama = ScriptedLlama(*texts)
    out = llama_tools.handler(llama, [{"role": "user", "content": "x"}], tools=TOOLS)
    assert len(out["choices"][0]["message"]["tool_calls"]) == llama_tools.MAX_CALLS_PER_TURN


def test_an_answer_asked_as_json_with_a_schema_is_constrained_by_it(llama_tools):
    """The judge's route: no tools, `response_format` in llama-cpp-python's form. A schema
    becomes a grammar; plain `json_object` any JSON; no response_format no grammar at all."""
    schema = {"type": "object", "properties": {"analysis": {"type": "string"},
              "passed": {"type": "boolean"}}, "required": ["analysis", "passed"]}  # fmt: skip
    asked = [
        {"type": "json_object", "schema": schema},
        {"type": "json_object"},
        None,
    ]
    grammars = []
    for response_format in asked:
        llama = ScriptedLlama('{"analysis": "a", "passed": true}')
        out = llama_tools.handler(
            llama, [{"role": "user", "content": "Grade."}], response_format=response_format
        )
        assert out["choices"][0]["message"]["content"] == '{"analysis": "a", "passed": true}'
        grammars.append(llama.grammars[0])
    assert grammars[2] is None
    schema_rules, any_json = grammars[0]._grammar, grammars[1]._grammar
    assert '"\\"analysis\\""' in schema_rules  # the schema's own field names, in its order
    assert schema_rules.index("analysis") < schema_rules.index("passed")
    assert "analysis" not in any_json and "object" in any_json


def test_an_answer_asked_as_json_is_strict_json_even_when_the_grammar_let_a_newline_in(
    llama_tools,
):
    raw = '{"analysis": "two facts:\n1) down", "passed": false}'  # a raw newline in a string
    out = llama_tools.handler(
        ScriptedLlama(raw),
        [{"role": "user", "content": "Grade."}],
        response_format={"type": "json_object"},
    )
    content = out["choices"][0]["message"]["content"]
    assert json.loads(content) == {"analysis": "two facts:\n1) down", "passed": False}
    free = llama_tools.handler(
        ScriptedLlama("line one\nline two"), [{"role": "user", "content": "Hi"}]
    )
    assert free["choices"][0]["message"]["content"] == "line one\nline two"  # free text as is
