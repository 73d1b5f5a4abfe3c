"""Eval set files: reading them, the per-case metadata, and a light view of their cases.

Eval sets are ADK EvalSet JSON, unchanged, so `adk eval` runs them as they are. What ADK has no
field for -- a case's category, whether it is held out from tuning, the approval decision a
runner should give, the agent it targets, checks of its answers -- lives in one extra key of
each case, `meta`, validated by `CaseMeta` (ADK's EvalCase keeps extra keys and ignores them).
Reading is light (json + pydantic, no ADK import) so the validator starts fast; conformance to
ADK's own models is checked separately (`validation.adk`).
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from opskit.textfiles import TextFileError, read_text

from ..agents import case_agent, default_agent
from ..agents.ops_world import Approval
from ..base.strict import Strict
from . import strict_json
from .calls import ToolCall
from .contracts import Contracts, FileError, SetContracts, read_set_contracts
from .response_checks import ResponseCheck
from .scenario import ReferenceTurn, ScenarioMeta

META_KEY = "meta"
_EVAL_ID_KEY = re.compile(r'"(?:eval_id|evalId)"\s*:\s*"((?:[^"\\]|\\.)*)"')
Category = Literal["happy", "negative", "adversarial", "approval", "memory", "relevance", "fault"]
Split = Literal["tuning", "holdout"]


class ApprovalDecision(Strict):
    """How a runner answers this case's confirmation pauses: approve (with a rationale) or deny."""

    decision: Literal["approve", "deny"]
    rationale: str | None = None
    approver: str | None = None

    @model_validator(mode="after")
    def _rationale_fits_the_decision(self) -> ApprovalDecision:
        if self.decision == "approve":
            # Same rules, and the same normal form, as a real approval gets from the tools.
            approval = Approval.model_validate(
                {"rationale": self.rationale or "", "approver": self.approver or ""}
            )
            self.rationale = approval.rationale
            self.approver = approval.approver or None
        elif self.rationale or self.approver:
            raise ValueError("a deny decision carries no rationale or approver")
        return self

    def payload(self) -> dict[str, str] | None:
        if self.decision != "approve":
            return None
        out = {"rationale": self.rationale or ""}
        if self.approver:
            out["approver"] = self.approver
        return out


class Draft(Strict):
    """Where a drafted case came from, and what its reviewer must do."""

    source: str
    review: str


class CaseMeta(Strict):
    """The `meta` object of an eval case."""

    category: Category
    split: Split = "tuning"
    """`holdout` cases decide releases and are never used while tuning the instruction."""
    approval: ApprovalDecision | None = None
    agent: str = Field(default_factory=default_agent)
    """A package declaring an agent port (`agents.port`); `--agent`'s, else the project's."""
    contracts: Contracts = Field(default_factory=Contracts)
    """Trajectory contracts (argument matchers, forbidden calls, order rules, a second match
    mode, budgets, tool faults): `contracts.py`."""
    response: list[ResponseCheck] = []
    """Checks of the agent's answers (contains, regex, JSON, a model, a judge's rubric), each
    applied by the scorer of its name: `response_checks.py`."""
    scenario: ScenarioMeta | None = None  # a conversation's user rules, goal, ... (`scenario.py`)
    draft: Draft | None = None
    """Set by `ops-eval distill`: the case holds what an agent did, not yet what it should do;
    the validator refuses it until a person has set its expectations and removed this."""

    @field_validator("agent")
    @classmethod
    def _declared(cls, name: str) -> str:
        return case_agent(name)  # a ValueError: reported on the field, one line


class MalformedInput(Exception):
    """A file that cannot be read as what it claims to be (bad JSON, wrong top-level shape)."""

    def __init__(self, file: str, message: str) -> None:
        super().__init__(f"{file}: {message}")
        self.file = file
        self.message = message


