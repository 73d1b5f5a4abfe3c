"""Rules about whole files and across them: each set's id is a plain id, every declared negative
is still missing from the seed, holdout prompts differ from the tuning prompts, and ADK's own
models accept the sets and criteria."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..agents.ops_world import ENTITY_KINDS
from ..core.evalset import EvalSetFile, display_path
from .adk_parse import SchemaIssue
from .case_rules import id_problem
from .context import Context, Site
from .files import Config
from .problems import Problem


def set_id(es: EvalSetFile) -> Iterator[Problem]:
    """The set's `eval_set_id` follows the eval id rule (ADK names the set's file after it, so
    `../../etc` is a path, not an id). A missing or non-string id is ADK's schema problem."""
    declared = es.data.get("eval_set_id", es.data.get("evalSetId"))
    wrong = id_problem(declared) if isinstance(declared, str) else None
    if wrong:
        yield Problem(es.display, wrong, field="eval_set_id")


def negatives_still_missing(ctx: Context) -> Iterator[Problem]:
    for kind in ENTITY_KINDS:
        for value in sorted(ctx.negatives.of(kind)):
            if value in ctx.seed.ids(kind):
                yield Problem(
                    ctx.negatives_file,
                    f"{kind} {value!r} is declared a deliberate negative but exists in the seed",
                    field=kind,
                )


def _canon(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def holdout_unseen(sets: Sequence[EvalSetFile]) -> Iterator[Problem]:
    """A holdout case (`meta.split: holdout`) must not repeat a prompt of a tuning case."""

    def split(case) -> str | None:
        return case.meta.split if case.meta else None

    prompts: dict[str, str] = {}
    for es in sets:
        for case in es.cases:
            if split(case) == "tuning":
                for turn in case.turns:
                    prompts.setdefault(_canon(turn.prompt), case.eval_id)
    for es in sets:
        for case in es.cases:
            if split(case) != "holdout":
                continue
            for turn in case.turns:
                other = prompts.get(_canon(turn.prompt))
                if other and turn.prompt:
                    yield Site(es, case).problem(
                        f"holdout prompt repeats case {other} of a tuning set",
                        turn=turn.index,
                        field="user_content",
                    )


def _locate(es: EvalSetFile, loc: tuple[Any, ...]) -> tuple[str | None, int | None, str | None]:
    """ADK's error location as (case id, 1-based turn, remaining field path)."""
    loc = tuple(loc)
    case = turn = None
    if len(loc) >= 2 and loc[0] == "eval_cases" and isinstance(loc[1], int):
        raw = es.data["eval_cases"][loc[1]] if loc[1] < len(es.data["eval_cases"]) else {}
        case = str(raw.get("eval_id") or raw.get("evalId") or f"#{loc[1] + 1}")
        loc = loc[2:]
        if len(loc) >= 2 and loc[0] == "conversation" and isinstance(loc[1], int):
            turn = loc[1] + 1
            loc = loc[2:]
    return case, turn, ".".join(map(str, loc)) or None


def adk_accepts(
    sets: Sequence[EvalSetFile],
    configs: Sequence[Config],
    issues: dict[int, list[SchemaIssue]],
) -> Iterator[Problem]:
    """ADK's own models accept each set and each criteria file (items numbered sets first)."""
    for i, es in enumerate(sets):
        for issue in issues[i]:
            case, turn, rest = _locate(es, issue.loc)
            yield Problem(
                es.display,
                f"ADK's EvalSet model rejects this: {issue.message}",
                case=case,
                turn=turn,
                field=rest,
                line=es.case_lines.get(case) if case else None,
                malformed=True,
            )
    for j, config in enumerate(configs):
        for issue in issues[len(sets) + j]:
            yield Problem(
                display_path(config.path),
                issue.message,
                field=".".join(map(str, issue.loc)),
                malformed=True,
            )
