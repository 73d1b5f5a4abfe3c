"""The case's `meta`: one problem when it is missing or invalid, and -- so that one bad field
does not hide every other problem of the case -- the meta the other rules assume instead: its
valid fields, the rest at their defaults. A category that is not valid is unknown, and the rules
bound to a category skip the case."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from ..evalset import META_KEY, Case, CaseMeta, Category
from .context import Context, Site
from .problems import Problem, json_type

_PLACEHOLDER: Category = "happy"  # stands in for an unknown category; never read as one


def assumed(case: Case) -> tuple[CaseMeta, Category | None]:
    """(meta the rules read, its category or None when unknown)."""
    if case.meta is not None:
        return case.meta, case.meta.category
    raw = case.raw_meta if isinstance(case.raw_meta, dict) else {}
    kept = {k: v for k, v in raw.items() if k in CaseMeta.model_fields}
    try:
        CaseMeta.model_validate(kept)
    except ValidationError as exc:
        for bad in {e["loc"][0] for e in exc.errors() if e["loc"]}:
            kept.pop(bad, None)
    category = kept.get("category")
    try:
        return CaseMeta.model_validate({**kept, "category": category or _PLACEHOLDER}), category
    except ValidationError:  # fields valid alone but not together: assume only the defaults
        return CaseMeta(category=_PLACEHOLDER), None


def meta_problem(case: Case) -> tuple[str, str] | None:
    """(field, message) of the case's invalid meta, or None when it is valid."""
    if case.meta is not None:
        return None
    raw: Any = case.raw_meta
    if raw is None:
        return META_KEY, "missing; every case needs one, with at least a category"
    if not isinstance(raw, dict):
        return META_KEY, f"must be an object, not {json_type(raw)}"
    try:
        CaseMeta.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        return ".".join(str(p) for p in (META_KEY, *err["loc"])), err["msg"]
    return None


def valid_meta(ctx: Context, site: Site) -> Iterator[Problem]:
    found = meta_problem(site.case)
    if found:
        fld, message = found
        yield site.problem(message, field=fld)
