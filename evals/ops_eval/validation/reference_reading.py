"""The claims reader as the reference rule (`reference_rules`) reads a reference: the agent's own
`extract`, over a vocabulary that differs from the `facts` scorer's only where the scorer trusts
the reference -- every seed id is one whose absence is read ("INC-002 does not exist"), and a
runbook or skill the seed lacks (a deliberate negative; a slug or a quoted name in a runbook or
skill phrase; any name after "runbook named") is one the text may name -- and no wider than the
words the text holds.

Why not simply `extract` every reference: the reader tries each word of its vocabulary, and each
of its cues, on every sentence -- a validation of 10,000 cases took seconds longer. So each text
is scanned once (`Reader.scan`: its words, as the reader spells names -- whole words, any case,
a hyphen or a space between parts), and read only when something it holds could disagree with
the state: not when it holds no status, severity, owner, absence cue or runbook or skill the
seed lacks (`Scan.empty`), nor when it denies nothing and every value it holds is the state's
for every entity of its kind it names (`Scan.settled`). When it is read, the vocabulary is the
words it holds, which reads the same claims (a word a text does not hold cannot be read). Each
test of a cue here is a superset of the reader's own, so a text the reader could read a wrong
claim in is always read. Built once per validation (`reader`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from ..agents.ops_world import ENTITY_KINDS
from .context import Context

_FIELDS = ("services", "teams", "runbooks", "skills", "negatives")
_VALUES = ("service_statuses", "incident_statuses", "severities")

# A runbook or skill a text names that the seed may not have: a slug (hyphenated) or a name in
# quotes before "runbook"/"skill" or after "runbook:"; any name after "runbook named". Read on the
# folded text, around each "runbook" and "skill".
_KIND_WORD = re.compile(r"\b(runbook|skill)\b")
_QUOTED = r"[\"'`‘“]([a-z0-9][\w-]*)[\"'`’”]"
_SLUG = r"([a-z0-9]+(?:-[a-z0-9]+)+)"
_NAME_BEFORE = re.compile(rf"(?:{_QUOTED}|(?<![\w-]){_SLUG})\s+$")
_NAME_AFTER = re.compile(
    rf"\s*[:|]\s*(?:{_QUOTED}|{_SLUG}(?![\w-]))|\s+(?:named|called)\s+[\"'`‘“]?([a-z0-9][\w-]*)"
)
# A cue that words say a thing is not there: every cue of the reader's own (`wording.ABSENT_*`:
# "no such", "unknown", "couldn't find", "does not exist", "not found", "is not a", "isn't
# listed", "does not appear" ...) holds one (read on the folded text).
_ABSENT = re.compile(
    r"\b(?:no|unknown|non-?existent)\b"
    r"|n[o'’]t\s+(?:exist|found|find|an?\b|in\b|known|listed|appear)"
)
# A cue that words deny what they name: every cue of the reader's own (`wording.NEGATION`) is one
# of these words, or holds "n't" ("doesn't").
_DENIALS = frozenset({"not", "no", "never", "nor", "neither", "cannot"})
# What the state holds of each kind of entity, and the vocabulary fields its values are words of.
_HELD = {
    "services": (("status", "service_statuses"), ("owner", "teams")),
    "incidents": (("status", "incident_statuses"), ("severity", "severities")),
}


@dataclass(frozen=True)
class Scan:
    """The words of one text a claim could be made of (vocabulary field -> what they stand for),
    and the seed ids it may say are absent, the runbooks and skills it may name that the seed
    lacks, and whether it denies anything."""

    text: str
    found: dict[str, set[str]]
    absent: frozenset[str]
    runbooks: frozenset[str]
    skills: frozenset[str]
    negation: bool

    @property
    def empty(self) -> bool:
        """No status, severity, team, absence or runbook or skill the seed lacks: no claim of it
        could disagree with any state."""
        values = any(self.found[f] for f in _VALUES) or self.found["teams"]
        return not (self.absent or self.runbooks or self.skills or values)

    def settled(self, state: Any) -> bool:
        """Whether no claim of the text could disagree with `state`: it denies nothing, says
        nothing is absent, names no runbook or skill the seed lacks, and every value it holds is
        the state's for every entity of that kind it names -- so it need not be read."""
        from ..agents.ops_guards import Claim, true_value

        if self.negation or self.absent or self.runbooks or self.skills:
            return False
        for kind, held in _HELD.items():
            for entity in self.found[kind]:
                for attribute, fld in held:
                    values = self.found[fld]
                    truth = true_value(Claim(entity, attribute, ""), state) if values else ""
                    if truth is None or any(v.casefold() != truth.casefold() for v in values):
                        return False
        return True


def _incident(word: str) -> bool:
    """An incident id as the reader finds one (`INC-` and three digits, a whole word)."""
    return len(word) == 7 and word.startswith("inc-") and word[4:].isdigit()


def _key(said: str) -> str:
    return re.sub(r"\s+", "-", said).casefold()


_TOKEN = re.compile(r"\w+(?:-\w+)*")
_NAMES_A_RUNBOOK_OR_SKILL = frozenset({"runbook", "runbooks", "skill", "skills"})
# The reader ties a team to a service only as its owner: "owned by", "owner", "belongs to", "team".
_NAMES_AN_OWNER = frozenset({"owned", "owner", "belongs", "team"})


