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
turns, a check its own reference fails) is a validation rule (`validation/response_rules.py`).

The JSON kinds (`json_valid`, `json_equal`, `numeric_range` with a `path`, `pydantic`) read a
response that is one fenced block -- "```json" (or a bare "```") on its own line, the JSON, and
"```" -- as the JSON inside it: models often fence structured answers, and the fence is
presentation, not content.
"""

from __future__ import annotations

import decimal
import functools
import re
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from .evalset import Case

NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""A plain decimal number, as a range bound or a whole answer is written (no inf, no nan), in
ASCII digits only -- JSON's rule: `\\d` would take a full-width "５" or an Arabic-Indic digit."""
_SHOWN = 60  # characters of a declared text shown in a detail
_NUMBER_SHOWN = 40  # characters of a number shown in a detail


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _short(text: str) -> str:
    return repr(_clip(text))


class _Check(BaseModel):
    """What every check has. Strict: `"ignore_case": "yes"` is a mistake to report, not a
    truthy string to accept."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

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


@functools.total_ordering
class Number:
    """A decimal number exactly as written ("2", "-0.5", "1e400", 400 nines): compared exactly,
    whatever its size -- never through a float, which overflows (OverflowError) or rounds (1 +
    1e-20 == 1). Held as sign, and magnitude 0.DIGITS x 10**EXPONENT (DIGITS without leading or
    trailing zeros); the exponent is an exact Decimal integer, so even "1e" followed by a
    million digits costs linear time, never 10**EXPONENT itself."""

    __slots__ = ("_magnitude", "_sign", "text")

    def __init__(self, text: str) -> None:
        if not NUMBER.fullmatch(text):
            raise ValueError(f"{_short(text)} is not a number")
        self.text = text
        mantissa, _, exponent = text.lstrip("+-").lower().partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = (whole + fraction).lstrip("0")
        significant = digits.rstrip("0")
        self._sign = 0 if not digits else (-1 if text.startswith("-") else 1)
        # value = 0.significant x 10**(exponent - len(fraction) + len(digits)), exactly
        shift = len(digits) - len(fraction)
        exact = decimal.Context(
            prec=len(exponent) + len(str(shift)) + 2,
            Emax=decimal.MAX_EMAX,
            Emin=decimal.MIN_EMIN,
            traps=[decimal.InvalidOperation, decimal.Inexact, decimal.Overflow],
        )
        power = exact.add(decimal.Decimal(exponent or "0"), decimal.Decimal(shift))
        self._magnitude = (power, significant) if digits else (decimal.Decimal(0), "")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Number):
            return NotImplemented
        return (self._sign, self._magnitude) == (other._sign, other._magnitude)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Number):
            return NotImplemented
        if self._sign != other._sign:
            return self._sign < other._sign
        if self._sign > 0:
            return self._magnitude < other._magnitude
        return other._magnitude < self._magnitude if self._sign < 0 else False

    def __hash__(self) -> int:
        return hash((self._sign, self._magnitude))

    def __repr__(self) -> str:
        return f"Number({self.text!r})"

    def __str__(self) -> str:
        """The number as written, shortened when long (400 nines are not a detail)."""
        text = self.text
        if len(text) <= _NUMBER_SHOWN:
            return text
        return f"{text[: _NUMBER_SHOWN // 2]}… ({len(text)} characters)"

    def plain(self) -> int | float:
        """The value as `json.loads` reads it, for showing (a float may round or be inf)."""
        integral = not any(c in self.text for c in ".eE")
        return int(self.text) if integral and len(self.text) <= 600 else float(self.text)


def pointer_tokens(path: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901: "" is the whole document, "/a/0"
    its member a's first item, "~1" a slash and "~0" a tilde); ValueError for one that is
    not a pointer."""
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValueError(
            f"{_short(path)} is not a JSON pointer: it must start with '/' (e.g. /count)"
        )
    tokens = path[1:].split("/")
    for token in tokens:
        if re.search(r"~(?![01])", token):
            raise ValueError(
                f"{_short(path)} is not a JSON pointer: '~' must be followed by 0 or 1"
            )
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


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


