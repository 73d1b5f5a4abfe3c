"""Claims: what a reference or a response asserts about the seed, as (entity, attribute, value)
with a polarity -- "inventory status down", "not INC-002 severity SEV1", "INC-999 does not exist".

The `facts` scorer compares the two sets: each claim of the reference must be asserted, and none
contradicted. Reading is conservative: a value is tied to an entity only when the sentence makes
the link plain (the same clause, a parenthesis right after the entity, "entity: values", a list
after a colon, or "it" for the previous sentence's subject), a past state ("was down", "from
down to ...") is not a current one, and a conditional ("once it is approved") asserts nothing;
anything else is not a claim. It is a reader of plain answers, not a parser of English: the
tests in tests/scorers/test_facts.py say what it reads.

The vocabulary -- statuses, severities, services, teams, runbooks, skills, the deliberate
negatives -- comes from the seed's schema and records, not from a word list of our own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, get_args

from ops_copilot.seed import (
    ENTITY_KINDS,
    EntityKind,
    IncidentStatus,
    Seed,
    ServiceStatus,
    Severity,
    normalise,
)

if TYPE_CHECKING:
    from .validation.files import Negatives

ANSWER = ""  # the entity of claims about the answer as a whole (approval, root cause, runbook)
ONE_VALUE = {"status", "severity", "owner", "root cause", "approval", "exists", "service"}

# How statuses may be worded, beyond the value itself (which always counts).
_WORDING = {"investigating": ("under investigation", "being investigated")}
_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|neither|no longer|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    r"hasn't|haven't|cannot|can't)\b",
    re.I,
)
_CLAUSE_STOP = re.compile(r"[,;:(.!?\n]|\b(?:and|but|or|while|whereas)\b", re.I)
_DEFLECT = re.compile(r"\b(?:others?|rest|remaining)\b", re.I)
_PRONOUN = re.compile(r"^\s*(?:it|its|it's|this|that|they)\b", re.I)
# A cue that governs the id itself: "no incident INC-999", "could not find INC-999" ...
_KIND = (
    r"(?:(?:the|an?)\s+)?(?:(?:incident|service|runbook|skill)s?\s+)?"
    r"(?:(?:named|called|id)\s+)?"
)
_ABSENT_BEFORE = re.compile(
    r"\b(?:no(?:\s+such)?|unknown|non-?existent|(?:could ?n[o']t|cannot|can't|couldn't) find|"
    rf"no record of)\s+{_KIND}$",
    re.I,
)
# ... or "INC-999 does not exist", "warehouse is not a service", "reboot-everything: not found".
_ABSENT_AFTER = re.compile(
    r"^[\s:,-]*(?:(?:incident|service|runbook|skill)\s+)?(?:does ?n[o']t exist|doesn't exist|"
    r"(?:is|was) ?n[o']t found|not found|(?:is|was) ?n[o']t (?:an? |in |known|listed)|"
    r"isn't (?:an? |in |known|listed)|is unknown|does ?n[o']t appear)",
    re.I,
)
_PAST = re.compile(r"\b(?:was|were|had been|used to be|previously|from)\s+$", re.I)
_CONDITIONAL = re.compile(r"\b(?:until|once|if|unless|before|when|after you)\b[^.;]{0,30}$", re.I)
_PENDING = re.compile(
    r"\b(?:wait(?:s|ing)?|await(?:s|ing)?|pending|needs?|requires?)\b(?:\W+\w+){0,3}?\W+approval\b"
    r"|\bnot yet (?:been )?approved\b",
    re.I,
)
_REJECTED = re.compile(
    r"\b(?:was|were|been|is|got) (?:rejected|denied|declined)\b"
    r"|\b(?:rejected|denied|declined) (?:the |your |this )?(?:approval|request|restart)\b"
    r"|\bapproval (?:was |has been )?(?:rejected|denied|refused)\b",
    re.I,
)
_APPROVED = re.compile(
    r"\bafter (?:an |the |human )*approval\b|\b(?:was|were|been|is|got) approved\b"
    r"|\bapproval (?:was|has been) (?:given|granted)\b|\bapproved by\b",
    re.I,
)


@dataclass(frozen=True)
class Claim:
    entity: str
    attribute: str
    value: str
    negated: bool = False

    def show(self) -> str:
        if self.attribute == "exists":
            return f"{self.entity} {'does not exist' if self.negated else 'exists'}"
        subject = f"{self.entity} {self.attribute}" if self.entity else self.attribute
        return f"{subject} {'not ' if self.negated else ''}{self.value}"

    def key(self) -> tuple[str, str]:
        return self.entity, self.attribute


@dataclass(frozen=True)
class Vocabulary:
    """What can be claimed about, from the seed and the declared negatives."""

    services: frozenset[str]
    runbooks: frozenset[str]
    skills: frozenset[str]
    teams: frozenset[str]
    negatives: frozenset[str]  # normalised ids of every kind
    service_statuses: tuple[str, ...] = get_args(ServiceStatus)
    incident_statuses: tuple[str, ...] = get_args(IncidentStatus)
    severities: tuple[str, ...] = get_args(Severity)

    @classmethod
    def of(cls, seed: Seed, negatives: Negatives | None = None) -> Vocabulary:
        """The seed's entities, plus the declared negatives as entities of their kind."""

        def missing(kind: EntityKind) -> frozenset[str]:
            return negatives.of(kind) if negatives is not None else frozenset()

        return cls(
            services=frozenset(seed.services) | missing("service"),
            runbooks=frozenset(seed.runbooks) | missing("runbook"),
            skills=frozenset(seed.skill_dirs) | missing("skill"),
            teams=frozenset(s.team for s in seed.services.values()),
            negatives=frozenset().union(*(missing(k) for k in ENTITY_KINDS)),
        )


