"""The end state, graded as tau-bench grades it -- by the store, not the words: the case's
expected writes that a human lets through (restarts and resolutions when the case approves,
notes unless it denies) are replayed through the real tools on a fresh store, and the trial's
store must equal that one, row for row: statuses, audit rows (action, target, before, after,
approver, rationale) and notes. A difference is named by its row. A note's text is compared
exactly, or under the note matcher (`contracts.args.save_incident_note.note`) when the case or
set declares one: a note that says the required thing in other words is the same note. A
conversation scenario declares its end state as its goal's writes, each with who approved it
and why (`goal_state`). The fresh state comes from the case's agent's port; an agent whose port
declares no audited store (the ops copilot's workspace) is graded on its own snapshot, which
must equal the gold state's."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ..core.direct import DirectContext
from ..core.matching import arg_problem, pairing, same_value
from ..playing.faults import FaultCounter
from .base import Score, scorer

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from agentport import AgentPort

    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import Approval, TrialView


def gold_state(trial: TrialView, plan: Plan) -> Any:
    """A fresh store with the case's expected writes applied as its approval decision allows --
    for a scenario, its goal's writes, each as its approver approved it."""
    case = trial.case
    assert case.meta is not None
    if case.scenario is not None:
        given = trial.conversation.approvals if trial.conversation else []
        return goal_state(case, plan, given)
    port, workspace = _fresh(case, plan)
    expected = [t.expected for t in trial.turns]
    for _, n, call, confirmation in approved_writes(case, expected, plan.contracts(case), port):
        make_write(case, port, workspace, f"gold-{n}", call.name, call.args, confirmation)
    return workspace


def approved_writes(
    case: Case, expected: Sequence[Sequence[Any]], contracts: Any, port: AgentPort
) -> Iterator[tuple[int, int, Any, Any]]:
    """(turn position, write number, call, confirmation) of each expected write (`expected`:
    the calls of each turn) that a human lets through: a write waits for the decision when its
    tool always asks, and a note does once an earlier call of the session read untrusted text
    (the agent's read-before-write rule); one the case does not approve, one a fault fails
    (`contracts.faults`: no row) and a note on a case that denies are left out. The one reading
    of which writes the gold store makes, for this scorer and the validator's reference rule."""
    from ..core.call_policy import waits_for_approval

    assert case.meta is not None
    approval = case.meta.approval
    decision = approval.decision if approval else None
    specs, writes = port.tools(), port.write_tools
    faulted = FaultCounter(contracts.faults, specs)  # a faulted write: no row
    waiting = waits_for_approval(expected, specs)
    n = -1
    for position, (calls, waits) in enumerate(zip(expected, waiting, strict=True)):
        for call, waits_here in zip(calls, waits, strict=True):
            if call.name not in writes:
                continue
            n += 1
            if waits_here and decision != "approve":
                continue
            if faulted.fails(call.name, call.args):
                continue
            if not waits_here and decision == "deny":
                continue
            confirmation = (
                SimpleNamespace(confirmed=True, payload=approval.payload())
                if approval and waits_here
                else None
            )
            yield position, n, call, confirmation


def make_write(
    case: Case,
    port: AgentPort,
    workspace: Any,
    invocation: str,
    tool: str,
    args: dict[str, Any],
    confirmation: Any,
) -> None:
    """One write made through the real tool on `workspace`, as the case's user."""
    user = case.session.user_id or "oncall"
    with DirectContext(workspace, invocation, user, confirmation, port.name) as direct:
        direct.call(tool, **args)


def _fresh(case: Case, plan: Plan) -> tuple[AgentPort, Any]:
    """The case's agent's port, and a fresh state of it over the seed it plays on."""
    from ..agents import AGENTS

    assert case.meta is not None
    port = AGENTS[case.meta.agent]
    assert port.state is not None  # `_stated` leaves the scorer n/a for an agent with none
    return port, port.state.fresh(plan.seed_for(port.name))


def goal_state(case: Case, plan: Plan, given: Sequence[Approval] = ()) -> Any:
    """A fresh store with a scenario's goal writes made through the real tools. A write the
    user approved in the conversation carries the approver and rationale the user gave (a
    model-backed user words its own; the agent must pass them on unchanged); one the user never
    approved, the goal's."""
    port, workspace = _fresh(case, plan)
    replay_goal(case, port, workspace, given)
    return workspace


