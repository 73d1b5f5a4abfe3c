"""What a minimal-data label may be built from, and the one filter that holds a label to it.

A minimal run keeps a scorer's detail, a trial's error and why a conversation ended as labels.
The harness writes those texts, but many quote the trial: a response check shows the answer's
first characters, `not_contains` the words around a match, a call mismatch an argument's `repr`,
a replayed model the recorded conversation. Masking the trial's values where they appear whole
misses every cut, escaped or case-changed copy. So a label is built the other way round: from
what the harness knows, and nothing else --

- the words of the harness's own messages: every word of every string literal of `ops_eval`
  and the agents' packages (docstrings and comments aside), compared without case;
- the names the harness deals in: the seed's ids, the tools and their parameters, the scorers,
  the run's case ids and categories;
- counts: numbers of at most four digits (a longer number is a value, not a count; a shorter one
  the trial itself said, of three digits or more, is a value too);
- `#` and 8 hex digits: the keyed hash of a value the trial said (`results.minimal`).

Anything else -- each run of tokens outside the vocabulary, with what lies between them -- is
replaced by a `#` token of its keyed hash (`Vocabulary.kept`). `Vocabulary.foreign` is the same
rule as a check: `ops-eval audit-run` flags a label holding a run of 8 or more characters the
vocabulary does not build, without being told any planted value.

The static part is read from source once, when a minimal run starts (`Minimal` is made before
anything plays) or an audit begins.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path

TOKEN = re.compile(r"#[0-9a-f]{8}(?![^\W_])|[^\W_]+")
"""A hash token, or a run of letters and digits (any script): what a label is made of; the rest
is separators (spaces, punctuation, underscores)."""
HASH_TOKEN = re.compile(r"^#[0-9a-f]{8}$")
COUNT_DIGITS = 4
"""A number of at most this many digits is a count."""
SAID_DIGITS = 3
"""A number the trial said, of at least this many digits, is the trial's value, not a count."""
FOREIGN_CHARS = 8
"""`audit-run` flags a run outside the vocabulary of at least this many characters: shorter
runs are too short to carry a value (and an `#` token's own hex could form one)."""
PACKAGES = ("ops_eval", "agentport", "opskit", "ops_copilot", "triage_report")
"""Whose string literals are the harness's words."""


def _literal_words(tree: ast.AST) -> Iterable[str]:
    """Every word of every string literal in `tree`, but those of bare string statements
    (docstrings, and strings used as comments)."""
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield from (m.group().lower() for m in TOKEN.finditer(node.value))


@cache
def harness_words() -> frozenset[str]:
    """The words of the harness's messages, from the source of `PACKAGES` (numbers aside)."""
    words: set[str] = set()
    for package in PACKAGES:
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(folder).rglob("*.py")):
                tree = ast.parse(path.read_text(encoding="utf-8"))
                words.update(w for w in _literal_words(tree) if not w.isdigit())
    return frozenset(words)


@cache
def known_names() -> frozenset[str]:
    """The shipped seed's ids, the tools and their parameters, and the scorers, as tokens."""
    from ..agents.ops_world import default_seed, tool_specs
    from ..scorers.base import registered

    seed = default_seed()
    names: list[str] = [*registered()]
    for kind in ("incident", "service", "runbook", "skill"):
        names += seed.ids(kind)  # type: ignore[arg-type]
    for name, spec in tool_specs().items():
        names += [name, *spec.params]
    return frozenset(m.group().lower() for n in names for m in TOKEN.finditer(n))


@dataclass(frozen=True)
class Vocabulary:
    """The words a label may hold: the harness's and the run's (`extra`: case ids, categories)."""

    words: frozenset[str]

    @classmethod
    def of(cls, extra: Iterable[str] = ()) -> Vocabulary:
        run = {m.group().lower() for e in extra for m in TOKEN.finditer(e)}
        return cls(harness_words() | known_names() | run)

    def _allows(self, token: str, said: frozenset[str]) -> bool:
        if HASH_TOKEN.match(token):
            return True
        if token.isdigit():  # a count, unless long or the trial's own number
            return len(token) <= COUNT_DIGITS and not (len(token) >= SAID_DIGITS and token in said)
        return token.lower() in self.words

    def _runs(self, text: str, said: frozenset[str]) -> list[tuple[int, int]]:
        """(start, end) of each run of consecutive tokens outside the vocabulary."""
        runs: list[tuple[int, int]] = []
        joined = False  # the previous token was foreign too
        for m in TOKEN.finditer(text):
            if self._allows(m.group(), said):
                joined = False
            elif joined:
                runs[-1] = (runs[-1][0], m.end())
            else:
                runs.append(m.span())
                joined = True
        return runs

    def kept(self, text: str, hashed: Callable[[str], str], said: Iterable[str] = ()) -> str:
        """`text` with each run outside the vocabulary replaced by `#` and `hashed(run)`;
        `said`: the trial's own texts (its numbers are values, not counts)."""
        numbers = frozenset(m.group() for s in said for m in re.finditer(r"\d+", s))
        for start, end in reversed(self._runs(text, numbers)):
            text = f"{text[:start]}#{hashed(text[start:end])}{text[end:]}"
        return text

    def builds(self, text: str) -> bool:
        """Whether every token of `text` is the vocabulary's (a number: at most a count)."""
        return not self._runs(text, frozenset())

    def foreign(self, text: str) -> list[int]:
        """The lengths of the runs in `text` outside the vocabulary of at least
        `FOREIGN_CHARS` characters (what a label must not hold; never the runs themselves)."""
        return [e - s for s, e in self._runs(text, frozenset()) if e - s >= FOREIGN_CHARS]
