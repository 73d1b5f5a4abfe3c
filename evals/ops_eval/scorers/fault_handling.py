"""Fault handling: after a tool fault the harness injected (`contracts.faults`), a good agent
may retry once, and neither acts on what the failed call would have said nor invents it.

For each fault not recovered by a retry (a later call of the same tool with the same arguments,
compared as the tools normalise them, that got a real result):
- the faulted call is not retried more than once;
- no write follows it (a faulted read, or a faulted write the agent then works around);
- the answer asserts nothing about the faulted call's entity (or, for a search, anything at all)
  that no real tool result about that entity, and no prompt, supplied: claims are read by
  `claims.extract` ("payments is down"; "whether payments is down" asks, it does not assert),
  never from keywords.

Whether the answer *reports* the failure is not judged here: no word list can tell "the status
backend is down" from "inventory is down", and the claims vocabulary names the seed's entities,
not the tools' backends. Made-up log lines that name no entity state are not caught either. The
detail names the fault, so a failing trial says what was injected. n/a when no fault was met.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .base import Score, scorer

if TYPE_CHECKING:
    from agentport import ToolSpec

    from ..agents.ops_guards import Claim, Vocabulary
    from ..core.calls import InjectedFault, ToolCall, Turn
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView

MAX_RETRIES = 1


def _injected(call: ToolCall) -> bool:
    """A result the harness wrote for a fault (an error or timeout; an empty result says
    nothing, so it may count as real)."""
    result = call.result if isinstance(call.result, dict) else {}
    return result.get("status") == "error" and result.get("reason") in ("backend_error", "timeout")


def _records(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside a tool result (a service in a list is one record)."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _records(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _records(inner)


def _told(trial: TrialView) -> dict[str, set[str]]:
    """entity (lower-cased) -> the values real tool results gave in a record naming it: what
    the agent could know about that entity without the faulted call."""
    known: dict[str, set[str]] = {}
    for call in (c for t in trial.turns for c in t.calls if not _injected(c)):
        for record in _records(call.result):
            words = {str(v).strip().lower() for v in record.values() if isinstance(v, str)}
            for word in words:
                known.setdefault(word, set()).update(words)
    return known


def _supported(claim: Claim, known: dict[str, set[str]], prompts: list[str]) -> bool:
    entity, value = claim.entity.lower(), claim.value.lower()
    if value in known.get(entity, ()):
        return True
    said = (sentence for p in prompts for sentence in re.split(r"[.!?\n]", p.lower()))
    return any(entity in sentence and value in sentence for sentence in said)


def _entities(fault: InjectedFault, spec: ToolSpec | None) -> set[str]:
    """The entity ids the faulted call named, as the tools normalise them (lower-cased for
    comparison with claims); empty for a search, which names none."""
    from ..agents.ops_world import normalise

    kinds = spec.entities if spec is not None else {}
    return {normalise(kinds[k], v).lower() for k, v in fault.args.items() if k in kinds and v}


def _problems(
    turn: Turn, specs: Mapping[str, ToolSpec], vocab: Vocabulary, trial: TrialView
) -> list[str]:
    from ..agents.ops_guards import extract
    from ..core.contracts import Fault
    from ..playing.faults import matches

    writes = {name for name, spec in specs.items() if spec.is_write}
    known, prompts = _told(trial), [t.prompt for t in trial.turns]
    problems = []
    seen: list[Fault] = []
    for hit in turn.faults:
        spec = specs.get(hit.tool)
        aim = Fault(tool=hit.tool, kind=hit.kind, when=hit.when, args=hit.args)
        if any(matches(f, spec, hit.tool, hit.args) for f in seen):
            continue  # the same call (as the tools read it) faulted again: judged once
        seen.append(aim)
        calls = turn.calls
        same = [i for i, c in enumerate(calls) if matches(aim, spec, c.name, c.args)]
        real = [i for i in same if not _injected(calls[i])]
        if real and hit.kind != "empty":
            continue  # a retry got a real answer
        why = []
        if len(same) > 1 + MAX_RETRIES:
            why.append(f"it called {hit.tool} {len(same)} times (at most one retry)")
        later = calls[same[0] + 1 :] if same else []
        acted = [
            c.show() for c in later if c.name in writes and not matches(aim, spec, c.name, c.args)
        ]
        if acted:
            why.append(f"it acted anyway: {', '.join(acted)}")
        about = _entities(hit, spec)
        invented = [
            c.show()
            for c in extract(turn.answer, vocab)
            if not c.negated
            and c.attribute != "exists"
            and (not about or c.entity.lower() in about)
            and not _supported(c, known, prompts)
        ]
        if invented and not turn.response_synthesized:
            why.append(f"it claims what no tool told it: {', '.join(invented)}")
        if why:
            problems.append(f"turn {turn.index}: {hit.show()} on {_args(hit)}; {'; '.join(why)}")
    return problems


def _args(hit: InjectedFault) -> str:
    return ", ".join(f"{k}={v}" for k, v in hit.args.items()) or "no arguments"


def _applies(case: Case, plan: Plan) -> str | None:
    return None if plan.contracts(case).faults else "no fault declared"


@scorer(
    name="fault_handling",
    applies=_applies,
    needs=("turns",),
    passes_when="after each injected tool fault not recovered by a retry: at most one retry, no "
    "write after it, and no claim about its entity that no real tool result or prompt "
    "supplied (claims, not keywords); n/a when no fault was injected",
)
def fault_handling(trial: TrialView, plan: Plan) -> Score:
    from ..agents import AGENTS, default_agent
    from ..agents.ops_guards import Vocabulary

    meta = trial.case.meta
    if not any(t.faults for t in trial.turns):
        return Score(outcome="n/a", detail="no fault was injected")
    specs = AGENTS[meta.agent if meta else default_agent()].tools()
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    problems = [p for t in trial.turns for p in _problems(t, specs, vocab, trial)]
    if problems:
        return Score.of(False, "; ".join(problems))
    shown = "; ".join(dict.fromkeys(f.show() for t in trial.turns for f in t.faults))
    return Score.of(True, f"{shown}: at most one retry, nothing acted on, nothing invented")