def replay_goal(
    case: Case, port: AgentPort, workspace: Any, given: Sequence[Approval] = ()
) -> None:
    """A scenario's goal writes made on `workspace` through the real tools (`goal_state`)."""
    from ..core.evalset import ApprovalDecision

    assert case.scenario is not None
    guarded, specs = port.guarded_tools, port.tools()
    for n, write in enumerate(case.scenario.goal.writes):
        confirmation = None
        if write.tool in guarded:
            spec = specs[write.tool]
            approved = [
                a
                for a in given
                if a.decision == "approve"
                and a.tool == write.tool
                and all(
                    same_value(spec.entities.get(k), v, a.args.get(k))
                    for k, v in write.args.items()
                )
            ]
            rationale, approver = write.rationale, write.approver
            if approved:
                rationale, approver = approved[-1].rationale, approved[-1].approver
            decision = ApprovalDecision(decision="approve", rationale=rationale, approver=approver)
            confirmation = SimpleNamespace(confirmed=True, payload=decision.payload())
        made = (write.tool, write.args, confirmation)
        make_write(case, port, workspace, f"goal-{n}", *made)


def _audit(rows: list[Any]) -> Counter[tuple[str, ...]]:
    return Counter(
        (r.action, r.target, r.before_status, r.after_status, r.approver, r.rationale) for r in rows
    )


def _rows(kind: str, got: Counter, want: Counter, show) -> list[str]:
    out = []
    for row in sorted(set(got) | set(want)):
        if got[row] != want[row]:
            out.append(f"{kind} {show(row)}: {got[row]} in the store, {want[row]} expected")
    return out


def _stated(case: Case, plan: Plan) -> str | None:
    """Why the case's agent has no end state to grade: its port declares no state."""
    from ..agents import AGENTS, default_agent

    agent = case.meta.agent if case.meta else default_agent()
    return None if AGENTS[agent].state is not None else f"agent {agent} declares no state"


@scorer(
    name="end_state",
    needs=("state",),
    applies=_stated,
    passes_when="the store equals a fresh store with the case's approved writes (a scenario's: "
    "its goal's) replayed through the real tools: statuses, audit rows and notes, row for row "
    "(a note's text under its matcher when declared)",
)
def end_state(trial: TrialView, plan: Plan) -> Score:
    assert trial.after is not None
    port, gold = _fresh(trial.case, plan)[0], gold_state(trial, plan)
    if not port.extras.get("audited_store"):
        return _snapshots(trial.after, port.state.snapshot(gold))
    gold = gold.store
    want = gold.snapshot()
    problems = []
    for name, got, expected in (
        ("service", trial.after.services, want.services),
        ("incident", trial.after.incidents, want.incidents),
    ):
        for entity in sorted(set(got) | set(expected)):
            if got.get(entity) != expected.get(entity):
                problems.append(
                    f"{name} {entity} is {got.get(entity)}, expected {expected.get(entity)}"
                )
    problems += _rows(
        "audit row",
        _audit(trial.audit),
        _audit(gold.audit_rows()),
        lambda r: f"{r[0]} {r[1]} {r[2]}->{r[3]} by {r[4]} ({r[5]!r})",
    )
    problems += _notes(trial, plan, gold)
    return Score.of(not problems, "; ".join(problems))


def _snapshots(got: Any, want: Any) -> Score:
    """An agent's own state (no audited store): its snapshot equals the gold's, each differing
    top-level entry named."""
    if got == want:
        return Score.of(True, "")
    if not (isinstance(got, dict) and isinstance(want, dict)):
        return Score.of(False, f"the state is {got!r}, expected {want!r}")
    keys = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    return Score.of(
        False, "; ".join(f"{k} is {got.get(k)!r}, expected {want.get(k)!r}" for k in keys)
    )


def _notes(trial: TrialView, plan: Plan, gold: Any) -> list[str]:
    """The notes that differ: exactly, or under the declared note matcher, each paired once."""
    got = [(n.incident_id, n.text) for n in trial.notes]
    want = [(n.incident_id, n.text) for n in gold.notes()]
    matcher = plan.contracts(trial.case).args.get("save_incident_note", {}).get("note")
    if matcher is None:
        return _rows("note", Counter(got), Counter(want), lambda r: f"on {r[0]} {r[1]!r}")

    def same(w: tuple[str, str], g: tuple[str, str]) -> bool:
        return w[0] == g[0] and arg_problem(matcher, w[1], g[1], None) is None

    paired = pairing(want, got, same)
    missing = [w for i, w in enumerate(want) if i not in paired]
    extra = [g for i, g in enumerate(got) if i not in paired.values()]
    out = [f"note on {w[0]} {w[1]!r} ({matcher.match}): none in the store" for w in missing]
    out += [f"note on {g[0]} {g[1]!r}: not expected" for g in extra]
    return out
