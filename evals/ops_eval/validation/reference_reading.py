"""The claims reader as the reference rule (`reference_rules`) reads a reference: the agent's own
`extract`, over a vocabulary that differs from the `facts` scorer's only where the scorer trusts
the reference -- every seed id is one whose absence is read ("INC-002 does not exist"), and a
runbook or skill the seed lacks (a deliberate negative; a slug or a quoted name in a runbook or
skill phrase; any name after "runbook named") is one the text may name -- and no wider than the
words the text holds.

Why narrowed: the reader tries every word of its vocabulary on every text, which costs a
validation of 10,000 cases seconds. The same words found once by one pattern (as the reader
spells them: whole words, any case, a hyphen or a space) give a vocabulary that reads the same
claims -- a word the text does not hold cannot be read -- and a text holding no status,
severity, team, absence or unknown runbook or skill is not read at all. Built once per
validation (`reader`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import Any

from .context import Context

_FIELDS = ("services", "teams", "runbooks", "skills", "negatives")
_VALUES = ("service_statuses", "incident_statuses", "severities")
_KINDS = ("incident", "service", "runbook", "skill")

# A runbook or skill a text names that the seed may not have: a slug (hyphenated) or a name in
# quotes before "runbook"/"skill" or after "runbook:"; any name after "runbook named".
_NAME = r"(?:[\"'`‘“](?P<{0}>[a-z0-9][\w-]*)[\"'`’”]|(?P<{1}>[a-z0-9]+(?:-[a-z0-9]+)+))"
_NAMED = re.compile(
    rf"{_NAME.format('q1', 's1')}\s+(?P<k1>runbook|skill)\b"
    rf"|\b(?P<k2>runbook|skill)\s*[:|]\s*{_NAME.format('q2', 's2')}"
    r"|\b(?P<k3>runbook|skill)\s+(?:named|called)\s+[\"'`‘“]?(?P<n3>[a-z0-9][\w-]*)",
    re.I,
)
# A cue that words say a thing is not there: a superset of the reader's own (`wording`).
_ABSENT = re.compile(
    r"\b(?:no|not|unknown|non-?existent)\b|n[o'’]t\b|exist|find|found|appear", re.I
)
_RUNBOOK_OR_SKILL = re.compile(r"\b(?:runbook|skill)s?\b", re.I)


def _key(said: str) -> str:
    return re.sub(r"\s+", "-", said).casefold()


def _words(names: Any) -> re.Pattern[str]:
    """Every place any of `names` starts as a whole word, case and hyphens (or spaces) as the
    reader takes them; overlapping ones too (a lookahead)."""
    spelt = (re.escape(n).replace(r"\-", r"[-\s]") for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?=(?<![\w-])({'|'.join(spelt)})(?![\w-]))", re.I)


class Reader:
    """One validation's reader of references."""

    def __init__(self, ctx: Context) -> None:
        from ..agents.ops_guards import WORDING

        self.vocab = vocab = ctx.vocabulary
        self.seed_ids = {i.casefold(): i for k in _KINDS for i in ctx.ids(k)}
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
        self.any = _words(self.roles)
        inside = _words(self.roles)  # a word inside a longer one the pattern prefers
        self.within = {
            key: {_key(m.group(1)) for m in inside.finditer(key.replace("-", " "))} - {key}
            for key in self.roles
        }

    def claims(self, text: str) -> list[Any]:
        """What `text` claims that could disagree with the seed, as `extract` reads it."""
        from ..agents.ops_guards import extract, visible

        seen = visible(text)  # what `extract` reads
        found: dict[str, set[str]] = defaultdict(set)
        for m in self.any.finditer(seen):
            key = _key(m.group(1))  # a spelling `re.I` takes that folds otherwise: no role
            for k in (key, *self.within.get(key, ())):
                for fld, name in self.roles.get(k, ()):
                    found[fld].add(name)
        absent = found["seed"] if _ABSENT.search(seen) else set()
        runbooks, skills = self._lacking(seen, found)
        values = any(found[f] for f in _VALUES) or found["teams"]
        if not (absent or runbooks or skills or values):
            return []  # nothing it says could disagree with the seed
        narrow = replace(
            self.vocab,
            services=frozenset(found["services"]),
            teams=frozenset(found["teams"]),
            runbooks=frozenset(found["runbooks"]) | runbooks,
            skills=frozenset(found["skills"]) | skills,
            negatives=frozenset(absent),
            **{f: tuple(v for v in getattr(self.vocab, f) if v in found[f]) for f in _VALUES},
        )
        claims = extract(text, narrow)
        named = {c.value for c in claims if c.attribute in ("runbook", "skill") and not c.negated}
        if named & (runbooks | skills):  # "the reboot-everything runbook does not exist" names
            # no runbook to follow: read as `facts` reads a deliberate negative
            lacking = replace(narrow, negatives=runbooks | skills)
            said_absent = {c.entity for c in extract(text, lacking) if c.attribute == "exists"}
            claims = [c for c in claims if c.entity or c.value not in said_absent]
        return claims

    def _lacking(self, seen: str, found: dict[str, set[str]]) -> tuple[frozenset, frozenset]:
        """The runbooks and skills `seen` may name that the seed lacks."""
        named: dict[str, set[str]] = {"runbook": set(), "skill": set()}
        if not _RUNBOOK_OR_SKILL.search(seen):
            return frozenset(), frozenset()
        for m in _NAMED.finditer(seen):
            got = {k: v for k, v in m.groupdict().items() if v}
            kind = next(got[k] for k in ("k1", "k2", "k3") if k in got).lower()
            named[kind].add(
                next(got[k] for k in ("q1", "s1", "q2", "s2", "n3") if k in got).lower()
            )
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