@dataclass
class CaseTurn:
    index: int  # 1-based
    prompt: str
    reference: str
    calls: list[ToolCall]
    mistyped: frozenset[str] = frozenset()
    """`user_content`, `final_response`: a content not in ADK's shape (its text reads as empty;
    ADK's schema check reports it, with its path)."""


@dataclass
class ScenarioStart:
    """ADK's `conversation_scenario`: the first user message, the plan a simulated user follows,
    and its persona (an id of ADK's pre-built personas, or a persona object)."""

    starting_prompt: str
    plan: str
    persona: Any = None


@dataclass
class SessionInput:
    """The case's `session_input`, applied the way ADK applies it when it creates the session."""

    app_name: str | None = None
    user_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None


@dataclass
class Case:
    """What the validator and runners read of one case (ADK checks the full schema).

    `eval_id` is the case's id, or `#N` (its position) when the file gives no usable one;
    `declared_id` is the id exactly as the file gives it. `meta` is None when the file's
    `meta` (kept as `raw_meta`) is not valid; runners only ever see valid sets."""

    file: str
    eval_id: str
    turns: list[CaseTurn]
    meta: CaseMeta | None = None
    session: SessionInput = field(default_factory=SessionInput)
    declared_id: Any = None
    raw_meta: Any = None
    start: ScenarioStart | None = None
    """Set for a conversation scenario; its `turns` are then the reference conversation of
    `meta.scenario` (what the oracle plays and the validator checks; never scored)."""

    @property
    def scenario(self) -> ScenarioMeta | None:
        """The scenario's meta when the case is a scenario with a valid meta."""
        return self.meta.scenario if self.meta is not None and self.start else None


@dataclass
class EvalSetFile:
    path: Path
    display: str
    text: str
    data: dict[str, Any]
    cases: list[Case]

    @cached_property
    def set_contracts(self) -> tuple[SetContracts | None, list[FileError]]:
        """The set's `contracts.yaml` and its problems (`contracts.read_set_contracts`), read
        once."""
        return read_set_contracts(self.path)

    @cached_property
    def case_lines(self) -> dict[str, int]:
        """1-based line of each case's eval_id, for editor/CI annotations (one pass)."""
        lines: dict[str, int] = {}
        line, last = 1, 0
        for m in _EVAL_ID_KEY.finditer(self.text):
            line += self.text.count("\n", last, m.start())
            last = m.start()
            lines.setdefault(m.group(1), line)
        return lines


def display_path(path: Path) -> str:
    """`path` as messages name it: relative to the working folder when under it."""
    from opskit.textfiles import shown

    return shown(path)


def read_json(path: Path) -> tuple[str, Any]:
    """File text and parsed JSON, strictly (`strict_json`); MalformedInput names the line and
    column of a syntax error, or the key of a NaN or a key written twice."""
    shown = display_path(path)
    try:
        text = read_text(path)
    except TextFileError as exc:
        raise MalformedInput(shown, str(exc)) from None
    try:
        return text, strict_json.loads(text)
    except strict_json.NotStrictJson as exc:
        raise MalformedInput(shown, str(exc)) from None
    except json.JSONDecodeError as exc:
        raise MalformedInput(
            shown, f"line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})"
        ) from None
    except RecursionError:
        raise MalformedInput(shown, "nested too deeply to read") from None


def _get(obj: Any, snake: str) -> Any:
    """A key by its snake_case name or its camelCase alias (ADK accepts both inside a case)."""
    if not isinstance(obj, dict):
        return None
    if snake in obj:
        return obj[snake]
    head, *rest = snake.split("_")
    return obj.get(head + "".join(w.capitalize() for w in rest))


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _session_input(raw: Any) -> SessionInput:
    return SessionInput(
        app_name=_str(_get(raw, "app_name")),
        user_id=_str(_get(raw, "user_id")),
        state=_dict(_get(raw, "state")),
        session_id=_str(_get(raw, "session_id")),
    )


