"""Response checks: what a case declares about the agent's answer text, in `meta.response`.

ADK's EvalCase has no field for "the answer must be JSON" or "must not repeat the planted
instruction", so a case lists them in its `meta` (which ADK keeps and ignores), one object per
check, told apart by `scorer` -- the name of the registered scorer that applies it:

    "meta": {"category": "happy",
             "response": [{"scorer": "contains", "text": "INC-002"},
                          {"scorer": "numeric_range", "range": "1..3", "path": "/evidence_count"},
                          {"scorer": "regex", "pattern": "SEV[12]", "turn": 2}]}

Every check has `turn`: the 1-based turn of the case whose answer it reads; None (the default)
reads the case's last turn. The deterministic kinds are scored by one module each
(`scorers/exact.py`, ...); `llm_judge` is graded by a judge model against its rubric.

This module holds the format only, read by pydantic when a set is read -- so a malformed check
is a problem of `meta` that `ops-eval validate` reports with its field (`meta.response[2].pattern`)
and `ops-eval run` therefore refuses. What needs the case around a check (a turn outside its
turns, a check its own reference fails) is a validation rule (`validation/response_rules.py`);
a check read with its case is `case_checks`; numbers and JSON pointers are `answer_numbers`.

The JSON kinds (`json_valid`, `json_equal`, `numeric_range` with a `path`, `pydantic`) read a
response that is one fenced block -- "```json" (or a bare "```") on its own line, the JSON, and
"```" -- as the JSON inside it: models often fence structured answers, and the fence is
presentation, not content.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import ConfigDict, Field, field_validator

from ..base.strict import Strict
from .answer_numbers import Number, parse_range, pointer_tokens

_SHOWN = 60  # characters of a declared text shown in a detail


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _short(text: str) -> str:
    return repr(_clip(text))


class _Check(Strict):
    """What every check has. Strict: `"ignore_case": "yes"` is a mistake to report, not a
    truthy string to accept."""

    model_config = ConfigDict(frozen=True, strict=True)

    turn: int | None = Field(default=None, ge=1)
    """The 1-based turn whose answer is checked; None: the case's last turn."""

    def show(self) -> str:
        """The check in a few words, for a detail or a problem line."""
        return str(self.scorer)  # type: ignore[attr-defined]


def _not_blank(text: str, why: str) -> str:
    if not text.strip():
        raise ValueError(f"is empty: {why}")
    return text


class ExactCheck(_Check):
    """The answer, stripped of surrounding whitespace, equals `text`."""

    scorer: Literal["exact"]
    text: str

    def show(self) -> str:
        return f"exact {_short(self.text)}"


class _TextCheck(_Check):
    """A text looked for in the answer, never empty (`ignore_case`: compared case-folded)."""

    text: str
    ignore_case: bool = False
    _EMPTY: ClassVar[str]
    """Why an empty text is refused."""

    @field_validator("text")
    @classmethod
    def _some_text(cls, text: str) -> str:
        return _not_blank(text, cls._EMPTY)

    def show(self) -> str:
        suffix = " (ignoring case)" if self.ignore_case else ""
        return f"{self.scorer} {_short(self.text)}{suffix}"  # type: ignore[attr-defined]


class ContainsCheck(_TextCheck):
    """`text` occurs in the answer (`ignore_case`: compared case-folded)."""

    scorer: Literal["contains"]
    _EMPTY = "every answer contains the empty string"


class NotContainsCheck(_TextCheck):
    """`text` does not occur in the answer (`ignore_case`: compared case-folded)."""

    scorer: Literal["not_contains"]
    _EMPTY = "every answer contains the empty string, so none would pass"


class RegexCheck(_Check):
    """`pattern` matches somewhere in the answer (`re.search`; `ignore_case`: re.IGNORECASE)."""

    scorer: Literal["regex"]
    pattern: str
    ignore_case: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        if not pattern:
            raise ValueError("is empty: it matches the empty string, so every answer passes")
        try:
            compiled = re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:  # each a pattern's fault
            raise ValueError(f"/{_clip(pattern)}/ does not compile: {exc}") from None
        if compiled.search("") is not None:  # x*, ^, (a|): found in any text, checks nothing
            raise ValueError(
                f"/{_clip(pattern)}/ matches the empty string, so every answer passes: it "
                "checks nothing"
            )
        return pattern

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE if self.ignore_case else 0)

    def show(self) -> str:
        return f"regex /{_clip(self.pattern)}/" + ("i" if self.ignore_case else "")


