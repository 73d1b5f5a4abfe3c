"""Rules about a case as a whole and the text of its turns."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .context import Context, Site
from .problems import Problem

INCIDENT_ID = re.compile(r"\bINC-\d{3}\b")

# An eval id names its case in `--cases a,b`, in report rows and file names, in ADK's web UI and
# in CI annotations; an eval set id names the set in ADK's web UI and becomes a file name when
# ADK saves a set: so both are short and plain -- the form every id in evals/ already has.
MAX_ID_LENGTH = 128
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def id_problem(declared: str) -> str | None:
    """Why `declared` is not a plain id (present, at most MAX_ID_LENGTH characters, ID_PATTERN),
    or None: the one rule for eval ids and eval set ids."""
    if not declared:
        return "is empty"
    if len(declared) > MAX_ID_LENGTH:
        return f"is {len(declared)} characters long; at most {MAX_ID_LENGTH}"
    if not ID_PATTERN.fullmatch(declared):
        return (
            f"{declared!r} may hold only letters, digits and . _ - "
            "(starting with a letter or digit)"
        )
    return None


def eval_id(ctx: Context, site: Site) -> Iterator[Problem]:
    """An eval id is a plain id (`id_problem`) and names one case across every set. A missing
    or non-string id is ADK's schema problem."""
    declared = site.case.declared_id
    if not isinstance(declared, str):
        return
    wrong = id_problem(declared)
    if wrong:
        yield site.problem(wrong, field="eval_id")
    if not declared:
        return
    if declared in ctx.seen_ids:
        yield site.problem(f"duplicate eval id (also in {ctx.seen_ids[declared]})", field="eval_id")
    ctx.seen_ids.setdefault(declared, site.evalset.display)


def has_turns(ctx: Context, site: Site) -> Iterator[Problem]:
    """A scripted case has turns; a scenario's are its reference (`scenario_rules`)."""
    if not site.case.turns and site.case.start is None:
        yield site.problem("has no conversation turns", field="conversation")


def turn_texts(ctx: Context, site: Site) -> Iterator[Problem]:
    """Each turn has a prompt and a reference, shares no long run of words with what the agent
    is given, and names only incidents that exist or are declared negatives. A text of the wrong
    type is ADK's schema problem, reported with its path; it is not also called empty."""
    known = ctx.ids("incident", site.meta.agent) | ctx.negatives.of("incident")
    for turn in site.case.turns:
        texts = (
            ("user_content", "prompt", turn.prompt),
            ("final_response", "reference", turn.reference),
        )
        if not turn.prompt and "user_content" not in turn.mistyped:
            yield site.problem("user text is empty", turn=turn.index, field="user_content")
        # a scenario's reference turn may end at an approval request answered with words
        # (`scenario_rules.reference_walk` says which may)
        scenario_turn = site.case.start is not None
        if not turn.reference and "final_response" not in turn.mistyped and not scenario_turn:
            yield site.problem(
                "reference response is empty", turn=turn.index, field="final_response"
            )
        for fld, what, text in texts:
            leak = ctx.leaks.find(text)
            if leak:
                message = f"{'prompt' if what == 'prompt' else 'reference response'} shares {leak}"
                yield site.problem(f"{message} (leakage)", turn=turn.index, field=fld)
        for fld, _, text in texts:
            for inc in sorted(set(INCIDENT_ID.findall(text)) - known):
                yield site.problem(
                    f"mentions {inc}, which is neither in the seed nor a declared negative",
                    turn=turn.index,
                    field=fld,
                )


def session_input(ctx: Context, site: Site) -> Iterator[Problem]:
    """The runner applies `session_input` (app, user, state) as ADK does, but not a pinned
    session id: repeats and concurrent trials each need a session of their own."""
    if site.case.session.session_id is not None:
        yield site.problem(
            "a pinned session id would make every repeat share one session; leave it out",
            field="session_input.session_id",
        )
