"""The embedded default's one departure from LiteLLM's request (`models/opening_call.py`): the
request that opens a user turn asks for one call of the tools it carries, as OpenAI's
`response_format`; every other request goes as LiteLLM made it."""

from __future__ import annotations

from ops_eval.models.opening_call import RESPONSE_FORMAT_NAME, call_schema, opening_format

TOOLS = [
    {"type": "function", "function": {"name": "list_skills", "description": "d"}},
    {
        "type": "function",
        "function": {
            "name": "get_service_status",
            "description": "d",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    },
]
USER = {"role": "user", "content": "What is wrong with inventory?"}
CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]}
RESULT = {"role": "tool", "tool_call_id": "1", "content": "{}"}


def test_a_turn_opens_with_one_call_of_its_tools():
    found = opening_format([{"role": "system", "content": "s"}, USER], TOOLS)
    assert found["type"] == "json_schema"
    assert found["json_schema"]["name"] == RESPONSE_FORMAT_NAME
    options = found["json_schema"]["schema"]["anyOf"]
    assert [o["properties"]["name"] for o in options] == [
        {"const": "list_skills"},
        {"const": "get_service_status"},
    ]
    # a tool without parameters takes an empty object; a tool's own schema is kept as it is
    assert options[0]["properties"]["arguments"] == {"type": "object", "properties": {}}
    assert options[1]["properties"]["arguments"] == TOOLS[1]["function"]["parameters"]
    assert all(o["required"] == ["name", "arguments"] for o in options)


def test_after_a_tool_result_and_without_tools_the_request_is_left_alone():
    assert opening_format([USER, CALL, RESULT], TOOLS) is None  # the model answers, or calls
    assert opening_format([USER], []) is None
    assert opening_format([USER], None) is None
    assert opening_format([], TOOLS) is None
    assert call_schema([{"type": "function", "function": {}}]) is None  # no named tool