def _text(content: Any, *, required: bool) -> str | None:
    """The text of a content's parts; None when the content is not in ADK's shape (missing when
    required, not an object, parts not a list of objects, a text that is not a string) -- ADK's
    schema check reports that with its path, so reading here must not crash on it."""
    if content is None:
        return None if required else ""
    parts = _get(content, "parts") if isinstance(content, dict) else ()
    if parts is None:
        return ""
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return None
    texts = [_get(p, "text") for p in parts]
    if any(t is not None and not isinstance(t, str) for t in texts):
        return None
    return "".join(t for t in texts if t).strip()


def _turn(index: int, invocation: Any) -> CaseTurn:
    prompt = _text(_get(invocation, "user_content"), required=True)
    reference = _text(_get(invocation, "final_response"), required=False)
    mistyped = {"user_content": prompt, "final_response": reference}
    return CaseTurn(
        index=index,
        prompt=prompt or "",
        reference=reference or "",
        calls=_calls(invocation),
        mistyped=frozenset(k for k, v in mistyped.items() if v is None),
    )


def _calls(invocation: Any) -> list[ToolCall]:
    uses = _get(_get(invocation, "intermediate_data"), "tool_uses")
    if not isinstance(uses, list):
        return []
    # Anything malformed here is reported by ADK's schema check; reading must not crash on it.
    return [
        ToolCall(
            str(u.get("name") or ""), dict(u["args"]) if isinstance(u.get("args"), dict) else {}
        )
        for u in uses
        if isinstance(u, dict)
    ]


def read_evalset(path: Path) -> EvalSetFile:
    """Read one eval set file into cases; raises MalformedInput for bad JSON or shape."""
    text, data = read_json(path)
    shown = display_path(path)
    if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
        raise MalformedInput(shown, "top level must be an object with an 'eval_cases' list")
    cases = []
    for position, raw in enumerate(data["eval_cases"]):
        if not isinstance(raw, dict):
            raise MalformedInput(shown, f"eval_cases[{position}] is not an object")
        conversation = _get(raw, "conversation") or []
        turns = [
            _turn(i + 1, inv)
            for i, inv in enumerate(conversation if isinstance(conversation, list) else [])
        ]
        declared = _get(raw, "eval_id")
        case = Case(
            file=shown,
            eval_id=declared if isinstance(declared, str) and declared else f"#{position + 1}",
            turns=turns,
            session=_session_input(_get(raw, "session_input")),
            declared_id=declared,
            raw_meta=raw.get(META_KEY),
        )
        with contextlib.suppress(ValidationError):  # the validator says why (`meta_rules`)
            case.meta = CaseMeta.model_validate(case.raw_meta)
        _read_scenario(case, _get(raw, "conversation_scenario"))
        cases.append(case)
    return EvalSetFile(path=path, display=shown, text=text, data=data, cases=cases)


def _read_scenario(case: Case, raw: Any) -> None:
    """A `conversation_scenario`'s start, and its reference conversation as the case's turns."""
    if not isinstance(raw, dict):
        return
    case.start = ScenarioStart(
        starting_prompt=_str(_get(raw, "starting_prompt")) or "",
        plan=_str(_get(raw, "conversation_plan")) or "",
        persona=_get(raw, "user_persona"),
    )
    if case.meta is not None and case.meta.scenario is not None:
        reference = case.meta.scenario.reference
    else:  # a meta invalid elsewhere still gives its reference to the other rules
        from pydantic import TypeAdapter

        raw_scenario = case.raw_meta.get("scenario") if isinstance(case.raw_meta, dict) else None
        raw = raw_scenario.get("reference") if isinstance(raw_scenario, dict) else None
        try:
            reference = TypeAdapter(list[ReferenceTurn]).validate_python(raw)
        except ValidationError:
            return
    case.turns = [
        CaseTurn(
            index=i,
            prompt=t.user,
            reference=t.answer,
            calls=[ToolCall(c.name, dict(c.args)) for c in t.calls],
        )
        for i, t in enumerate(reference, start=1)
    ]
