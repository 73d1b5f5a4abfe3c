"""What a judge must reply, and what is kept of it.

A reply is one JSON object whose first field is the judge's `analysis`: the schema puts it
before the verdict, so a judge constrained by the schema (the embedded llama.cpp server, any
server with structured output) reasons before it decides. The analysis is then discarded:
`kept()` drops it, and only the kept part is cached, recorded or shown. Strict types: `passed`
must be a JSON boolean (not "true", not 1), nothing beyond the fields is allowed, and a reply
that does not validate is a `JudgeError`, never a pass and never a fail.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from ..exits import first_error, one_line

ANALYSIS_MAX = 600
"""Characters of analysis: enough to weigh each claim, and a bound a grammar-constrained small
model reaches before its token limit (a reply cut short is no verdict)."""
RATIONALE_MAX = 300

Analysis = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=ANALYSIS_MAX)
]
Rationale = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=RATIONALE_MAX)
]


class JudgeError(RuntimeError):
    """The judge gave no valid verdict (unreachable, refused, malformed, over budget): the
    score is an error, not a verdict, and nothing is cached."""


class Verdict(BaseModel):
    """What is kept of a grading reply."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    passed: bool
    rationale: Rationale


class Preference(BaseModel):
    """What is kept of a pairwise reply: which of the two, as shown, is better, or a tie."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    preferred: Literal["first", "second", "tie"]
    rationale: Rationale


class JudgeVerdict(BaseModel):
    """A grading reply: the analysis first, then the verdict and its reason."""

    model_config = ConfigDict(extra="forbid", strict=True)

    KEPT: ClassVar[type[Verdict]] = Verdict

    analysis: Analysis
    passed: bool
    rationale: Rationale

    def kept(self) -> Verdict:
        return Verdict(passed=self.passed, rationale=self.rationale)


class PairVerdict(BaseModel):
    """A pairwise reply: the analysis first, then which response is better."""

    model_config = ConfigDict(extra="forbid", strict=True)

    KEPT: ClassVar[type[Preference]] = Preference

    analysis: Analysis
    preferred: Literal["first", "second", "tie"]
    rationale: Rationale

    def kept(self) -> Preference:
        return Preference(preferred=self.preferred, rationale=self.rationale)


Reply = JudgeVerdict | PairVerdict


def parse_reply(text: str, model: type[JudgeVerdict] | type[PairVerdict]) -> Reply:
    """The reply as `model`: the whole text is one JSON object (one ```json fenced block is
    unwrapped). JudgeError, saying why, for anything else."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and body.count("```") == 2:
        body = body[3:-3].removeprefix("json").strip()
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        raise JudgeError(
            one_line(
                f"the judge's reply is not a valid {model.__name__} ({first_error(exc)}): "
                f"{body[:120]!r}"
            )
        ) from None


def parse_verdict(text: str) -> JudgeVerdict:
    reply = parse_reply(text, JudgeVerdict)
    assert isinstance(reply, JudgeVerdict)
    return reply
