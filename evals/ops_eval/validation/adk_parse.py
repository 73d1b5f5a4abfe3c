"""ADK's own models parsing eval sets and criteria files, and the worker process that does it
beside the validator (`python -m ops_eval.validation.adk_parse`: it imports ADK's models first,
then parses the JSON list of (kind, text) items it reads on stdin).

A module of its own, importing nothing of ours, so the worker loads ADK's models and no more.
The worker keeps all it loads until it exits, so it runs without the cyclic garbage collector
and skips the collections of interpreter exit: a third of its time was spent in them.
"""

from __future__ import annotations

import gc
import json
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SchemaIssue:
    """One ADK validation error: where (ADK's location path) and what."""

    loc: tuple[Any, ...]
    message: str


def parse_evalset(text: str) -> tuple[Any, list[SchemaIssue]]:
    from google.adk.evaluation.eval_set import EvalSet
    from pydantic import ValidationError

    try:
        return EvalSet.model_validate_json(text), []
    except ValidationError as exc:
        return None, [SchemaIssue(tuple(e["loc"]), e["msg"]) for e in exc.errors()]


def config_issues(text: str) -> list[SchemaIssue]:
    from google.adk.evaluation.eval_config import EvalConfig
    from google.adk.evaluation.eval_metrics import PrebuiltMetrics
    from pydantic import ValidationError

    try:
        config = EvalConfig.model_validate_json(text)
    except ValidationError as exc:
        return [SchemaIssue(tuple(e["loc"]), e["msg"]) for e in exc.errors()]
    known = {m.value for m in PrebuiltMetrics} | set(config.custom_metrics or {})
    issues = []
    for name in config.criteria:
        if name not in known:
            import difflib

            near = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            issues.append(
                SchemaIssue(
                    ("criteria", name),
                    f"unknown metric {name!r}: ADK would silently skip it{hint}",
                )
            )
    return issues


def issues_for(kind: str, text: str) -> list[SchemaIssue]:
    return parse_evalset(text)[1] if kind == "evalset" else config_issues(text)


def _worker() -> None:
    gc.disable()
    from google.adk.evaluation.eval_config import EvalConfig  # noqa: F401  before any input
    from google.adk.evaluation.eval_set import EvalSet  # noqa: F401

    payload = sys.stdin.read()
    if not payload:  # stopped unused: the validator needed no ADK check
        return
    items = json.loads(payload)
    out = [[[list(i.loc), i.message] for i in issues_for(kind, text)] for kind, text in items]
    sys.stdout.write(json.dumps(out))
    gc.freeze()  # nothing to collect as it exits (stdout is still flushed)


if __name__ == "__main__":
    _worker()
