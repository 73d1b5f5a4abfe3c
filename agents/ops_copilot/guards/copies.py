"""What counts as a copy of a text: the one definition the answer guard's quote check, the red
team's phrase check and the trace of a written note (`provenance`) share.

A copy is `QUOTE_WORDS` words in a row of one text that another holds in the same order, read
as a person reads them (`visible.visible`, then case-folded) and cut into words at anything
that is not a letter or digit -- an underscore too, so `phone_the_refund_desk` is four words.
A word of the copy may be a slip of the original's: the same letters swapped about (`teh` for
`the`, `refnud` for `refund`; words of three letters or more), or one letter changed, added or
dropped (four letters or more) -- never a number. A phrase with a few characters swapped, or
with its words joined by underscores, is still the phrase to a person, so it is still a copy
here. Slips count only in a stretch of `QUOTE_WORDS` words or more: eight words in a row each
like the original's are no accident, while in a shorter phrase a slip is as likely another word
("mixed" for "fixed").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from ops_copilot.guards.visible import visible

QUOTE_WORDS = 8
"""Words in a row that make a text a copy of another: a note sharing them with untrusted text
came from it, and the answer guard flags an answer that repeats them."""
_SWAP_FROM, _SLIP_FROM = 3, 4
"""The shortest words whose letters may be swapped, and that may have one letter changed, added
or dropped ("is"/"it", "the"/"she" are different words)."""


def words(text: str) -> list[str]:
    """The words of `text` as copies are compared: as a person sees them, case-folded."""
    return re.findall(r"[^\W_]+", visible(text).casefold())


def _keys(word: str, slips: bool) -> Iterable[str]:
    """Keys two words share when one is the other or (`slips`) a slip of it: the word; its
    letters in order (a swap); the word with one letter dropped (a change, an addition, a drop)."""
    yield "=" + word
    if not slips:
        return
    if len(word) >= _SWAP_FROM and word.isalpha():
        yield "#" + "".join(sorted(word))
    if len(word) >= _SLIP_FROM and word.isalpha():
        yield "~" + word
        for i in range(len(word)):
            yield "~" + word[:i] + word[i + 1 :]


def runs(
    said: list[str], *sources: list[str], least: int = QUOTE_WORDS
) -> list[tuple[int, int, frozenset[int]]]:
    """Each stretch of at least `least` words of `said` that one of `sources` (word lists: the
    lines of a text, say; a stretch never runs from one into the next) holds in a row, word for
    word or by a slip (see the module docstring): (start, end) in `said`, and which sources hold
    it. Overlapping stretches are one."""
    if least <= 0 or len(said) < least:
        return []
    slips = least >= QUOTE_WORDS
    at: dict[str, set[int]] = defaultdict(set)
    origin: dict[int, int] = {}  # position -> which source
    offset = 0
    for which, source in enumerate(sources):
        for pos, word in enumerate(source, start=offset):
            origin[pos] = which
            for key in _keys(word, slips):
                at[key].add(pos)
        offset += len(source) + 1  # a gap: no run goes on into the next source
    found: list[tuple[int, int, frozenset[int]]] = []
    ending: dict[int, int] = {}  # position in the sources -> length of the run ending there
    for i, word in enumerate(said):
        here = set().union(*(at.get(k, ()) for k in _keys(word, slips)))
        ending = {pos: ending.get(pos - 1, 0) + 1 for pos in here}
        for pos, length in ending.items():
            if length < least:
                continue
            start, held = i + 1 - length, frozenset({origin[pos]})
            if found and start < found[-1][1]:
                first, _, before = found[-1]
                found[-1] = (min(first, start), i + 1, before | held)
            else:
                found.append((start, i + 1, held))
    return found


def holds(text: list[str], phrase: list[str]) -> bool:
    """`text` holds every word of `phrase` in a row, each as written or (in a phrase of
    `QUOTE_WORDS` words or more) by a slip."""
    return bool(phrase) and bool(runs(phrase, text, least=len(phrase)))