class JsonValidCheck(_Check):
    """The answer (or its one fenced ```json block) is JSON: RFC 8259, so no NaN or Infinity."""

    scorer: Literal["json_valid"]

    def show(self) -> str:
        return "json_valid"


class JsonEqualCheck(_Check):
    """The answer's JSON (or its one fenced ```json block's) equals `value`: key order is
    irrelevant, 1 equals 1.0, and a boolean never equals a number (Python's True == 1 is not
    JSON's)."""

    scorer: Literal["json_equal"]
    value: Any

    @field_validator("value")
    @classmethod
    def _is_json(cls, value: Any) -> Any:
        import json

        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"is not a JSON value: {exc} (NaN, Infinity are not JSON)") from None
        return value

    def show(self) -> str:
        import json

        return f"json_equal {_short(json.dumps(self.value, sort_keys=True))}"


class NumericRangeCheck(_Check):
    """A number lies in `range`, "lo..hi" inclusive (lo <= hi, both finite, of any size): the
    value at the JSON pointer `path` in the answer's JSON (or its one fenced ```json block's), or
    -- with no path -- the whole stripped answer, which must then be one number. Compared
    exactly (`Number`)."""

    scorer: Literal["numeric_range"]
    range: str
    path: str | None = None

    @field_validator("range")
    @classmethod
    def _bounds(cls, text: str) -> str:
        parse_range(text)
        return text

    @field_validator("path")
    @classmethod
    def _pointer(cls, path: str | None) -> str | None:
        if path is not None:
            pointer_tokens(path)
        return path

    @property
    def bounds(self) -> tuple[Number, Number]:
        return parse_range(self.range)

    def shown_range(self) -> str:
        """`range`, shortened when long (a 5,000-digit bound is not a detail)."""
        return _clip(self.range)

    def shown_path(self) -> str:
        """`path`, shortened when long ("" without one)."""
        return _clip(self.path) if self.path is not None else ""

    def show(self) -> str:
        at = f" at {self.shown_path()}" if self.path is not None else ""
        return f"numeric_range {self.shown_range()}{at}"


class PydanticCheck(_Check):
    """The answer's JSON (or its one fenced ```json block's) validates as the answer model
    named `model` -- a name declared in `answer_models` (e.g. TriageReport), never an import
    path an eval set could point anywhere."""

    scorer: Literal["pydantic"]
    model: str

    @field_validator("model")
    @classmethod
    def _known(cls, name: str) -> str:
        from .answer_models import ANSWER_MODELS

        if name not in ANSWER_MODELS:
            from ..agents.ops_world import closest

            near = closest(name, ANSWER_MODELS)
            hint = f" (did you mean {near!r}?)" if near else ""
            known = ", ".join(sorted(ANSWER_MODELS)) or "none"
            raise ValueError(f"{name!r} is not a known answer model{hint}; known: {known}")
        return name

    def show(self) -> str:
        return f"pydantic {self.model}"


class LlmJudgeCheck(_Check):
    """A judge model grades the answer against `rubric` (non-empty); it is not deterministic,
    so a case's own reference is not held to it by the validator."""

    scorer: Literal["llm_judge"]
    rubric: str

    @field_validator("rubric")
    @classmethod
    def _some_rubric(cls, rubric: str) -> str:
        return _not_blank(rubric, "a judge needs a rubric to grade against")

    def show(self) -> str:
        return f"llm_judge {_short(self.rubric)}"


Check = (
    ExactCheck
    | ContainsCheck
    | NotContainsCheck
    | RegexCheck
    | JsonValidCheck
    | JsonEqualCheck
    | NumericRangeCheck
    | PydanticCheck
    | LlmJudgeCheck
)
"""Any one check model."""

ResponseCheck = Annotated[Check, Field(discriminator="scorer")]
"""One declared check of a case's answer, told apart by its `scorer` (what `meta.response`
holds)."""

CHECK_MODELS: dict[str, type[_Check]] = {
    get_args(model.model_fields["scorer"].annotation)[0]: model for model in get_args(Check)
}
"""Kind -> its model, derived from the union (one list of kinds)."""
KINDS: tuple[str, ...] = tuple(sorted(CHECK_MODELS))
JUDGED: frozenset[str] = frozenset({"llm_judge"})
"""The kinds a model grades: never held against the reference, never scored here."""
DETERMINISTIC: tuple[str, ...] = tuple(k for k in KINDS if k not in JUDGED)
