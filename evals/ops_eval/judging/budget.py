"""The judge's spend budget: tokens, declared in the gate's policy (`evals/gate.yaml`,
`judge_budget_tokens`), counted over one command's judge calls.

A call is allowed only when what it could cost still fits: before it, its bound -- the prompt's
bytes (a byte-level tokenizer never makes more tokens than bytes) plus a few tokens per message
for the chat template, plus the reply's token limit -- is reserved; after it, the reservation is
replaced by what the server reports it used (the bound when it reports nothing). A call whose
bound would take the spend past the limit is never made: it is `budget_blocked`. A budget that
cannot be read blocks every call: an unknown budget is not an unlimited one. Cache hits cost
nothing. Reservations are taken under a lock, so concurrent trials cannot overspend together.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .verdicts import JudgeError

BUDGET_BLOCKED = "budget_blocked"
PER_MESSAGE = 8  # chat-template tokens around one message, generously
PER_CALL = 16  # the assistant header and end tokens


class BudgetBlocked(JudgeError):
    """A judge call refused before it was made; the message starts with `budget_blocked`."""


def call_bound(messages: list[dict[str, str]], max_tokens: int) -> int:
    """The most tokens one call can cost: prompt bytes, template tokens, the reply's limit."""
    prompt = sum(len(m["content"].encode()) + PER_MESSAGE for m in messages)
    return prompt + PER_CALL + max_tokens


@dataclass
class Budget:
    """`limit` tokens for this command, or `problem`: why the budget cannot be read (every call
    is then blocked)."""

    limit: int | None
    source: str
    problem: str | None = None
    spent: int = 0
    reserved: int = 0
    blocked: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reserve(self, bound: int) -> None:
        """Hold `bound` tokens for one call, or BudgetBlocked without spending anything."""
        with self._lock:
            if self.problem is not None or self.limit is None:
                self.blocked += 1
                raise BudgetBlocked(
                    f"{BUDGET_BLOCKED}: the judge budget cannot be read ({self.problem}), so "
                    "no judge call is made"
                )
            if self.spent + self.reserved + bound > self.limit:
                self.blocked += 1
                raise BudgetBlocked(
                    f"{BUDGET_BLOCKED}: this call could cost {bound} tokens and "
                    f"{self.spent + self.reserved} of the {self.limit} in {self.source} are "
                    "spent or held; it was not made"
                )
            self.reserved += bound

    def settle(self, bound: int, used: int | None) -> None:
        """Replace a reservation by what the call used (`None`: the server did not say, so the
        bound is charged)."""
        with self._lock:
            self.reserved -= bound
            self.spent += bound if used is None or used < 0 else used

    def release(self, bound: int) -> None:
        """A reserved call that never reached the server costs nothing."""
        with self._lock:
            self.reserved -= bound
