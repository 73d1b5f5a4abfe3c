"""Rules about conversation scenarios (`core.scenario`), checked like cases: the user's rules name
real tools and seed entities, the goal is reachable by the tools, and the reference conversation
is the one the scripted user would hold with an agent that answers as it does.

The reference is walked with the scripted user's own code (`playing.scenarios.users`): at each write
that asks for approval the user is asked with the write waiting, after each turn with the answer; a
move the reference does not follow (a different next message, a stop before its end, words
where it goes on) is a problem naming the turn and the rule. The writes the walk lets through
must be the goal's writes, the calls it makes must include the goal's calls, and some answer of
the reference must make each claim of the goal -- so every goal is reachable, by the tools, on
the seed. Drafts (`ops-eval distill`) are refused here until a person has reviewed them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..agents import AGENTS
from ..agents.ops_guards import judge
from ..core.calls import ToolCall, pause_text
from ..core.evalset import META_KEY
from .call_rules import entity_problem, signature_problems
from .case_rules import INCIDENT_ID
from .context import Context, Site
from .problems import Problem

if TYPE_CHECKING:
    from ..core.scenario import ScenarioMeta

FIELD = f"{META_KEY}.scenario"


def draft_reviewed(ctx: Context, site: Site) -> Iterator[Problem]:
    """A drafted case holds what an agent did, not what it should do: refused until reviewed."""
    draft = site.meta.draft
    if draft is not None:
        yield site.problem(
            f"is a draft from {draft.source}: {draft.review} Then delete {META_KEY}.draft",
            field=f"{META_KEY}.draft",
        )


def scenario_shape(ctx: Context, site: Site) -> Iterator[Problem]:
    """A scenario has both halves -- ADK's `conversation_scenario` and `meta.scenario` -- and
    nothing a scripted case has instead."""
    case, meta = site.case, site.meta
    if case.start is None:
        if meta.scenario is not None:
            yield site.problem("belongs to a case with a conversation_scenario", field=f"{FIELD}")
        return
    if meta.scenario is None:
        if case.meta is not None:
            yield site.problem(
                "a conversation scenario needs its user rules, goal and reference here",
                field=FIELD,
            )
        return
    if not case.start.starting_prompt.strip():
        yield site.problem("is empty", field="conversation_scenario.starting_prompt")
    if not case.start.plan.strip():
        yield site.problem("is empty", field="conversation_scenario.conversation_plan")
    if meta.approval is not None:
        yield site.problem(
            "a scenario's user decides each approval (its rules): leave this out",
            field=f"{META_KEY}.approval",
        )
    for n, check in enumerate(meta.response):
        kind = getattr(check, "scorer", None)
        if kind != "llm_judge":
            yield site.problem(
                "a scenario is scored on its goal: declare claims there; its only response "
                "check is an llm_judge rubric over the whole conversation",
                field=f"{META_KEY}.response[{n}]",
            )
        elif getattr(check, "turn", None) is not None:
            yield site.problem(
                "a scenario's turns are not known in advance: its judge grades the whole "
                "conversation, with no turn",
                field=f"{META_KEY}.response[{n}].turn",
            )
    if meta.contracts.faults:
        yield site.problem(
            "tool faults are for scripted cases", field=f"{META_KEY}.contracts.faults"
        )
    scenario = meta.scenario
    if len(scenario.reference) > scenario.limits.turns:
        yield site.problem(
            f"the reference takes {len(scenario.reference)} turns, more than the limit "
            f"({scenario.limits.turns})",
            field=f"{FIELD}.limits.turns",
        )


def _call_problems(ctx: Context, specs: Any, call: ToolCall, partial: bool = True) -> Iterator[str]:
    """Why `call` is no call of a tool of the agent on the seed. `partial`: arguments may be
    left out (a rule or a required call names only those it compares)."""
    spec = specs.get(call.name)
    if spec is None:
        yield f"{call.name!r} is not a tool of this agent"
        return
    for message, _ in signature_problems(spec, call):
        if not (partial and "required argument" in message):
            yield message
    for arg, kind in spec.entities.items():
        if call.args.get(arg) is not None:
            wrong = entity_problem(ctx, kind, call.args[arg])
            if wrong:
                yield wrong


def user_rules(ctx: Context, site: Site) -> Iterator[Problem]:
    """Each rule names a tool that asks for approval, seed entities, incidents that exist."""
    scenario = site.case.scenario
    if scenario is None:
        return
    specs = AGENTS[site.meta.agent].tools()
    known = ctx.ids("incident", site.meta.agent) | ctx.negatives.of("incident")
    for n, rule in enumerate(scenario.user):
        where = f"{FIELD}.user[{n}]"
        if rule.approval is not None:
            spec = specs.get(rule.approval)
            if spec is not None and spec.confirm == "never":
                yield site.problem(
                    f"{rule.approval} never asks for approval", field=f"{where}.approval"
                )
            for message in _call_problems(ctx, specs, ToolCall(rule.approval, rule.args)):
                yield site.problem(message, field=f"{where}.approval")
        for inc in sorted(set(INCIDENT_ID.findall(rule.say or "")) - known):
            yield site.problem(f"mentions {inc}, which is not in the seed", field=f"{where}.say")
        leak = ctx.leaks.find(rule.say or "")
        if leak:
            yield site.problem(f"shares {leak} (leakage)", field=f"{where}.say")


def goal_fits(ctx: Context, site: Site) -> Iterator[Problem]:
    """The goal's writes and calls are calls of real tools on seed entities; its claims read as
    claims; each approved write names who approved it and why."""
    scenario = site.case.scenario
    if scenario is None:
        return
    specs = AGENTS[site.meta.agent].tools()
    vocab = ctx.vocabulary
    for n, write in enumerate(scenario.goal.writes):
        where = f"{FIELD}.goal.writes[{n}]"
        spec = specs.get(write.tool)
        if spec is not None and not spec.is_write:
            yield site.problem(f"{write.tool} is no write", field=where)
        # a write is made whole on the gold store: every argument it needs is given
        for message in _call_problems(ctx, specs, ToolCall(write.tool, write.args), False):
            yield site.problem(message, field=where)
        if spec is not None and spec.always_confirm and not (write.rationale and write.approver):
            yield site.problem("an approved write names its approver and rationale", field=where)
    for n, call in enumerate(scenario.goal.calls):
        for message in _call_problems(ctx, specs, ToolCall(call.tool, call.args)):
            yield site.problem(message, field=f"{FIELD}.goal.calls[{n}]")
    for n, claim in enumerate(scenario.goal.claims):
        if not judge(claim, "", vocab).applicable:
            yield site.problem(
                f"{claim!r} reads as no claim about the seed", field=f"{FIELD}.goal.claims[{n}]"
            )


def reference_walk(ctx: Context, site: Site) -> Iterator[Problem]:
    """The reference is the conversation the scripted user holds, and it reaches the goal."""
    scenario = site.case.scenario
    if scenario is None or site.case.start is None:
        return
    specs = AGENTS[site.meta.agent].tools()
    if scenario.reference[0].user != site.case.start.starting_prompt:
        yield site.problem(
            "the first user message differs from the starting prompt",
            turn=1,
            field=f"{FIELD}.reference[0].user",
        )
    approved, problems = _walk(scenario, specs)
    for turn, message in problems:
        yield site.problem(message, turn=turn, field=f"{FIELD}.reference")
    if problems:
        return
    yield from _reaches_goal(ctx, site, scenario, approved, specs)


def _walk(scenario: ScenarioMeta, specs: Any) -> tuple[list[ToolCall], list[tuple[int, str]]]:
    """(the writes that went through, problems) of the scripted user over the reference."""
    from ..playing.scenarios import move_of, rule_fires

    fired: set[int] = set()
    approved: list[ToolCall] = []

    def move(answer: str, pending: list[ToolCall]) -> Any:
        for index, rule in enumerate(scenario.user):
            if not (rule.once and index in fired) and rule_fires(rule, answer, pending, specs):
                fired.add(index)
                return move_of(rule, scenario.approver)
        return None

    turns = scenario.reference
    for i, turn in enumerate(turns, start=1):
        nxt = turns[i].user if i < len(turns) else None
        said = None
        for k, ref in enumerate(turn.calls, start=1):
            call = ToolCall(ref.name, dict(ref.args))
            spec = specs.get(call.name)
            if spec is None or not spec.always_confirm:
                if spec is not None and spec.is_write:
                    approved.append(call)
                continue
            made = move(pause_text([call]), [call])
            if made is not None and made.kind == "approve":
                approved.append(call)
                continue
            if made is not None and made.kind == "deny":
                continue
            said = made
            if k != len(turn.calls) or turn.answer:
                return approved, [
                    (
                        i,
                        f"the user answers {call.show()} with words or stops "
                        f"({_shown(made)}), so the turn ends there",
                    )
                ]
            break
        else:
            if not turn.answer:
                return approved, [(i, "the answer is empty but no approval request ends it")]
            said = move(turn.answer, [])
        problem = _follows(said, nxt)
        if problem:
            return approved, [(i, problem)]
    return approved, []


def _shown(move: Any) -> str:
    if move is None:
        return "no rule fits: it stops"
    return f"{move.why}: {move.kind} {move.text!r}" if move.text else f"{move.why}: {move.kind}"


def _follows(move: Any, nxt: str | None) -> str | None:
    """Why the user's move does not lead to the reference's next message (None: it does)."""
    stops = move is None or move.kind != "say"
    if nxt is None:
        return None if stops else f"the user would go on ({_shown(move)}); the reference ends"
    if stops:
        return f"the user would stop here ({_shown(move)}); the reference goes on with {nxt!r}"
    if move.text != nxt:
        return f"the user would say {move.text!r} ({move.why}); the reference has {nxt!r}"
    return None


def _reaches_goal(
    ctx: Context, site: Site, scenario: ScenarioMeta, approved: list[ToolCall], specs: Any
) -> Iterator[Problem]:
    from ..core.call_policy import names

    wanted = [(w.tool, w.args) for w in scenario.goal.writes]
    went = [(c.name, c.args) for c in approved]
    if sorted(map(repr, wanted)) != sorted(map(repr, went)):
        shown = ", ".join(ToolCall(n, a).show() for n, a in went) or "none"
        yield site.problem(
            f"the reference's writes that go through ({shown}) are not the goal's writes",
            field=f"{FIELD}.goal.writes",
        )
    made = [ToolCall(c.name, dict(c.args)) for t in scenario.reference for c in t.calls]
    for n, call in enumerate(scenario.goal.calls):
        if not any(names(call.tool, call.args, m, specs) for m in made):
            yield site.problem(
                f"the reference never calls {ToolCall(call.tool, call.args).show()}",
                field=f"{FIELD}.goal.calls[{n}]",
            )
    vocab = ctx.vocabulary
    for n, claim in enumerate(scenario.goal.claims):
        if not any(judge(claim, t.answer, vocab).holds for t in scenario.reference if t.answer):
            yield site.problem(
                f"no answer of the reference makes the claim {claim!r}",
                field=f"{FIELD}.goal.claims[{n}]",
            )
    yield from _approvals_given(site, scenario)


def _approvals_given(site: Site, scenario: ScenarioMeta) -> Iterator[Problem]:
    """Each approved goal write is approved by a rule of the user, as the goal says."""
    from ..core.evalset import ApprovalDecision
    from ..playing.scenarios import move_of

    for n, write in enumerate(scenario.goal.writes):
        if not (write.rationale and write.approver):
            continue  # `goal_fits` says so when the write needs them
        want = ApprovalDecision(
            decision="approve", rationale=write.rationale, approver=write.approver
        )
        given = [
            move_of(r, scenario.approver).decision
            for r in scenario.user
            if r.approval == write.tool and r.approve is not None
        ]
        if not any(
            d is not None and (d.rationale, d.approver) == (want.rationale, want.approver)
            for d in given
        ):
            yield site.problem(
                "no rule of the user approves it with this rationale and approver",
                field=f"{FIELD}.goal.writes[{n}]",
            )
