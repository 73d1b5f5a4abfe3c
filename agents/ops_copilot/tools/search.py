"""Word search over the seed: which runbooks match a symptom, which log lines match a query.

Plain term counting, deterministic and explainable: a runbook scores three per hit in its title
or slug and one per hit in its body; a log line scores one per distinct query term it holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ops_copilot.seed.loading import Runbook

_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "why",
        "with",
    ]
)


def terms(query: str) -> list[str]:
    """The query's search words: lowercased, stopwords and single letters left out."""
    words = re.findall(r"[a-z0-9][a-z0-9_\-]*", query.lower())
    return [w for w in words if w not in _STOPWORDS and len(w) > 1]


def rank_runbooks(runbooks: Sequence[Runbook], words: Sequence[str], limit: int = 3):
    """(score, slug, title) of the best-matching runbooks, best first, ties by slug."""
    scored = []
    for rb in runbooks:
        title, body = rb.title.lower(), rb.body.lower()
        score = sum(3 * title.count(t) + body.count(t) + 3 * (t in rb.slug) for t in words)
        if score:
            scored.append((score, rb.slug, rb.title))
    scored.sort(key=lambda r: (-r[0], r[1]))
    return scored[:limit]


def pick_log_lines(lines: Sequence[str], words: Sequence[str], limit: int) -> list[int]:
    """Indexes of the lines to show, in log order: the most relevant ones for a query, or the
    latest ones when the query has no search words."""
    if not words:
        return list(range(max(0, len(lines) - limit), len(lines)))
    hits = [(sum(t in ln.lower() for t in words), i) for i, ln in enumerate(lines)]
    best = sorted((h for h in hits if h[0]), key=lambda h: (-h[0], h[1]))[:limit]
    return sorted(i for _, i in best)
