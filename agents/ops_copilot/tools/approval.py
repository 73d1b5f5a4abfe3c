"""What counts as a human approval of a guarded write.

ADK's confirmation gate guarantees the write only runs after a user answered the
`adk_request_confirmation` call with something ADK reads as `confirmed: true`. ADK's
`ToolConfirmation` is a lax pydantic model, though, so `"true"`, `1` or `"yes"` pass its gate as
well; the tool therefore reads the answer as the human sent it (the function response in the
session's events) and accepts only the JSON boolean `true`.

The audit log needs more than a yes: the answer's payload must name the approver and carry a
rationale of at least `RATIONALE_MIN_VISIBLE` visible characters, `RATIONALE_MIN_WORDY` of them
letters or digits. Both are normalised first (NFKC; control, format, bidi and other invisible
characters dropped; whitespace collapsed), so an invisible or look-alike rationale cannot be
what the log keeps.

"Visible" is a rule, not a list of tricks: a character counts when its Unicode category is a
letter (L*), a number (N*), punctuation (P*) or a symbol (S*) -- never a space, a mark, a control
or format character -- and it is not in `_BLANK`, the code points of those categories that draw
nothing (Hangul fillers, the blank Braille pattern, the object replacement character U+FFFC, the
musical null notehead U+1D159), which are dropped from the text too. U+FFFD, the replacement
character, does draw a glyph and counts as visible; it stands for text that was lost, though,
so it is not a letter or digit, and twelve of them still say nothing: hence the second minimum.

The tool re-checks the confirmation itself, so dropping `require_confirmation` by mistake
refuses writes instead of opening them.

An approval is one answer to one confirmation request, and it acts at most once: the same
answer submitted twice at once (a double-click, a client's retry) resumes the tool twice, in
parallel. `Approval.request_id` is the id of the `adk_request_confirmation` call it answered (ADK
gives each request its own), and the store keeps it on the ledger row the write appends, unique
(`schema`): whichever write comes second finds the approval used and changes nothing.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

RATIONALE_MAX_CHARS = 500
RATIONALE_MIN_VISIBLE = 10
RATIONALE_MIN_WORDY = 3
APPROVER_MAX_CHARS = 100
CONFIRMATION_CALL = "adk_request_confirmation"

# Unicode categories that never show: controls, format characters (zero-width, bidi controls,
# soft hyphen), surrogates, private use, unassigned.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Default-ignorable or blank code points outside those categories: the combining grapheme
# joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors, the
# blank Braille pattern, the object replacement character (a placeholder for an embedded object
# that is not there) and the musical null notehead, both symbols that render as nothing.
_BLANK = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0\ufffc"
    "\U0001d159"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
# Categories (first letter) of characters that show: letters, numbers, punctuation, symbols.
_SHOWN = frozenset("LNPS")


def _strip_hidden(text: str) -> str:
    """Whitespace of any kind as one space; characters that do not show dropped."""
    kept = (
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or (unicodedata.category(ch) not in _HIDDEN_CATEGORIES and ch not in _BLANK)
    )
    return " ".join("".join(kept).split())


def normalise_text(text: str) -> str:
    """`text` as an audit row keeps it: NFKC, invisible characters dropped, spaces collapsed.
    Dropping comes before and after NFKC: a compatibility form may decompose to a blank, and a
    dropped joiner may leave two characters that compose."""
    return _strip_hidden(unicodedata.normalize("NFKC", _strip_hidden(text)))


def visible_chars(text: str) -> int:
    """How many characters of `text` show: letters, numbers, punctuation and symbols that are
    not blank (see the module's docstring); never spaces, marks, controls or format characters."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in _SHOWN and ch not in _BLANK)


def wordy_chars(text: str) -> int:
    """How many characters of `text` are letters or digits that show: what makes it say
    something rather than only draw punctuation, symbols or replacement characters."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LN" and ch not in _BLANK)


def rationale_problem(text: str) -> str | None:
    """Why a normalised `text` does not say why -- too few visible characters, or too few
    letters or digits among them; None when it does. The bar of an approval's rationale, and of
    anything else a person must justify on the record (a gate override's reason)."""
    shown = visible_chars(text)
    if shown < RATIONALE_MIN_VISIBLE:
        return f"needs at least {RATIONALE_MIN_VISIBLE} visible characters, has {shown}"
    wordy = wordy_chars(text)
    if wordy < RATIONALE_MIN_WORDY:
        return f"needs at least {RATIONALE_MIN_WORDY} letters or digits, has {wordy}"
    return None


class Approval(BaseModel):
    """The payload of a confirmation answer: `{"rationale": "...", "approver": "..."}`."""

    model_config = ConfigDict(extra="forbid")

    rationale: str = Field(min_length=1, max_length=RATIONALE_MAX_CHARS, strict=True)
    approver: str = Field(min_length=1, max_length=APPROVER_MAX_CHARS, strict=True)
    provenance: Any = None
    """The trace the request showed (`provenance.payload`), when a client sends the request's
    payload back with the answer; ignored: the tool records the trace it computes itself."""

    # The confirmation request this answered (set by `read_approval`, never from the payload);
    # empty when the context holds no session events (a context built by hand, not by ADK).
    _request_id: str = PrivateAttr(default="")

    @property
    def request_id(self) -> str:
        return self._request_id

    @field_validator("rationale", "approver", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        return normalise_text(value) if isinstance(value, str) else value

    @field_validator("rationale")
    @classmethod
    def _says_why(cls, value: str) -> str:
        problem = rationale_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("approver")
    @classmethod
    def _names_someone(cls, value: str) -> str:
        if not visible_chars(value):
            raise ValueError("names nobody (no visible characters)")
        return value


class Refusal(BaseModel):
    """Why a guarded write did not run; returned to the model as the tool result."""

    reason: str
    message: str

    def result(self, **extra: Any) -> dict[str, Any]:
        return {"status": "refused", "reason": self.reason, "message": self.message, **extra}


NOTHING_CHANGED = "Nothing was changed."


def _refuse(reason: str, message: str) -> Refusal:
    return Refusal(reason=reason, message=f"{message} {NOTHING_CHANGED}")


def invalid_approval(problem: str) -> Refusal:
    """The refusal of an answer that is not a valid approval; `problem` says which part and why
    (`confirmed: ...`), in words of this module or of `confirmations`, never the user's own."""
    return _refuse("invalid_approval", f"The approval is not valid ({problem}).")


def _events(tool_context: Any) -> list[Any]:
    events = getattr(getattr(tool_context, "session", None), "events", None)
    return [e for e in events or [] if hasattr(e, "get_function_calls")]


def _original_id(request: Any) -> Any:
    original = (request.args or {}).get("originalFunctionCall")
    return original.get("id") if isinstance(original, dict) else None


def _raw_answer(tool_context: Any) -> tuple[str, dict[str, Any]] | None:
    """The id of this call's confirmation request and the user's answer to it as it was sent,
    before ADK's lax parsing; None when the session holds none (a context built by hand)."""
    call_id = getattr(tool_context, "function_call_id", None)
    if not call_id:
        return None
    events = _events(tool_context)
    requests = {
        fc.id
        for event in events
        for fc in event.get_function_calls()
        if fc.name == CONFIRMATION_CALL and _original_id(fc) == call_id
    }
    answers = [
        (fr.id, fr.response)
        for event in events
        if event.author == "user"
        for fr in event.get_function_responses()
        if fr.name == CONFIRMATION_CALL and fr.id in requests
    ]
    if not answers:
        return None
    request_id, answer = answers[-1]  # ADK acts on the latest answer
    if isinstance(answer, dict) and len(answer) == 1 and isinstance(answer.get("response"), str):
        try:  # the ADK web client's wrapper: {"response": "<json>"}
            answer = json.loads(answer["response"])
        except ValueError:
            answer = {}
    return request_id, answer if isinstance(answer, dict) else {}


def _confirmed(answer: dict[str, Any] | None, confirmation: Any) -> Refusal | None:
    """None when the human's answer was the boolean true; else why the answer does not count."""
    sent = (
        answer.get("confirmed") if answer is not None else getattr(confirmation, "confirmed", None)
    )
    if sent is True and getattr(confirmation, "confirmed", None) is True:
        return None
    if sent is False or sent is None:
        return _refuse(
            "approval_required",
            "This action needs a human approval through the confirmation step.",
        )
    shown = repr(sent)[:40] if isinstance(sent, str | int | float) else type(sent).__name__
    return invalid_approval(f"confirmed: must be the JSON boolean true, got {shown}")


def read_approval(tool_context: Any) -> Approval | Refusal:
    """The approval carried by this call's confirmation, or the reason it does not count."""
    confirmation = getattr(tool_context, "tool_confirmation", None)
    if confirmation is None:
        return _refuse(
            "approval_required",
            "This action needs a human approval through the confirmation step.",
        )
    raw = _raw_answer(tool_context)
    request_id, answer = raw if raw is not None else ("", None)
    refused = _confirmed(answer, confirmation)
    if refused is not None:
        return refused
    payload = getattr(confirmation, "payload", None)
    if isinstance(payload, str):
        payload = {"rationale": payload}
    if not isinstance(payload, dict):
        payload = {}
    rationale = payload.get("rationale")
    if rationale is None or (isinstance(rationale, str) and not normalise_text(rationale)):
        return _refuse(
            "rationale_required",
            "The approval carried no rationale (rationale: missing, empty or only invisible "
            "characters); an approval must say why.",
        )
    approver = payload.get("approver")
    if approver is None or (
        isinstance(approver, str) and not visible_chars(normalise_text(approver))
    ):
        return _refuse(
            "approver_required",
            "The approval names no approver (approver: missing, empty or only invisible "
            "characters); an approval must say who gave it.",
        )
    try:
        approval = Approval.model_validate(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "payload"
        return _refuse(
            "invalid_approval", f"The approval payload is not valid ({field}: {err['msg']})."
        )
    approval._request_id = request_id or ""
    return approval