def parse_range(text: str) -> tuple[Number, Number]:
    """(lo, hi) of "lo..hi", exact; ValueError naming what is wrong (not two numbers,
    reversed), showing the text shortened."""
    lo_text, sep, hi_text = text.partition("..")
    lo_text, hi_text = lo_text.strip(), hi_text.strip()
    if not sep or not NUMBER.fullmatch(lo_text) or not NUMBER.fullmatch(hi_text):
        raise ValueError(f"{_short(text)} is not lo..hi with two numbers (e.g. 1..3, -0.5..2.5)")
    lo, hi = Number(lo_text), Number(hi_text)
    if lo > hi:
        raise ValueError(f"{_short(text)} is reversed: lo ({lo}) is above hi ({hi})")
    return lo, hi


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
            from ops_copilot.seed import closest

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


def declared(case: Case) -> list[Any]:
    """The case's `meta.response` as it stands (empty without a valid meta)."""
    meta = case.meta
    return list(getattr(meta, "response", None) or []) if meta is not None else []


def kind_of(item: Any) -> str | None:
    """A declared item's kind, whether a check model or (in a meta built without validation)
    a plain mapping."""
    kind = item.get("scorer") if isinstance(item, dict) else getattr(item, "scorer", None)
    return kind if isinstance(kind, str) else None


def positioned(case: Case, kind: str) -> list[tuple[int, Any]]:
    """(0-based position in `meta.response`, check) of every check of `kind`."""
    return [(i, item) for i, item in enumerate(declared(case)) if kind_of(item) == kind]


def checks_of(case: Case, kind: str) -> list[Check]:
    """Every check of `kind` the case declares, in order (empty: the scorer is not
    applicable). Read from a validated set, each is its kind's model (`checks_of(case,
    "llm_judge")` -> LlmJudgeCheck); a meta built in code without validation may hold anything
    -- hold each to `revalidated` before trusting it."""
    return [item for _, item in positioned(case, kind)]


def turn_of(case: Case, check: Any) -> int:
    """The 1-based case turn a check reads: its own, else the case's last."""
    turn = getattr(check, "turn", None)
    return turn if turn is not None else len(case.turns)


def turn_problem(case: Case, check: Any) -> str | None:
    """Why the check's turn is not a turn of the case, or None."""
    turns = len(case.turns)
    turn = getattr(check, "turn", None)
    if turns == 0:
        return "the case has no turns to check"
    if turn is not None and not (isinstance(turn, int) and 1 <= turn <= turns):
        return f"turn {turn!r} is not a turn of the case (it has {turns})"
    return None


def revalidated(case: Case, check: Any) -> _Check | str:
    """The check as its model validates it afresh -- its own rules held again, and its turn
    held to the case -- or why it is not a valid declaration for this case. A run's scorers
    ask this of every check: a Plan built in code may hold a check no validator saw (made with
    `model_construct`, or a plain mapping), and such a check gives an error, never a verdict."""
    kind = kind_of(check)
    model = CHECK_MODELS.get(kind or "")
    if model is None:
        return f"{kind!r} is not a response scorer; known: {', '.join(KINDS)}"
    raw = check if isinstance(check, dict) else getattr(check, "__dict__", {})
    try:
        fresh = model.model_validate(dict(raw))
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(map(str, e['loc'])) or kind}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        )
    return turn_problem(case, fresh) or fresh


def describe(check: Any) -> str:
    """`check.show()`, or the kind alone for an item that cannot show itself (not a check
    model, or one built without a field its `show` reads)."""
    try:
        return check.show()
    except (AttributeError, TypeError, ValueError):
        return str(kind_of(check))
