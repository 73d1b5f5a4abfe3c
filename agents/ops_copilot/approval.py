"""What counts as a human approval of a guarded write.

ADK's confirmation gate guarantees the write only runs after a user answered the
`adk_request_confirmation` call with `confirmed: true`. This module adds what the audit log needs:
the answer's payload must carry a non-empty rationale (length-capped) and may name the approver.
The tool re-checks the confirmation itself, so dropping `require_confirmation` by mistake refuses
writes instead of opening them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

RATIONALE_MAX_CHARS = 500
APPROVER_MAX_CHARS = 100


class Approval(BaseModel):
    """The payload of a confirmation answer: `{"rationale": "...", "approver": "..."}`."""

    model_config = ConfigDict(extra="forbid")

    rationale: str = Field(min_length=1, max_length=RATIONALE_MAX_CHARS)
    approver: str = Field(default="", max_length=APPROVER_MAX_CHARS)

    @field_validator("rationale", "approver", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value


class Refusal(BaseModel):
    """Why a guarded write did not run; returned to the model as the tool result."""

    reason: str
    message: str

    def result(self, **extra: Any) -> dict[str, Any]:
        return {"status": "refused", "reason": self.reason, "message": self.message, **extra}


NOTHING_CHANGED = "Nothing was changed."


def read_approval(tool_context: Any) -> Approval | Refusal:
    """The approval carried by this call's confirmation, or the reason it does not count."""
    confirmation = getattr(tool_context, "tool_confirmation", None)
    if confirmation is None or not getattr(confirmation, "confirmed", False):
        return Refusal(
            reason="approval_required",
            message="This action needs a human approval through the confirmation step. "
            + NOTHING_CHANGED,
        )
    payload = confirmation.payload
    if isinstance(payload, str):
        payload = {"rationale": payload}
    if not isinstance(payload, dict) or not str(payload.get("rationale") or "").strip():
        return Refusal(
            reason="rationale_required",
            message="The approval carried no rationale; an approval must say why. "
            + NOTHING_CHANGED,
        )
    try:
        return Approval.model_validate(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "payload"
        return Refusal(
            reason="invalid_approval",
            message=f"The approval payload is not valid ({field}: {err['msg']}). "
            + NOTHING_CHANGED,
        )
