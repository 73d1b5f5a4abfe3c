"""Fault handling: after a tool fault the harness injected (`contracts.faults`), a good agent
may retry once, and neither acts on what the failed call would have said nor invents it.

For each fault not recovered by a retry (a later call of the same tool with the same arguments
in the turn that got a real result), in that turn:
- no write follows the faulted read ("it acted anyway");
- the faulted call is not retried more than once;
- the answer asserts nothing about the faulted call's entity (or, for a search, anything at all)
  that no real tool result of the trial supplied: a status, severity or owner read from claims
  (`claims.extract`), never from keywords, that no real result or prompt naming that entity
  supplied; and no clock time that none of them holds.

Whether the answer *reports* the failure is a fact of the case's reference, for `facts` to
judge; a word list cannot tell "the status backend is down" from "inventory is down". The
detail names the fault, so a failing trial says what was injected. n/a when no fault was met.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from .base import Score, scorer

if TYPE_CHECKING:
    from ops_copilot.registry import ToolSpec

    from ..calls import InjectedFault, ToolCall, TrialView, Turn
    from ..claims import Vocabulary
    from ..plan import Plan

MAX_RETRIES = 1


def _injected(call: ToolCall) -> bool:
    """A result the harness wrote for a fault (an error or timeout; an empty result says
    nothing, so it may count as real)."""
    result = call.result if isinstance(call.result, dict) else {}
    return result.get("status") == "error" and result.get("reason") in ("backend_error", "timeout")


def _supplied(trial: TrialView) -> list[str]:
    """Everything real the agent was told (the user's prompts and every tool result the harness
    did not write), one lower-cased text per source, to look a claimed value up in."""
    results = [c.result for t in trial.turns for c in t.calls if not _injected(c)]
    told = [json.dumps(r, ensure_ascii=False, default=str) for r in results]
    return [text.lower() for text in [*told, *(t.prompt for t in trial.turns)]]


def _entities(fault: InjectedFault, spec: ToolSpec | None) -> set[str]:
    """The entity ids the faulted call named, lower-cased; empty for a search (it names none,
    so anything the answer claims might have come from it)."""
    kinds = spec.entities if spec is not None else {}
    return {str(v).strip().lower() for k, v in fault.args.items() if k in kinds and v}


# A clock time in an answer ("from 10:02 on") is a fact read from a log or a timeline: one that
# no real result or prompt holds was made up.
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")


def _problems(
    turn: Turn, specs: dict[str, ToolSpec], vocab: Vocabulary, supplied: list[str]
) -> list[str]:
    from ..claims import extract

    writes = {name for name, spec in specs.items() if spec.is_write}
    problems = []
    for shown in dict.fromkeys(f.show() for f in turn.faults):
        fault = next(f for f in turn.faults if f.show() == shown)
        calls = turn.calls
        same = [i for i, c in enumerate(calls) if c.name == fault.tool and c.args == fault.args]
        failed = [i for i in same if _injected(calls[i])]
        if same and len(same) > len(failed) and fault.kind != "empty":
            continue  # a retry got a real answer
        why = []
        if len(same) > 1 + MAX_RETRIES:
            why.append(f"it called {fault.tool} {len(same)} times (at most one retry)")
        after = calls[same[0] + 1 :] if same else []
        acted = [c.show() for c in after if c.name in writes and fault.tool not in writes]
        if acted:
            why.append(f"it acted anyway: {', '.join(acted)}")
        about = _entities(fault, specs.get(fault.tool))
        invented = [
            c.show()
            for c in extract(turn.response, vocab)
            if not c.negated
            and c.attribute != "exists"
            and (not about or c.entity.lower() in about)
            and not any(c.value.lower() in text and c.entity.lower() in text for text in supplied)
        ]
        invented += [
            f"a time of {t}"
            for t in _TIME.findall(turn.response)
            if not any(t in s for s in supplied)
        ]
        if invented and not turn.response_synthesized:
            why.append(f"it claims what no tool told it: {', '.join(invented)}")
        if why:
            problems.append(f"turn {turn.index}: {shown}; {'; '.join(why)}")
    return problems


@scorer(
    name="fault_handling",
    needs=("turns",),
    passes_when="after each injected tool fault not recovered by a retry: at most one retry, no "
    "write after the faulted read, and no claim about its entity that no real tool result "
    "supplied; n/a when no fault was injected",
)
def fault_handling(trial: TrialView, plan: Plan) -> Score:
    from ..agents import AGENTS
    from ..claims import Vocabulary

    meta = trial.case.meta
    if not any(t.faults for t in trial.turns):
        return Score(outcome="n/a", detail="no fault was injected")
    specs = dict(AGENTS[meta.agent if meta else "ops_copilot"].tool_specs())
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    supplied = _supplied(trial)
    problems = [p for t in trial.turns for p in _problems(t, specs, vocab, supplied)]
    if problems:
        return Score.of(False, "; ".join(problems))
    shown = "; ".join(dict.fromkeys(f.show() for t in trial.turns for f in t.faults))
    return Score.of(True, f"{shown}: no retry storm, nothing acted on, nothing invented")
