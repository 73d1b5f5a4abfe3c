"""Rules about what a case may expect of the agent: writes only where policy allows them, an
approval decision only on an approval case, nothing at all in a relevance case, a declared
negative in a negative case, and reference answers of the agent's answer schema that agree with
the seed (`answer_reference`)."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from agentport.port import resolve

from ..agents import AGENTS, seed_for
from ..core.call_policy import waits_for_approval
from .call_rules import signature_problems
from .context import Context, Site
from .problems import Problem


def _calls(site: Site):
    """(turn, 1-based index, call, spec) of every expected call of a known tool."""
    specs = AGENTS[site.meta.agent].tools()
    for turn in site.case.turns:
        for index, call in enumerate(turn.calls, start=1):
            if call.name in specs:
                yield turn, index, call, specs[call.name]


def _waiting(site: Site) -> dict[int, list[bool]]:
    """id(turn) -> whether each of its expected calls waits for approval (`waits_for_approval`)."""
    specs = AGENTS[site.meta.agent].tools()
    waiting = waits_for_approval((t.calls for t in site.case.turns), specs)
    return {id(t): w for t, w in zip(site.case.turns, waiting, strict=True)}


def writes_where_allowed(ctx: Context, site: Site) -> Iterator[Problem]:
    """Restarts and resolutions only in approval cases, notes in memory or approval cases; an
    approval case expects something that needs approval: a restart or resolution, or a note
    after untrusted text (`notes_after_untrusted`)."""
    category = site.category
    if category is None:
        return
    guarded = False
    at = _waiting(site)
    for turn, index, call, spec in _calls(site):
        guarded = guarded or at[id(turn)][index - 1]
        if not spec.is_write or category == "approval":
            continue
        if spec.always_confirm:
            message = f"{call.name} needs approval; it may only be expected in an approval case"
        elif category != "memory":
            message = f"{call.name} writes; it may only be expected in a memory or approval case"
        else:
            continue
        yield site.problem(message, turn=turn.index, call=index, field=call.name)
    if category == "approval" and not guarded:
        yield site.problem(
            "an approval case must expect a call that needs approval", field="meta.category"
        )


def notes_after_untrusted(ctx: Context, site: Site) -> Iterator[Problem]:
    """A note after untrusted text waits for a human, which only an approval case answers."""
    category = site.category
    if category is None:
        return
    at = _waiting(site)
    untrusted_seen = None  # the first tool that read untrusted text, for the message
    for turn, index, call, spec in _calls(site):
        note = spec.confirm == "after_untrusted" and at[id(turn)][index - 1]
        if note and category != "approval":
            yield site.problem(
                f"{call.name} after {untrusted_seen} would wait for a human approval; only an "
                "approval case can expect it there",
                turn=turn.index,
                call=index,
                field=call.name,
            )
        if spec.untrusted and untrusted_seen is None:
            untrusted_seen = call.name


def writes_approvable(ctx: Context, site: Site) -> Iterator[Problem]:
    """An expected restart or resolution must be one a human could approve on a fresh store:
    not refused before anyone is asked (already resolved, unknown target), by the check the
    agent's port declares it makes before asking (`extras["precheck_write"]`; none: no rule)."""
    port = AGENTS[site.meta.agent]
    if "precheck_write" not in port.extras:
        return
    precheck_write, gold = resolve(port.extras["precheck_write"]), ctx.gold_for(port.name)
    for turn, index, call, spec in _calls(site):
        if not spec.always_confirm or any(signature_problems(spec, call)):
            continue  # a call that does not fit its tool is reported as such (`call_rules`)
        result = precheck_write(call.name, call.args, gold.workspace)
        if result is None or result.get("reason") == "writes_disabled":  # a setting, not the case
            continue
        kind, value = result.get("entity"), str(result.get("id"))
        negative = isinstance(kind, str) and port.normalise(kind, value) in ctx.negatives.of(kind)
        if result.get("status") == "not_found" and negative:
            continue
        yield site.problem(
            f"gold replay: this write would be refused before approval: {result.get('message')}",
            turn=turn.index,
            call=index,
            field=call.name,
        )


def category_fits(ctx: Context, site: Site) -> Iterator[Problem]:
    """What a category promises: approvals only on approval cases, no call in a relevance case,
    at least one in a happy case, a declared negative named in a negative case."""
    meta, category = site.meta, site.category
    if category is None:
        return
    calls = list(_calls(site))
    if meta.approval is not None and category != "approval":
        yield site.problem(
            "an approval decision belongs only on an approval case", field="meta.approval"
        )
    if category == "relevance" and any(t.calls for t in site.case.turns):
        yield site.problem("a relevance case expects no tool call at all", field="conversation")
    if category == "happy" and not any(t.calls for t in site.case.turns):
        yield site.problem(
            "a happy case must expect at least one tool call (a case that expects none is a "
            "relevance case)",
            field="meta.category",
        )
    if category == "negative":
        normalise = AGENTS[meta.agent].normalise
        named = {
            normalise(kind, call.args[arg])
            for _, _, call, spec in calls
            for arg, kind in spec.entities.items()
            if isinstance(call.args.get(arg), str)
            and normalise(kind, call.args[arg]) in ctx.negatives.of(kind)
        }
        if not named:
            yield site.problem(
                "a negative case must name a declared negative", field="meta.category"
            )


def answer_reference(ctx: Context, site: Site) -> Iterator[Problem]:
    """The reference answer of a case whose agent declares an answer schema is an answer of that
    schema, and agrees with the seed where the agent says how (`extras["reference_problems"]`:
    (answer, seed) -> (field, why) pairs; the triage agent declares one)."""
    port = AGENTS[site.meta.agent]
    schema = port.answer_schema
    if schema is None:
        return
    check = port.extras.get("reference_problems")
    for turn in site.case.turns:
        try:
            answer = schema.model_validate_json(turn.reference)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(map(str, err["loc"]))
            yield site.problem(
                f"reference is not a {schema.__name__} ({loc + ': ' if loc else ''}{err['msg']})",
                turn=turn.index,
                field="final_response",
            )
            continue
        if check is None:
            continue
        for fld, why in resolve(check)(answer, seed_for(port.name, ctx.seed)):
            yield site.problem(why, turn=turn.index, field=f"final_response.{fld}")
