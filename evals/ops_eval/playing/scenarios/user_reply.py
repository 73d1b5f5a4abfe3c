"""Reading the model-backed user's reply as a person would: the protocol of its prompt is for the
user, never for the agent.

ADK's user-simulator prompt names five actions (`**PROTOCOL: ANSWER**` ... `**PROTOCOL: END**`)
and one stop signal (`</finished>`); ours adds `APPROVE:` and `DENY:`. A real small model mixes
them into its words: Qwen2.5-Coder-1.5B wrote `**PROTOCOL: INTERVENE**` before its request and
`**PROTOCOL: END** The conversation with the AI Agent is over.` instead of the stop signal, and
both reached the agent as the user's words -- one conversation ran to its turn limit and was
scored as the agent's failure while the user had been trying to end it for six turns.

So a reply is read for its move first, whatever the markup (bold, code marks, headings, tags):
- an **end** in any form ends the conversation at once: the stop signal as any tag
  (`<finished>`, `</ FINISHED >`), the END action, a line that is only `END`, or a sentence
  saying the conversation is over;
- the **action labels** (`PROTOCOL: ADVANCE`, a leading `INTERVENE:`) are taken out, and
  `PROTOCOL: DENY` / `PROTOCOL: APPROVE` read as `DENY` / `APPROVE` (seen from the 1.5B model);
- a copy of the chat template's blocks (`<tool_response>...</tool_response>`) is no words;
- what is left is what the user says (or approves with); nothing left is no usable move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ACTIONS = ("ANSWER", "ADVANCE", "INTERVENE", "CORRECT", "END")
_ACTION = "|".join(ACTIONS)
# Ours, at an approval request: `PROTOCOL: DENY` is the move DENY, as `DENY:` is.
_DECISION = re.compile(r"\[?\bPROTOCOL\b\s*[:\-]?\s*(?=(?:APPROVE|DENY)\b)", re.I)
# The chat template's blocks: a tool result or call the user's model copied is no move of its own.
_TEMPLATE = re.compile(
    r"<(tool_response|tool_call|tools)>.*?(?:</\1>|$)|</?(?:tool_response|tool_call|tools)>",
    re.I | re.DOTALL,
)
_MARKS = re.compile(r"\*+|`+|^[ \t]*(?:#+|>+)[ \t]*", re.M)
_END_TAG = re.compile(r"<\s*/?\s*finished\s*/?\s*>|\{\{\s*stop_signal\s*\}\}", re.I)
_PROTOCOL = re.compile(rf"\[?\bPROTOCOL\b\s*[:\-]?\s*({_ACTION})\b\]?\s*:?", re.I)
_LABEL = re.compile(rf"^[ \t]*(?:action\s*:\s*)?({_ACTION})\b[ \t]*(?::|-|$)", re.M)
_END_WORDS = re.compile(
    r"\b(?:the|this|our)\s+conversation(?:\s+with\s+(?:the\s+)?(?:ai\s+)?agents?)?\s+"
    r"(?:is|has)\s+(?:now\s+)?(?:over|ended|finished|complete[d]?|concluded)\b"
    r"|\b(?:I\s+will|I'll|let's|let\s+us)\s+end\s+(?:the|this|our)\s+conversation\b",
    re.I,
)


@dataclass(frozen=True)
class Reply:
    """What the user's words amount to: the end (and the sign of it), or the words to send."""

    ends: str | None
    """The end signal found, as written; None when the conversation goes on."""
    words: str
    """The reply without its protocol labels and markup marks: what reaches the agent."""


def read_reply(said: str) -> Reply:
    """The move in a model-backed user's reply (see the module's docstring)."""
    plain = _MARKS.sub("", said)
    signs = [
        m.group(0).strip()
        for m in (
            _END_TAG.search(plain),
            next((p for p in _PROTOCOL.finditer(plain) if p.group(1).upper() == "END"), None),
            next((x for x in _LABEL.finditer(plain) if x.group(1) == "END"), None),
            _END_WORDS.search(plain),
        )
        if m is not None
    ]
    if signs:
        return Reply(ends=signs[0], words="")
    words = _LABEL.sub("", _PROTOCOL.sub("", _DECISION.sub("", _END_TAG.sub("", plain))))
    words = _TEMPLATE.sub("", words)
    lines = [" ".join(line.split()) for line in words.splitlines()]
    return Reply(ends=None, words="\n".join(line for line in lines if line).strip())