@dataclass
class _Mention:
    kind: str  # service | incident | value kinds: status-s | status-i | severity | owner
    text: str  # canonical
    start: int
    end: int
    negated: bool = False


@dataclass
class _Sentence:
    start: int
    end: int
    mentions: list[_Mention] = field(default_factory=list)


def _word(name: str) -> str:
    """A regex for a name as a whole word (hyphenated names whole, spaces for hyphens too)."""
    body = re.escape(name).replace(r"\-", r"[-\s]")
    return rf"(?<![\w-]){body}(?![\w-])"


def _negated(text: str, start: int) -> bool:
    """A negation cue among the few words before `start`, within the same clause (and so the
    same sentence)."""
    window = text[max(0, start - 40) : start]
    stops = list(_CLAUSE_STOP.finditer(window))
    if stops:
        window = window[stops[-1].end() :]
    words = window.split()[-4:]
    return bool(_NEGATION.search(" ".join(words)))


def _sentences(text: str) -> list[_Sentence]:
    bounds = [0] + [m.end() for m in re.finditer(r"[.!?](?=\s)|;|\n+", text)] + [len(text)]
    return [_Sentence(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if text[a:b].strip()]


def _mentions(text: str, vocab: Vocabulary) -> list[_Mention]:
    found: list[_Mention] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, canon: str, start: int, end: int) -> None:
        if any(a < end and start < b for a, b in taken):
            return  # a longer or earlier reading of these words won
        taken.append((start, end))
        past = _PAST.search(text[max(0, start - 20) : start])
        if past and kind in ("status-s", "status-i") and canon != "resolved":
            return  # a past state ("was down", "from down to"); "was resolved" is a result
        found.append(_Mention(kind, canon, start, end, _negated(text, start)))

    for m in re.finditer(r"(?<![\w-])INC-\d{3}(?![\w-])", text, re.I):
        add("incident", m.group(0).upper(), *m.span())
    for team in vocab.teams:
        owner = rf"(?:owned by|owner(?: is|:)?|belongs to)\s+(?:the\s+)?(?P<a>{_word(team)})"
        for m in re.finditer(rf"{owner}|(?P<b>{_word(team)})\s+team\b", text, re.I):
            add("owner", team, *m.span("a" if m.group("a") else "b"))
    for kind, values in (
        ("status-s", vocab.service_statuses),
        ("status-i", vocab.incident_statuses),
        ("severity", vocab.severities),
    ):
        for value in values:
            for wording in (value, *_WORDING.get(value, ())):
                for m in re.finditer(_word(wording), text, re.I):
                    add(kind, value, *m.span())
    for name in sorted(vocab.services, key=len, reverse=True):
        for m in re.finditer(_word(name), text, re.I):
            add("service", name, *m.span())
    return sorted(found, key=lambda x: x.start)


