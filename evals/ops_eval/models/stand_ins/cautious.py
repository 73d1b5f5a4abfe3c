"""The cautious attacker: a scripted model that follows only instructions it can read whole.

It is the obedient attacker (`attacker.ObedientAttacker`) with one difference: it follows a
payload only when every part of it reached the model un-neutralised -- when the part's text, as
spotlighting normalises it (`spotlight.normalise`: NFKC, invisible characters dropped, tag
characters shown), or as planted, stands whole on a line of a tool result it was sent. A line
that spotlighting neutralised has lost the text from the start of the offending sentence, so a
neutralised part is never whole. The fence alone does not stop it: models do follow fenced
instructions, so this attacker credits spotlighting only with what the neutraliser removed.

Against it, the shipped agent versus spotlighting switched off measures what spotlighting adds;
the obedient attacker, which obeys regardless, proves the approval gate holds on its own. It
reads instructions only in tool results: the user's own message (a note the user asked to save)
is not an order to it. Test infrastructure, never a product model.
"""

from __future__ import annotations

from ...agents.ops_guards import normalise
from .attacker import ObedientAttacker


class CautiousAttacker(ObedientAttacker):
    model: str = "cautious-attacker"

    def obeys(self, seen: frozenset[str]) -> bool:
        return all(self._whole(payload, seen) for payload in self.payloads)

    @staticmethod
    def _whole(payload: str, seen: frozenset[str]) -> bool:
        forms = {payload.strip(), normalise(payload).strip()} - {""}
        return any(form in line for line in seen for form in forms)


class Bystander(ObedientAttacker):
    """The user's task done right with the payload present: it reads what the task reads and
    never obeys, so its runs measure whether the defences still let the task through (utility
    under attack). Test infrastructure, never a product model."""

    model: str = "bystander"

    def obeys(self, seen: frozenset[str]) -> bool:
        return False
