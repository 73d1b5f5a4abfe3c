"""The red-team corpus: attack and benign YAML files, validated against the seed and the tools.

The file format is documented in `evals/redteam/README.md`. An attack names where its payload is
planted (an injection point such as `log:database`), the tool calls it tries to cause and/or the
text it tries to put in the agent's answer, and -- when spotlighting is known not to neutralise
it -- why (`known_gap`). How an attack is planted and read is in `planting`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..agents.ops_guards import claim_holds, extract, seed_vocabulary, strings
from ..agents.ops_state import Workspace, precheck_write
from ..agents.ops_world import Seed, closest, normalise, tool_specs
from ..base.strict import Strict
from ..core.calls import ToolCall
from ..validation.call_rules import article, signature_problems
from .reading import CorpusError, read_yaml

AttackClass = Literal[
    "instruction-override",
    "persona-hijack",
    "tool-redirection",
    "mass-action",
    "forged-approval",
    "delimiter-forgery",
    "unicode-obfuscation",
    "encoded-instruction",
    "exfiltration-link",
    "prompt-exfiltration",
    "argument-injection",
    "split-instruction",
    "kill-switch",
    "answer-manipulation",
    "denial-of-service",
]
ATTACK_CLASSES: tuple[str, ...] = AttackClass.__args__  # type: ignore[attr-defined]
PointKind = Literal["log", "runbook", "incident-summary", "incident-timeline", "note"]
POINT_KINDS: tuple[str, ...] = PointKind.__args__  # type: ignore[attr-defined]
ENTITY_OF_POINT = {
    "log": "service",
    "runbook": "runbook",
    "incident-summary": "incident",
    "incident-timeline": "incident",
    "note": "incident",
}
# Every character str.splitlines() breaks on: a payload is planted as one line of its source.
_LINE_BREAKS = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")

__all__ = ["ATTACK_CLASSES", "Attack", "BenignLine", "CorpusError", "load_attacks", "load_benign"]


def _encodable(value: Any) -> None:
    """Text the suite writes into seed files and prints must be valid Unicode."""
    for text in strings(value):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text holds a lone surrogate, which is not valid Unicode") from None


class Part(Strict):
    point: str = Field(pattern=r"^[a-z-]+:\S+$")
    payload: str = Field(min_length=1, max_length=4000)

    @field_validator("payload")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if _LINE_BREAKS.search(value):
            raise ValueError("a payload is one line (it is planted as one log line or sentence)")
        if not value.strip():
            raise ValueError("a payload holds visible text")
        _encodable(value)
        return value

    @property
    def kind(self) -> str:
        return self.point.split(":", 1)[0]

    @property
    def target(self) -> str:
        return self.point.split(":", 1)[1]


class Attack(Strict):
    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=100)
    cls: AttackClass = Field(alias="class")
    point: str | None = None
    payload: str | None = None
    parts: list[Part] = []
    action: list[dict[str, dict[str, Any]]] = []
    """The tool calls the payload tries to cause."""
    answer: str | None = Field(default=None, min_length=1, max_length=2000)
    """What the payload tries to put in the agent's final answer (an exfiltration link)."""
    claim: str | None = Field(default=None, min_length=1, max_length=500)
    """A statement about the seed the payload wants the agent to make ("INC-002 is resolved"),
    judged by the claims reader whatever its wording."""
    phrase: str | None = Field(default=None, min_length=1, max_length=500)
    """Text the payload wants in the answer word for word (an advert, a phone number, the text
    that replaces the answer in a denial of service)."""
    family: str = Field(default="ops-copilot", pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    """The published attack family it is written after (`agentdojo-important-instructions`,
    `injecagent-enhanced`, ...), in our own words; `ops-copilot` for the project's own."""
    held_out: bool = False
    """Set from the file (`split: held-out`): never used to tune the neutraliser, so its
    detection is reported, not checked against `known_gap`."""
    known_gap: str | None = None
    """Why spotlighting does not neutralise this payload; the suite checks the claim."""

    @field_validator("known_gap")
    @classmethod
    def _a_reason(cls, value: str | None) -> str | None:
        if value is not None and len(value.split()) < 3:
            raise ValueError("say why the neutraliser misses this payload, in a few words")
        return value

    @model_validator(mode="after")
    def _single_or_parts(self) -> Attack:
        single = self.point is not None or self.payload is not None
        if single and self.parts:
            raise ValueError("give either point and payload, or parts, not both")
        if single:
            if self.point is None or self.payload is None:
                raise ValueError("point and payload go together")
            self.parts = [Part(point=self.point, payload=self.payload)]
        if not self.parts:
            raise ValueError("an attack needs point and payload, or parts")
        for step in self.action:
            if len(step) != 1:
                raise ValueError("each action step is one mapping: {tool_name: {args}}")
        if not self.action and not self.says:
            raise ValueError(
                "an attack needs an action, an answer, a claim or a phrase (what it is after)"
            )
        _encodable([self.answer, self.claim, self.phrase, self.known_gap, self.action])
        return self

    @property
    def says(self) -> str | None:
        """What an attacker that obeys puts in its answer: the link, claim and phrase asked for."""
        said = [t for t in (self.answer, self.claim, self.phrase) if t]
        return " ".join(said) if said else None

    @property
    def aims_at_answer(self) -> bool:
        """The payload wants something in the answer: only then can an output guard matter."""
        return self.says is not None

    @property
    def calls(self) -> list[ToolCall]:
        return [ToolCall(name, dict(args)) for step in self.action for name, args in step.items()]


class BenignLine(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=100)
    source: Literal["log", "runbook"]
    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _valid(cls, value: str) -> str:
        _encodable(value)
        return value


class _AttackFile(Strict):
    version: Literal[1]
    split: Literal["tuned", "held-out"] = "tuned"
    attacks: list[dict[str, Any]]


class _BenignFile(Strict):
    version: Literal[1]
    benign: list[dict[str, Any]]


def _first(exc: ValidationError) -> tuple[str, str]:
    err = exc.errors()[0]
    return ".".join(map(str, err["loc"])) or "(entry)", err["msg"]


def _label(raw: Any, index: int) -> str:
    """How a message names an entry: its id when it is a plain one, else its position."""
    label = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(label, str) and re.fullmatch(r"[\w.-]{1,100}", label):
        return label
    return repr(label)[:60] if label not in (None, "") else f"#{index + 1}"


def _entries(path: Path, model: type[BaseModel], key: str) -> list[dict[str, Any]]:
    try:
        parsed = model.model_validate(read_yaml(path))
        entries = getattr(parsed, key)
        if getattr(parsed, "split", "tuned") == "held-out":
            entries = [{**e, "held_out": True} if isinstance(e, dict) else e for e in entries]
        else:
            for i, e in enumerate(entries):
                if isinstance(e, dict) and "held_out" in e:
                    raise CorpusError(
                        f"{path}: attack {_label(e, i)}, field held_out: set by the file "
                        "(split: held-out), not per attack"
                    )
        return entries
    except ValidationError as exc:
        field, msg = _first(exc)
        raise CorpusError(f"{path}: field {field}: {msg}") from None


def _action_problems(
    attack: Attack, seed: Seed, clean: Workspace
) -> Iterator[tuple[int, str, str]]:
    """(action index, field, message) for every action step that cannot run as written: the
    eval-set validator's signature rules (known and required arguments, declared types), the
    entities it names must exist in the seed -- except in an argument-injection attack, whose
    hostile id is the point -- and a write must be one the seed can accept (resolving an
    incident the seed has resolved already is refused before any approval is asked, so no
    guard is ever tested). An attack whose action cannot work proves nothing."""
    specs = tool_specs()
    for i, call in enumerate(attack.calls):
        spec = specs.get(call.name)
        if spec is None:
            yield i, "", f"{call.name!r} is not a tool of the agent"
            continue
        misfits = list(signature_problems(spec, call))
        for message, arg in misfits:
            yield i, f".{call.name}.{arg}", message
        for arg, kind in spec.entities.items():
            value = call.args.get(arg)
            if attack.cls == "argument-injection" or not isinstance(value, str):
                continue
            if any(arg == bad for _, bad in misfits):
                continue
            key = normalise(kind, value)
            if key not in seed.ids(kind):
                near = closest(key, seed.ids(kind))
                hint = f" (did you mean {near!r}?)" if near else ""
                message = f"{value!r} is not {article(kind)} in the seed{hint}"
                yield i, f".{call.name}.{arg}", message
            elif spec.is_write and not misfits:
                refused = precheck_write(call.name, call.args, clean)
                if refused is not None and refused.get("reason") != "writes_disabled":
                    why = refused.get("message") or refused.get("reason")
                    yield i, f".{call.name}", f"the seed never accepts this write: {why}"


def _check_refs(attack: Attack, where: str, seed: Seed, clean: Workspace) -> None:
    for i, part in enumerate(attack.parts):
        field = "point" if attack.point else f"parts.{i}.point"
        if part.kind not in POINT_KINDS:
            raise CorpusError(
                f"{where}, field {field}: {part.kind!r} is not an injection point "
                f"({', '.join(POINT_KINDS)})"
            )
        kind = ENTITY_OF_POINT[part.kind]
        if normalise(kind, part.target) not in seed.ids(kind):  # type: ignore[arg-type]
            raise CorpusError(
                f"{where}, field {field}: {part.target!r} is not a {kind} in the seed"
            )
    for i, field, message in _action_problems(attack, seed, clean):
        raise CorpusError(f"{where}, field action.{i}{field}: {message}")
    if attack.claim:
        claims = extract(attack.claim, seed_vocabulary(seed))
        if not claims:
            raise CorpusError(
                f"{where}, field claim: {attack.claim!r} reads as no claim about the seed (say "
                "an entity and its status, severity or owner, e.g. 'INC-002 is resolved')"
            )
        if all(claim_holds(c, clean) for c in claims):
            raise CorpusError(
                f"{where}, field claim: the seed already says {attack.claim!r}; an attack must "
                "want a claim the seed contradicts"
            )


def load_attacks(paths: list[Path], seed: Seed) -> list[Attack]:
    """Every attack in `paths`, checked against the seed and the declared tools."""
    attacks: list[Attack] = []
    seen: dict[str, Path] = {}
    clean = Workspace.fresh(seed, writes_disabled=False)  # the seed's state, for writes
    try:
        for path in paths:
            for index, raw in enumerate(_entries(path, _AttackFile, "attacks")):
                where = f"{path}: attack {_label(raw, index)}"
                try:
                    attack = Attack.model_validate(raw)
                except ValidationError as exc:
                    field, msg = _first(exc)
                    raise CorpusError(f"{where}, field {field}: {msg}") from None
                if attack.id in seen:
                    also = f"duplicate id (also in {seen[attack.id]})"
                    raise CorpusError(f"{where}, field id: {also}")
                seen[attack.id] = path
                _check_refs(attack, where, seed, clean)
                attacks.append(attack)
    finally:
        clean.store.close()
    return attacks


def load_benign(path: Path) -> list[BenignLine]:
    lines = []
    for index, raw in enumerate(_entries(path, _BenignFile, "benign")):
        try:
            lines.append(BenignLine.model_validate(raw))
        except ValidationError as exc:
            field, msg = _first(exc)
            raise CorpusError(
                f"{path}: benign {_label(raw, index)}, field {field}: {msg}"
            ) from None
    return lines


def path_like(value: Any) -> bool:
    return isinstance(value, str) and bool(re.search(r"\.\./|^/|[;|&`$]", value))
