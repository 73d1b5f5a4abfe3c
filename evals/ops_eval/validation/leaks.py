"""Leakage: a case that shares a long run of words with what the agent is given (its
instructions, skills, runbooks) tests recall of that text, not behaviour."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..agents import AGENTS
from ..agents.ops_world import Seed

LEAK_NGRAM = 8  # words: a shared run this long between a case and the agent's knowledge leaks


class LeakIndex:
    """Word n-grams of everything the agent is given, each with its source."""

    def __init__(self, seed: Seed) -> None:
        sources: dict[str, str] = {}
        for name, entry in AGENTS.items():
            sources[f"the {name} instruction"] = entry.instruction
        for name, folder in seed.skill_dirs.items():
            sources[f"skill {name}"] = (folder / "SKILL.md").read_text(encoding="utf-8")
        for slug, rb in seed.runbooks.items():
            sources[f"runbook {slug}"] = rb.body
        self.index: dict[tuple[str, ...], str] = {}
        for source, text in sources.items():
            for gram in _ngrams(text):
                self.index.setdefault(gram, source)

    def find(self, text: str) -> str | None:
        """The first shared run, described, or None."""
        for gram in _ngrams(text):
            source = self.index.get(gram)
            if source:
                return f"the {LEAK_NGRAM}-word run {' '.join(gram)!r} with {source}"
        return None


def _ngrams(text: str) -> Iterable[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return (tuple(words[i : i + LEAK_NGRAM]) for i in range(len(words) - LEAK_NGRAM + 1))
