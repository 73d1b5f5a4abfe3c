"""Reading a text into claims: mentions of entities and values, sentences and their parts, and
the plain links that tie a value to an entity."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ops_copilot.claims.answers import answer_claims, existence, triage_report
from ops_copilot.claims.model import Claim, Vocabulary
from ops_copilot.claims.quoted import quoted_json
from ops_copilot.claims.wording import (
    DEFLECT,
    OPEN,
    PAST,
    PRONOUN,
    QUESTION,
    WORDING,
    negated,
    word,
)
from ops_copilot.guards.visible import visible


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
        past = PAST.search(text[max(0, start - 40) : start])
        if past and kind in ("status-s", "status-i") and canon != "resolved":
            return  # a past state ("was down", "from down to"); "was resolved" is a result
        if kind in _ENTITY_OF and OPEN.search(text[max(0, start - 60) : start]):
            return  # "whether payments is down": asked or supposed, not asserted
        found.append(_Mention(kind, canon, start, end, negated(text, start)))

    for m in re.finditer(r"(?<![\w-])INC-\d{3}(?![\w-])", text, re.I):
        add("incident", m.group(0).upper(), *m.span())
    for team in vocab.teams:
        owner = rf"(?:owned by|owner(?: is|:)?|belongs to)\s+(?:the\s+)?(?P<a>{word(team)})"
        for m in re.finditer(rf"{owner}|(?P<b>{word(team)})\s+team\b", text, re.I):
            add("owner", team, *m.span("a" if m.group("a") else "b"))
    wordings = [
        (kind, value, wording)
        for kind, values in (
            ("status-s", vocab.service_statuses),
            ("status-i", vocab.incident_statuses),
            ("severity", vocab.severities),
        )
        for value in values
        for wording in (value, *WORDING.get(value, ()))
    ]  # the longest wording first: "no longer open" is read before the "open" in it
    for kind, value, wording in sorted(wordings, key=lambda w: -len(w[2])):
        for m in re.finditer(word(wording), text, re.I):
            add(kind, value, *m.span())
    for name in sorted(vocab.services, key=len, reverse=True):
        for m in re.finditer(word(name), text, re.I):
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
    text = visible(text)  # as a person reads it: no invisible characters, look-alikes, markup
    report = triage_report(text)
    if report is not None:
        return report
    claims, text = quoted_json(text, vocab)  # a pasted tool result, read as the record it is
    sentences = _sentences(text)
    mentions = _mentions(text, vocab)
    for s in sentences:
        s.mentions = [m for m in mentions if s.start <= m.start < s.end]
    subject: dict[str, str] = {}  # entity kind -> first entity of the previous sentence
    for index, s in enumerate(sentences):
        entities = [m for m in s.mentions if m.kind in ("service", "incident")]
        bullets = _bullet_entities(text, sentences[index + 1 :])
        given: dict[tuple[str, str], str] = {}
        asks = QUESTION.match(text[s.start : s.end])  # "Is INC-002 resolved?" asserts nothing
        for v in (m for m in s.mentions if m.kind in _ENTITY_OF and not asks):
            kind, attribute = _ENTITY_OF[v.kind], _ATTRIBUTE_OF[v.kind]
            same = [e for e in entities if e.kind == kind]
            listed = [e for e in bullets if e.kind == kind]
            targets = _targets(text, s, v, same, listed, subject, kind)
            if targets is None and _KEY_VALUE.match(text[s.start : s.end]):
                targets = _block_subject(text, sentences[:index], kind)
            if targets is None and v.negated:
                rest = text[v.end : s.end].lower()
                if re.match(rf"\s+{kind}s?\b", rest):  # "no open incidents"
                    targets = [f"*{kind}"]
            for target in targets or []:
                if not v.negated and given.get((target, attribute), v.text) != v.text:
                    continue  # a second value for one entity in one sentence: a new subject
                given[(target, attribute)] = v.text
                claims.append(Claim(target, attribute, v.text, v.negated))
        claims += existence(text[s.start : s.end], vocab)
        claims += answer_claims(text[s.start : s.end], vocab)
        subject = {e.kind: e.text for e in reversed(entities)}  # the first of each kind
    return _settled(list(dict.fromkeys(claims)))


def _settled(claims: list[Claim]) -> list[Claim]:
    """A concrete approval outcome (given, rejected) outweighs a general 'needs approval'."""
    outcome = any(c.attribute == "approval" and c.value != "pending" and not c.negated
                  for c in claims)  # fmt: skip
    return [c for c in claims if not (outcome and c.attribute == "approval" and
                                      c.value == "pending" and not c.negated)]  # fmt: skip


# A line of a key-value list or table ("- **Severity**: SEV1", "| Status | open |"), and a
# Markdown heading: the entity they are about is the block's.
_KEY_VALUE = re.compile(r"^\s*(?:[-•+]|\d+[.)])?\s*\|?\s*[A-Za-z][\w /()-]{0,30}?\s*[:|]\s*\S")
_HEADING = re.compile(r"^\s*#{1,6}\s")


def _block_subject(text: str, earlier: list[_Sentence], kind: str) -> list[str] | None:
    """The one entity of `kind` that a key-value line's block is about: named by an earlier
    line of the list or table, by the heading over it, or by the sentence that introduces it
    ("INC-002 has the following details:") -- the nearest; None when prose without it comes
    first, or the nearest line names two."""
    for s in reversed(earlier):
        named = {m.text for m in s.mentions if m.kind == kind}
        if named:
            return list(named) if len(named) == 1 else None
        line = text[s.start : s.end]
        rule = not any(ch.isalnum() for ch in line)  # a table's |---|---| row
        if not (rule or _KEY_VALUE.match(line) or _HEADING.match(line)):
            return None
    return None


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
    if before and not DEFLECT.search(text[before[-1].end : value.start]):
        return [e.text for e in _coordinated(text, before)]
    after = [e for e in inside if e.start >= value.end]
    if after and not DEFLECT.search(text[a : value.start]):  # "... open are INC-002 and INC-009"
        return [e.text for e in _listed_after(text, after)]
    if text[value.end : b].strip().startswith(":") or text[a:b].rstrip().endswith(":"):
        listed = [e.text for e in same_kind if e.start >= b and not _in_parens(text, e.start, b)]
        if listed or bullets:  # "Two incidents are open: INC-002 ... and INC-009 ..."
            return listed or [e.text for e in bullets]
    earlier = [e for e in same_kind if e.end <= a]
    if earlier and re.match(r"\s*(?:\([^)]*\)\s*)?:", text[earlier[-1].end :]):
        return [earlier[-1].text]  # "INC-002: SEV1, open", "- INC-001 (SEV3): resolved"
    if subject.get(kind) and (
        PRONOUN.match(text[s.start : s.end])
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


def _listed_after(text: str, after: list[_Mention]) -> list[_Mention]:
    """The first entity after a value, with those joined to it by commas or 'and'."""
    chosen = [after[0]]
    for later in after[1:]:
        between = re.sub(r"\([^)]*\)", "", text[chosen[-1].end : later.start])
        if not re.fullmatch(r"\s*(?:,|and|,\s*and)\s*", between):
            break
        chosen.append(later)
    return chosen


def _in_parens(text: str, pos: int, since: int) -> bool:
    return text[since:pos].count("(") > text[since:pos].count(")")
