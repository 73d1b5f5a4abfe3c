"""Fuzz target: the approval a human sends back at a confirmation pause.

For any answer -- any JSON-like `confirmed` and `payload`, text full of format, control and
bidi characters -- `read_approval` never raises, and it returns an `Approval` only when the
answer said `confirmed: true` (the JSON boolean) and carried a rationale of at least 10 visible
characters, 3 of them letters or digits, and a visible approver, both in normal form with no
blank glyph left; anything else is a `Refusal` that says
nothing was changed. The answer reaches the tool both ways ADK delivers it: as the parsed
confirmation only, and as the raw function response in the session's events (also wrapped as
`{"response": "<json>"}`, as the ADK web client sends it).
"""

from __future__ import annotations

import json
import unicodedata
from types import SimpleNamespace
from typing import Any

from google.adk.events import Event
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.genai import types
from hypothesis import event, given
from hypothesis import strategies as st

from ops_copilot.tools.approval import Approval, Refusal, read_approval

CONFIRMATION = "adk_request_confirmation"
CALL_ID, CONFIRMATION_ID = "call-restart", "call-confirm"

# Characters that render as nothing, or move other text around.
INVISIBLES = (
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u034f\u061c"
    "\u180e\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u3164\uffa0\u115f\u1160"
    "\ufe0f\U000e0001\U000e0041\x00\x07\x1b\x7f\x85\u2028\u2029\u00a0\u3000\t\n\r "
    "\ufffc\U0001d159\u2800"
)
# Symbols and categories that draw nothing although they are not format characters: the test's
# own list, kept apart from the code's, so the property checks the rule rather than restates it.
BLANK_GLYPHS = frozenset("\u115f\u1160\u2800\u3164\uffa0\ufffc\U0001d159")
CHARS = st.one_of(st.characters(), st.sampled_from(INVISIBLES), st.sampled_from("ab Z9.-"))
TEXT = st.text(CHARS, max_size=40) | st.text(CHARS, min_size=5, max_size=600)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
FIELD_VALUE = TEXT | JSON
# Text near the 10-visible-characters line: about half letters (and look-alikes that NFKC
# folds), half marks, blanks and invisibles.
_SHOWN = st.sampled_from("abcXYZ09.;-\u00e9\uff21\ufb01\u2460!?\ufffd\u2192")
_HIDDEN = st.sampled_from(INVISIBLES + "\u0301\u0308\u2800\ufe0f")
NEAR = st.lists(_SHOWN | _HIDDEN, min_size=12, max_size=40).map("".join)
NAME = st.lists(_SHOWN | _HIDDEN, min_size=1, max_size=6).map("".join)
PAYLOAD = st.one_of(
    JSON,
    st.dictionaries(
        st.sampled_from(["rationale", "approver"]) | st.sampled_from(["extra", ""]) | TEXT,
        FIELD_VALUE,
        max_size=3,
    ),
    st.fixed_dictionaries({"rationale": TEXT, "approver": TEXT}),
    st.fixed_dictionaries({"rationale": NEAR, "approver": NAME}),
)
CONFIRMED = st.just(True) | st.sampled_from(["true", "True", 1, 1.0, "yes", "on", False]) | JSON


def _visible(text: str) -> int:
    """Characters that show: letters, numbers, punctuation, symbols, but no blank glyph."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LNPS" and ch not in BLANK_GLYPHS)


def _wordy(text: str) -> int:
    """Letters and digits that show."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LN" and ch not in BLANK_GLYPHS)


def _in_normal_form(text: str) -> bool:
    hidden = {"Cc", "Cf", "Cs", "Co", "Cn"}
    return (
        unicodedata.is_normalized("NFKC", text)
        and not any(unicodedata.category(ch) in hidden for ch in text)
        and text == " ".join(text.split())
    )


def _session_context(response: dict[str, Any], confirmation: Any) -> SimpleNamespace:
    """A tool context as ADK builds it on resume: the original call, ADK's confirmation request,
    the user's raw answer in the events, and the parsed confirmation."""
    request = types.FunctionCall(
        id=CONFIRMATION_ID,
        name=CONFIRMATION,
        args={"originalFunctionCall": {"id": CALL_ID, "name": "restart_service", "args": {}}},
    )
    events = [
        Event(
            author="ops_copilot",
            content=types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(
                            id=CALL_ID, name="restart_service", args={}
                        )
                    ),
                    types.Part(function_call=request),
                ],
            ),
        ),
        Event(
            author="user",
            content=types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id=CONFIRMATION_ID, name=CONFIRMATION, response=response
                        )
                    )
                ],
            ),
        ),
    ]
    return SimpleNamespace(
        tool_confirmation=confirmation,
        function_call_id=CALL_ID,
        session=SimpleNamespace(id="fuzz", events=events),
    )


@given(confirmed=CONFIRMED, payload=PAYLOAD, how=st.sampled_from(["parsed", "events", "wrapped"]))
def test_read_approval_accepts_only_a_true_confirmation_with_a_visible_rationale(
    confirmed, payload, how
):
    answer = {"confirmed": confirmed, "payload": payload}
    if how == "parsed":
        ctx = SimpleNamespace(
            tool_confirmation=SimpleNamespace(confirmed=confirmed, payload=payload),
            session=SimpleNamespace(id="fuzz", events=[]),
        )
    else:
        response = {"response": json.dumps(answer)} if how == "wrapped" else answer
        try:
            parsed = ToolConfirmation.from_response_dict(response)
        except ValueError:  # ADK itself rejects the answer; the tool is never called
            return
        ctx = _session_context(response, parsed)

    result = read_approval(ctx)
    event(f"{how}: {'approved' if isinstance(result, Approval) else result.reason}")

    if isinstance(result, Approval):
        assert confirmed is True
        assert _visible(result.rationale) >= 10 and _wordy(result.rationale) >= 3
        assert _visible(result.approver) >= 1
        assert not BLANK_GLYPHS & set(result.rationale + result.approver)
        assert _in_normal_form(result.rationale) and _in_normal_form(result.approver)
        assert len(result.rationale) <= 500 and len(result.approver) <= 100
    else:
        assert isinstance(result, Refusal)
        assert result.message.endswith("Nothing was changed.")


@given(
    response=st.dictionaries(
        st.sampled_from(["confirmed", "payload", "hint", "response"]) | TEXT, JSON, max_size=4
    )
    | st.fixed_dictionaries({"response": TEXT | JSON})
    | st.fixed_dictionaries({"confirmed": CONFIRMED, "payload": PAYLOAD})
)
def test_after_the_guard_adk_can_parse_every_confirmation_answer(response):
    """Whatever the user answers, the message the session stores holds a confirmation ADK's own
    parse accepts: the answer as sent, or a rejection that says why."""
    from ops_copilot.confirmations import MARK, WHY, neutralise

    message = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=CONFIRMATION_ID, name=CONFIRMATION, response=response
                )
            )
        ],
    )
    rewritten = neutralise(message)
    stored = (rewritten or message).parts[0].function_response.response
    parsed = ToolConfirmation.from_response_dict(stored)  # never raises
    event("rewritten" if rewritten else "as sent")
    if rewritten is not None:
        assert parsed.confirmed is False and parsed.hint.removeprefix(MARK) in WHY
