"""What a judge must reply, and what is kept of it.

A reply is one JSON object whose first field is the judge's `analysis`: the schema puts it
before the verdict, so a judge constrained by the schema (the embedded llama.cpp server, any
server with structured output) reasons before it decides. The analysis is then discarded:
`kept()` drops it, and only the kept part is cached, recorded or shown. Strict types: `passed`
must be a JSON boolean (not "true", not 1), nothing beyond the fields is allowed, and a reply
that does not validate is a `JudgeError`, never a pass and never a fail.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, StringConstraints, ValidationError

from ..base.exits import first_error, one_line
from ..base.strict import Strict
from ..core.judge_port import JudgeError

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


class JudgeUnreachable(JudgeError):
    """The call itself failed (refused, timed out, the server erred): infrastructure, not
    evidence about the judge's judgement."""


class Verdict(Strict):
    """What is kept of a grading reply."""

    model_config = ConfigDict(strict=True, frozen=True)

    passed: bool
    rationale: Rationale


class Preference(Strict):
    """What is kept of a pairwise reply: which of the two, as shown, is better, or a tie."""

    model_config = ConfigDict(strict=True, frozen=True)

    preferred: Literal["first", "second", "tie"]
    rationale: Rationale


class JudgeVerdict(Strict):
    """A grading reply: the analysis first, then the verdict and its reason."""

    model_config = ConfigDict(strict=True)

    KEPT: ClassVar[type[Verdict]] = Verdict

    analysis: Analysis
    passed: bool
    rationale: Rationale

    def kept(self) -> Verdict:
        return Verdict(passed=self.passed, rationale=self.rationale)


class PairVerdict(Strict):
    """A pairwise reply: the analysis first, then which response is better."""

    model_config = ConfigDict(strict=True)

    KEPT: ClassVar[type[Preference]] = Preference

    analysis: Analysis
    preferred: Literal["first", "second", "tie"]
    rationale: Rationale

    def kept(self) -> Preference:
        return Preference(preferred=self.preferred, rationale=self.rationale)


Reply = JudgeVerdict | PairVerdict


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise _Duplicate(f"the key(s) {', '.join(map(repr, repeated))} appear twice")
    return dict(pairs)


def parse_reply(text: str, model: type[JudgeVerdict] | type[PairVerdict]) -> Reply:
    """The reply as `model`: the whole text is one JSON object (one ```json fenced block is
    unwrapped) whose first key is `analysis` -- the verdict may not come before its reasons,
    whether or not the server enforced the schema -- with no key twice (which of two `passed`
    would count is a parser's accident, not the judge's verdict). JudgeError, saying why, for
    anything else."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and body.count("```") == 2:
        body = body[3:-3].removeprefix("json").strip()

    def refused(why: str) -> JudgeError:
        shown = f"the judge's reply is not a valid {model.__name__} ({why}): {body[:120]!r}"
        return JudgeError(one_line(shown))

    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates)
    except _Duplicate as exc:
        raise refused(str(exc)) from None
    except ValueError as exc:
        raise refused(f"Invalid JSON: {exc}") from None
    except RecursionError:
        raise refused("nested too deeply to read") from None
    if isinstance(data, dict) and data and next(iter(data)) != "analysis":
        raise refused("the verdict came before its analysis: `analysis` must be the first key")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise refused(first_error(exc)) from None


def parse_verdict(text: str) -> JudgeVerdict:
    reply = parse_reply(text, JudgeVerdict)
    assert isinstance(reply, JudgeVerdict)
    return reply