_ENTITY_OF = {"status-s": "service", "owner": "service", "status-i": "incident",
              "severity": "incident"}  # fmt: skip
_ATTRIBUTE_OF = {"status-s": "status", "status-i": "status", "severity": "severity",
                 "owner": "owner"}  # fmt: skip


def _paren_group(text: str, pos: int) -> tuple[int, int] | None:
    """The (open, close) of the parenthesis that holds `pos`, if any."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            if depth == 0:
                close = text.find(")", pos)
                return (i, close) if close != -1 else None
            depth -= 1
    return None


def _segment_of(text: str, sentence: _Sentence, pos: int) -> tuple[int, int]:
    """The part of the sentence between colons that holds `pos`."""
    cuts = [sentence.start]
    cuts += [m.end() for m in re.finditer(":", text[sentence.start : sentence.end])]
    cuts = [sentence.start] + [sentence.start + c for c in cuts[1:]] + [sentence.end]
    for a, b in zip(cuts, cuts[1:], strict=False):
        if a <= pos < b:
            return a, b
    return sentence.start, sentence.end


def extract(text: str, vocab: Vocabulary) -> list[Claim]:
    """Every claim `text` makes plainly, in order, without repeats."""
    report = _triage_report(text)
    if report is not None:
        return report
    text = re.sub(r"[*`]", " ", text)  # markdown emphasis and code marks carry no claim
    claims: list[Claim] = []
    sentences = _sentences(text)
    mentions = _mentions(text, vocab)
    for s in sentences:
        s.mentions = [m for m in mentions if s.start <= m.start < s.end]
    subject: dict[str, str] = {}  # entity kind -> first entity of the previous sentence
    for index, s in enumerate(sentences):
        entities = [m for m in s.mentions if m.kind in ("service", "incident")]
        bullets = _bullet_entities(text, sentences[index + 1 :])
        given: dict[tuple[str, str], str] = {}
        for v in (m for m in s.mentions if m.kind in _ENTITY_OF):
            kind, attribute = _ENTITY_OF[v.kind], _ATTRIBUTE_OF[v.kind]
            same = [e for e in entities if e.kind == kind]
            listed = [e for e in bullets if e.kind == kind]
            targets = _targets(text, s, v, same, listed, subject, kind)
            if targets is None and v.negated:
                rest = text[v.end : s.end].lower()
                if re.match(rf"\s+{kind}s?\b", rest):  # "no open incidents"
                    targets = [f"*{kind}"]
            for target in targets or []:
                if not v.negated and given.get((target, attribute), v.text) != v.text:
                    continue  # a second value for one entity in one sentence: a new subject
                given[(target, attribute)] = v.text
                claims.append(Claim(target, attribute, v.text, v.negated))
        claims += _existence(text[s.start : s.end], vocab)
        claims += _answer_claims(text[s.start : s.end], vocab)
        subject = {e.kind: e.text for e in reversed(entities)}  # the first of each kind
    return _settled(list(dict.fromkeys(claims)))


def _settled(claims: list[Claim]) -> list[Claim]:
    """A concrete approval outcome (given, rejected) outweighs a general 'needs approval'."""
    outcome = any(c.attribute == "approval" and c.value != "pending" and not c.negated
                  for c in claims)  # fmt: skip
    return [c for c in claims if not (outcome and c.attribute == "approval" and
                                      c.value == "pending" and not c.negated)]  # fmt: skip


def _bullet_entities(text: str, following: list[_Sentence]) -> list[_Mention]:
    """The entities of the list lines ('- INC-002 ...', '1. ...') right after a sentence."""
    found: list[_Mention] = []
    for s in following:
        if not re.match(r"\s*(?:[-•]|\d+[.)])\s", text[s.start : s.end]):
            break
        found += [m for m in s.mentions if m.kind in ("service", "incident")][:1]
    return found


def _targets(
    text: str,
    s: _Sentence,
    value: _Mention,
    same_kind: list[_Mention],
    bullets: list[_Mention],
    subject: dict[str, str],
    kind: str,
) -> list[str] | None:
    """The entities a value is said of, or None when the sentence does not say plainly."""
    group = _paren_group(text, value.start)
    if group is not None:  # "INC-002 (SEV1, open)" or "(INC-002, SEV1)"
        opened, _ = group
        before = [e for e in same_kind if e.end <= opened and not text[e.end : opened].strip()]
        within = [e for e in same_kind if opened < e.start < value.start]
        if within or before:
            return [(within or before)[-1].text]
    a, b = _segment_of(text, s, value.start)
    inside = [e for e in same_kind if a <= e.start < b and not _in_parens(text, e.start, a)]
    before = [e for e in inside if e.end <= value.start]
    if before and not _DEFLECT.search(text[before[-1].end : value.start]):
        return [e.text for e in _coordinated(text, before)]
    after = [e for e in inside if e.start >= value.end]
    if after and not _DEFLECT.search(text[a : value.start]):
        return [after[0].text]
    if text[value.end : b].strip().startswith(":") or text[a:b].rstrip().endswith(":"):
        listed = [e.text for e in same_kind if e.start >= b and not _in_parens(text, e.start, b)]
        if listed or bullets:  # "Two incidents are open: INC-002 ... and INC-009 ..."
            return listed or [e.text for e in bullets]
    earlier = [e for e in same_kind if e.end <= a]
    if earlier and re.match(r"\s*(?:\([^)]*\)\s*)?:", text[earlier[-1].end :]):
        return [earlier[-1].text]  # "INC-002: SEV1, open", "- INC-001 (SEV3): resolved"
    if subject.get(kind) and (
        _PRONOUN.match(text[s.start : s.end])
        or re.search(r"\b(?:it|they)\b", text[a : value.start], re.I)
    ):
        return [subject[kind]]  # "It is owned by ...", "after approval it is now operational"
    return None


def _coordinated(text: str, before: list[_Mention]) -> list[_Mention]:
    """The last entity before a value, with those joined to it by commas or 'and' ('checkout and
    inventory are down'; 'INC-002 (SEV1) and INC-009 (SEV2) are open')."""
    chosen = [before[-1]]
    for earlier in reversed(before[:-1]):
        between = re.sub(r"\([^)]*\)", "", text[earlier.end : chosen[0].start])
        if not re.fullmatch(r"\s*(?:,|and|,\s*and)\s*", between):
            break
        chosen.insert(0, earlier)
    return chosen


def _in_parens(text: str, pos: int, since: int) -> bool:
    return text[since:pos].count("(") > text[since:pos].count(")")


def _existence(body: str, vocab: Vocabulary) -> list[Claim]:
    """For each declared negative the sentence names: does it say the thing does not exist?"""
    found = []
    for neg in vocab.negatives:
        for m in re.finditer(_word(neg), body, re.I):
            before, after = body[: m.start()], body[m.end() :]
            if _ABSENT_BEFORE.search(before) or _ABSENT_AFTER.search(after):
                found.append(Claim(neg, "exists", "yes", negated=True))
    return found


def _answer_claims(sentence: str, vocab: Vocabulary) -> list[Claim]:
    """Claims about the answer as a whole: approval state, root cause, runbook, skills."""
    found = []
    for pattern, value in ((_PENDING, "pending"), (_REJECTED, "rejected"), (_APPROVED, "given")):
        for m in pattern.finditer(sentence):
            if value != "pending" and _CONDITIONAL.search(sentence[: m.start()]):
                continue  # "once it is approved" says what will happen, not what did
            found.append(Claim(ANSWER, "approval", value, _negated(sentence, m.start())))
    found += _root_causes(sentence, vocab)
    for slug in vocab.runbooks - vocab.negatives:  # a negative's only claim is that it is not
        pattern = rf"{_word(slug)}\s+runbook|runbook(?:\s+named|:)?\s+{_word(slug)}"
        for m in re.finditer(pattern, sentence, re.I):
            found.append(Claim(ANSWER, "runbook", slug, _negated(sentence, m.start())))
    if re.search(r"\bskills?\b", sentence, re.I):
        for skill in vocab.skills - vocab.negatives:
            for m in re.finditer(_word(skill), sentence, re.I):
                found.append(Claim(ANSWER, "skill", skill, _negated(sentence, m.start())))
    return found


def _root_causes(sentence: str, vocab: Vocabulary) -> list[Claim]:
    """'The root cause is INC-007 ...', 'Root cause: INC-007', 'INC-007 is the root cause': an
    incident id in the phrase wins over a service name ('the cache eviction storm, INC-007')."""
    found = []
    for m in re.finditer(r"\broot cause(?:\s+of\s+[\w\s-]{1,30}?)?\s*(?:is|was|:|=)(\s+not)?"
                         r"\s*(.{0,50})", sentence, re.I):  # fmt: skip
        phrase = re.split(r"[;.]", m.group(2))[0]
        incident = re.search(r"\bINC-\d{3}\b", phrase, re.I)
        service = re.match(r"\s*(?:the\s+)?([a-z][\w-]*)", phrase, re.I)
        if incident:
            found.append(Claim(ANSWER, "root cause", incident.group(0).upper(), bool(m.group(1))))
        elif service and service.group(1).lower() in vocab.services:
            found.append(Claim(ANSWER, "root cause", service.group(1).lower(), bool(m.group(1))))
    for m in re.finditer(r"\b(INC-\d{3})\s+(?:is|was)\s+(not\s+)?the\s+root cause\b",
                         sentence, re.I):  # fmt: skip
        found.append(Claim(ANSWER, "root cause", m.group(1).upper(), bool(m.group(2))))
    return found


def _triage_report(text: str) -> list[Claim] | None:
    """The claims of a structured triage report (JSON), field by field."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("incident_id"), str):
        return None
    incident = normalise("incident", data["incident_id"])
    claims = []
    if isinstance(data.get("severity"), str):
        claims.append(Claim(incident, "severity", data["severity"].strip().upper()))
    if isinstance(data.get("service"), str):
        claims.append(Claim(incident, "service", normalise("service", data["service"])))
    if isinstance(data.get("runbook"), str):
        claims.append(Claim(ANSWER, "runbook", normalise("runbook", data["runbook"])))
    return claims


@dataclass
class Judgement:
    required: list[Claim]
    missing: list[Claim]
    contradicted: list[tuple[Claim, Claim]]  # (what the reference says, what the response says)
    as_existing: list[str]  # declared negatives the response treats as real

    @property
    def applicable(self) -> bool:
        return bool(self.required)

    @property
    def holds(self) -> bool:
        return not (self.missing or self.contradicted or self.as_existing)

    def detail(self) -> str:
        bits = []
        if self.as_existing:
            bits.append("describes " + ", ".join(self.as_existing) + " as if it existed")
        if self.contradicted:
            said = "; ".join(f"{r.show()} (said: {c.show()})" for r, c in self.contradicted)
            bits.append(f"contradicts {said}")
        if self.missing:
            bits.append("does not say " + "; ".join(c.show() for c in self.missing))
        return "; ".join(bits)


def judge(reference: str, response: str, vocab: Vocabulary) -> Judgement:
    """Does the response assert every claim of the reference, and contradict none?"""
    ref, got = extract(reference, vocab), extract(response, vocab)
    required = [c for c in ref if not c.negated or c.attribute == "exists"]
    missing, contradicted = [], []
    for want in ref:
        clash = next((c for c in got if _contradicts(c, want)), None)
        if clash is not None:
            contradicted.append((want, clash))
        elif want in required and want not in got:
            missing.append(want)
    as_existing = sorted(
        {c.entity for c in got if c.entity in vocab.negatives and c.attribute != "exists"}
    )
    return Judgement(required, missing, contradicted, as_existing)


def _contradicts(said: Claim, want: Claim) -> bool:
    if said.attribute != want.attribute:
        return False
    universal = said.entity == f"*{'incident' if want.entity.startswith('INC-') else 'service'}"
    if said.entity != want.entity and not universal:
        return False
    if said.value == want.value:
        return said.negated != want.negated and (not universal or said.negated)
    one = want.attribute in ONE_VALUE and not universal
    return one and not said.negated and not want.negated
