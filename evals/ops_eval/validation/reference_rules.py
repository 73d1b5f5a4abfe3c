"""Reference answers agree with the seed: each claim a reference answer makes -- a service's or
an incident's status, a severity, an owner, that something does not exist, a runbook or skill
to follow -- is what the state the agent answers from holds. A wrong reference passes every
other offline check, and then fails the `facts` scorer on every live run of a correct agent
while the PR gate stays green; here it fails the PR, one line per claim, naming the value the
state holds.

The reference is read with the agent's own claims reader (`agents.ops_guards`), as `facts`
reads it, over a vocabulary that differs from the scorer's only where the scorer trusts the
reference: every id of the seed is one whose absence is read ("INC-002 does not exist"), and the
deliberate negatives -- with any runbook or skill the text names in quotes, hyphenated, or after
"named" -- are runbooks and skills it may name ("follow the reboot-everything runbook"). The
vocabulary is built once per validation (`Context.vocabulary`); a claim about all incidents
("no open incidents") is left alone: the reader cannot say which ones it means.

Against which state: an answered turn's reference (`call_policy.answered_turns`, as `facts`
reads them) against a fresh state with the case's expected writes that a human lets through up
to and including that turn made through the real tools (`end_state.approved_writes`, the gold
store's own reading): "INC-002 is now resolved" after an approved resolution is right, "open"
is wrong. A scenario's goal claims against the state after its goal's writes.

Which agents: those that answer in words over the ops copilot's seed and audited workspace. An
agent with an answer schema (the triage agent) has its reference checked by its port
(`policy_rules.answer_reference`); an agent with a seed of its own has no claims reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..agents import AGENTS, DEFAULT_AGENT, port, seed_for
from ..agents.ops_world import ENTITY_KINDS
from ..core.evalset import META_KEY
from .context import Context, Site
from .problems import Problem
from .reference_reading import reader


def reads_claims(agent: str) -> bool:
    """Whether the case's agent answers in words over the ops copilot's seed and workspace."""
    mine, ops = AGENTS[agent], port(DEFAULT_AGENT)
    return (
        mine.answer_schema is None
        and mine.load_seed is ops.load_seed
        and bool(mine.extras.get("audited_store"))
    )


def _wrong(claim: Any, state: Any, seed: Any, after: str, named: frozenset[str]) -> str | None:
    """Why `claim` is not what the state holds (None: it is, or it is no claim about it, or one
    about an entity in `named`, which another rule already reports as unknown)."""
    from ..agents.ops_guards import HELD, Claim, true_value

    if claim.entity.startswith("*"):  # "no open incidents": which ones, the reader cannot say
        return None
    if claim.attribute in ("runbook", "skill"):
        exists = true_value(Claim(claim.value, "exists", "yes"), seed)
        if claim.negated or exists == "yes":
            return None
        return (
            f"reference names {claim.attribute} {claim.value}; the seed has no "
            f"{claim.attribute} {claim.value}"
        )
    if claim.attribute == "exists":
        if not claim.negated or true_value(claim, seed) != "yes":
            return None
        kind = _kind(claim.entity, seed)
        return f"reference says {claim.entity} does not exist; the seed has {kind} {claim.entity}"
    if claim.attribute not in HELD:
        return None
    truth = true_value(claim, state)
    said = f"{claim.entity} {claim.attribute} is {'not ' if claim.negated else ''}{claim.value}"
    if truth is None:
        if claim.negated or claim.entity in named:
            return None
        kind = "incident" if claim.entity.startswith("INC-") else "service"
        return f"reference says {said}; the seed has no {kind} {claim.entity}"
    if (truth.casefold() == claim.value.casefold()) != claim.negated:
        return None
    before = true_value(claim, seed)
    if after and before != truth:
        return (
            f"reference says {said}; after the approved {after} it is {truth} (the seed: {before})"
        )
    return f"reference says {said}; the seed says {truth}"


def _kind(entity: str, ws: Any) -> str:
    return next((kind for kind in ENTITY_KINDS if entity in ws.seed.ids(kind)), "entity")


def references_agree(ctx: Context, site: Site) -> Iterator[Problem]:
    """Each answered turn's reference, and a scenario's goal claims, agree with the state."""
    case = site.case
    if case.meta is None or not reads_claims(case.meta.agent):
        return
    if case.scenario is not None:
        yield from _goal_claims(ctx, site)
        return
    yield from _turns(ctx, site)


def _turns(ctx: Context, site: Site) -> Iterator[Problem]:
    from ..core.call_policy import answered_turns

    case, agent, read = site.case, AGENTS[site.meta.agent], reader(ctx)
    scans = [read.scan(t.reference) if t.reference else None for t in case.turns]
    if all(s is None or s.empty for s in scans):
        return  # nothing any reference says could disagree with any state: the common case
    answered = {id(t) for t in answered_turns(case)}
    writes: list[Any] = []
    if any(c.name in agent.write_tools for t in case.turns for c in t.calls):
        from ..scorers.end_state import approved_writes

        expected = [t.calls for t in case.turns]
        writes = list(approved_writes(case, expected, site.meta.contracts, agent))
    # an incident id neither in the seed nor declared negative: `case_rules.turn_texts` says so
    known = ctx.ids("incident", agent.name) | ctx.negatives.of("incident")
    seed = ctx.gold_for(agent.name).workspace  # fresh, and never written to
    for position, (turn, scan) in enumerate(zip(case.turns, scans, strict=True)):
        if scan is None or scan.empty or id(turn) not in answered:
            continue
        made = [w for w in writes if w[0] <= position]
        state = _after(ctx, site, made)
        if state is None:  # a write that does not fit its tool: `call_rules` says so
            return
        if scan.settled(state):
            continue
        claims = read.claims(scan)
        unknown = frozenset(c.entity for c in claims if c.entity.startswith("INC-")) - known
        shown = ", ".join(call.show() for _, _, call, _ in made)
        for claim in claims:
            why = _wrong(claim, state, seed, shown, unknown)
            if why:
                yield site.problem(why, turn=turn.index, field="final_response")


def _after(ctx: Context, site: Site, writes: list[tuple[int, int, Any, Any]]) -> Any:
    """The state after `writes` (`approved_writes`' rows) made through the real tools on a fresh
    store (None: one crashed), or the untouched gold one when there are none."""
    from ..scorers.end_state import make_write

    agent = AGENTS[site.meta.agent]
    if not writes:
        return ctx.gold_for(agent.name).workspace

    def make(state: Any) -> None:
        for _, n, call, how in writes:
            make_write(site.case, agent, state, f"gold-{n}", call.name, call.args, how)

    return _state(ctx, agent, [(c.name, c.args, how is not None) for _, _, c, how in writes], make)


def _state(ctx: Context, agent: Any, writes: list[Any], make: Any) -> Any:
    """One state per list of writes (tool, arguments, approved or not) per validation, made by
    `make` on a fresh store: a state is only read once they are made, and cases repeat a few
    (who approved, and why, is the audit's, not the state's). None when a write crashed."""
    key = json.dumps([agent.name, writes], sort_keys=True, default=str)
    states = ctx.built.setdefault(f"{__name__}.states", {})
    if key not in states:
        state = agent.state.fresh(seed_for(agent.name, ctx.seed))
        try:
            make(state)
        except Exception:  # a write that does not fit its tool: `call_rules` says so
            state = None
        states[key] = state
    return states[key]


def _goal_claims(ctx: Context, site: Site) -> Iterator[Problem]:
    """A scenario's goal claims, against the state after its goal's writes."""
    from ..core.calls import ToolCall
    from ..scorers.end_state import replay_goal

    case, agent, read = site.case, AGENTS[site.meta.agent], reader(ctx)
    assert case.scenario is not None
    seed = state = ctx.gold_for(agent.name).workspace
    goal = case.scenario.goal
    made = ", ".join(ToolCall(w.tool, w.args).show() for w in goal.writes)
    for n, text in enumerate(goal.claims):
        scan = read.scan(text)
        if scan.empty:
            continue
        if goal.writes and state is seed:
            made_as = [(w.tool, w.args, w.tool in agent.guarded_tools) for w in goal.writes]
            state = _state(ctx, agent, made_as, lambda ws: replay_goal(case, agent, ws))
            if state is None:  # a goal write that does not fit its tool: `goal_fits` says so
                return
        if scan.settled(state):
            continue
        for claim in read.claims(scan):
            why = _wrong(claim, state, seed, made, frozenset())
            if why:
                yield site.problem(why, field=f"{META_KEY}.scenario.goal.claims[{n}]")