class Reader:
    """One validation's reader of references."""

    def __init__(self, ctx: Context) -> None:
        from ..agents.ops_guards import WORDING

        self.vocab = vocab = ctx.vocabulary
        self.seed_ids = {i.casefold(): i for k in ENTITY_KINDS for i in ctx.ids(k)}
        # each word, as the text spells it (`_key`) -> (vocabulary field, what it stands for)
        self.roles: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for fld in _FIELDS:
            for name in getattr(vocab, fld):
                self.roles[_key(name)].add((fld, name))
        for fld in _VALUES:
            for value in getattr(vocab, fld):
                for wording in (value, *WORDING.get(value, ())):
                    self.roles[_key(wording)].add((fld, value))
        for key, ident in self.seed_ids.items():
            self.roles[key].add(("seed", ident))
        self.keys = frozenset(self.roles)
        # the words a name of several words begins with, as a text may split them
        parts = [k.split("-") for k in self.keys]
        self.heads = {"-".join(p[:i]) for p in parts for i in range(1, len(p))}
        self.span = max(map(len, parts))

    def _grams(self, words: list[str]) -> set[str]:
        """Every run of whole words of a text (a word may be hyphenated) that could spell a
        name, folded and joined by hyphens: each name the reader could find in the text as a
        whole word -- whatever its case, a hyphen or a space between its words -- is one."""
        grams = set(words)
        for i, word in enumerate(words):
            if word in self.heads:
                grams.update("-".join(words[i:j]) for j in range(i + 2, i + self.span + 1))
        return grams

    def scan(self, text: str) -> Scan:
        """The words of `text` a claim could be made of, found once."""
        from ..agents.ops_guards import visible

        low = visible(text).casefold()  # what `extract` reads, folded
        words = _TOKEN.findall(low)
        found: dict[str, set[str]] = defaultdict(set)
        for key in self._grams(words) & self.keys:
            for fld, name in self.roles[key]:
                found[fld].add(name)
        if not found and not _NAMES_A_RUNBOOK_OR_SKILL.intersection(words):
            return Scan(text, found, frozenset(), frozenset(), frozenset(), False)  # no name
        if not _NAMES_AN_OWNER.intersection(words):
            found.pop("teams", None)  # a team named, but not as anything's owner
        found["incidents"] = {w.upper() for w in words if _incident(w)}
        absent = found["seed"] if found["seed"] and _ABSENT.search(low) else set()
        runbooks, skills = frozenset(), frozenset()
        if _NAMES_A_RUNBOOK_OR_SKILL.intersection(words):
            runbooks, skills = self._lacking(low, found)
        negation = bool(_DENIALS.intersection(words)) or "n't" in low or "n’t" in low
        return Scan(text, found, frozenset(absent), runbooks, skills, negation)

    def claims(self, scan: Scan) -> list[Any]:
        """What the scanned text claims that could disagree with the seed, as `extract` reads it
        -- over the vocabulary of the words it holds."""
        from ..agents.ops_guards import extract

        found, lacking = scan.found, scan.runbooks | scan.skills
        narrow = replace(
            self.vocab,
            services=frozenset(found["services"]),
            teams=frozenset(found["teams"]),
            runbooks=frozenset(found["runbooks"]) | scan.runbooks,
            skills=frozenset(found["skills"]) | scan.skills,
            negatives=scan.absent,
            **{f: tuple(v for v in getattr(self.vocab, f) if v in found[f]) for f in _VALUES},
        )
        claims = extract(scan.text, narrow)
        named = {c.value for c in claims if c.attribute in ("runbook", "skill") and not c.negated}
        if named & lacking:  # "the reboot-everything runbook does not exist" names no runbook
            # to follow: read as `facts` reads a deliberate negative
            absent = extract(scan.text, replace(narrow, negatives=lacking))
            said_absent = {c.entity for c in absent if c.attribute == "exists"}
            claims = [c for c in claims if c.entity or c.value not in said_absent]
        return claims

    def _lacking(self, low: str, found: dict[str, set[str]]) -> tuple[frozenset, frozenset]:
        """The runbooks and skills the folded text may name that the seed lacks."""
        named: dict[str, set[str]] = {"runbook": set(), "skill": set()}
        for m in _KIND_WORD.finditer(low):
            before = _NAME_BEFORE.search(low, max(0, m.start() - 80), m.start())
            after = _NAME_AFTER.match(low, m.end())
            for got in (before, after):
                if got is not None:
                    named[m.group(1)].add(next(g for g in got.groups() if g))
        if found["negatives"]:
            named["runbook"] |= found["negatives"] & self.vocab.runbooks
            named["skill"] |= found["negatives"] & self.vocab.skills
        seed = set(self.seed_ids.values())
        return frozenset(named["runbook"] - seed), frozenset(named["skill"] - seed)


def reader(ctx: Context) -> Reader:
    """This validation's reader, built on first use (a `Context` is one validation's)."""
    if not isinstance(ctx.built.get(__name__), Reader):
        ctx.built[__name__] = Reader(ctx)
    return ctx.built[__name__]
