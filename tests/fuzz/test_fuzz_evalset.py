"""Fuzz the validator with mutations of the real eval sets: whatever the file holds, validation
ends in exit 0, 1 or 2 with its problems rendered -- never an exception.

A mutation walks to a random node of a real set (every node equally likely, so deep fields such
as a part's text or a call's argument are hit as often as they occur) and replaces it with a
random JSON value, deletes it, or changes its type; one to three of them per example. Now and
then the serialised file is also cut short or given bytes that are not UTF-8. The file is
validated in a copy of evals/, so its context files are found, through `validation.validate`
(what `ops-eval validate` calls); ADK's schema check runs in this process (ADK is imported
first), as it does for a long-lived validator.

The strategies are shared with the run-record fuzz (`test_fuzz_records.py`).
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from support import REPO

SETS = (
    "ops.evalset.json",
    "holdout.evalset.json",
    "triage-report.evalset.json",
    "scenarios.evalset.json",
)
ORIGINALS = {name: json.loads((REPO / "evals" / name).read_text()) for name in SETS}

# Keys the readers look for, so that random objects sometimes look like what they replace.
KEYS = st.sampled_from(
    ["eval_id", "evalId", "conversation", "user_content", "final_response", "parts", "text",
     "intermediate_data", "tool_uses", "name", "args", "meta", "category", "split", "agent",
     "approval", "decision", "rationale", "session_input", "state", "schema_version", "trials",
     "turns", "calls", "status", "scores", "outcome", "line\nbreak", "tab\there",
     "conversation_scenario", "starting_prompt", "conversation_plan", "user_persona", "scenario",
     "kind", "user", "goal", "reference", "writes", "claims", "say", "asks", "said", "approve",
     "deny", "stop", "once", "limits", "draft"]
) | st.text(max_size=8)  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
Path_ = tuple[Any, ...]


def node_paths(node: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every path in a JSON document, the root's () first."""
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += node_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += node_paths(value, (*prefix, index))
    return found


def _at(doc: Any, path: Path_) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _retyped(value: Any) -> list[Any]:
    """The same value as other JSON types (a number as text, an object as a list, ...)."""
    options = [json.dumps(value, default=str), [value], {"value": value}, None, 0, 1.5, True, ""]
    return [o for o in options if type(o) is not type(value)]


@st.composite
def mutated(draw: st.DrawFn, doc: Any, rounds: tuple[int, int] = (1, 3)) -> Any:
    """`doc` after one to three random mutations."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(*rounds))):
        path = draw(st.sampled_from(node_paths(doc)))
        op = draw(st.sampled_from(["replace", "delete", "retype"]))
        if op == "replace":
            new = draw(JSON_VALUES)
        elif op == "retype":
            new = draw(st.sampled_from(_retyped(_at(doc, path))))
        elif path:  # delete a key or an item
            parent = _at(doc, path[:-1])
            del parent[path[-1]]
            event(f"mutation: {op}")
            continue
        else:
            new = {}
        event(f"mutation: {op}")
        if path:
            _at(doc, path[:-1])[path[-1]] = new
        else:
            doc = new
    return doc


@st.composite
def serialised(draw: st.DrawFn, docs: st.SearchStrategy[Any]) -> bytes:
    """A mutated document as file bytes; now and then cut short, or with bytes not UTF-8."""
    data = json.dumps(draw(docs), ensure_ascii=draw(st.booleans()), indent=1).encode()
    damage = draw(st.sampled_from(["none"] * 8 + ["cut", "binary"]))
    event(f"file: {damage}")
    if damage == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if damage == "binary":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + b"\xff" + data[at:]
    return data


def set_files() -> st.SearchStrategy[tuple[str, bytes]]:
    return st.sampled_from(SETS).flatmap(
        lambda name: st.tuples(st.just(name), serialised(mutated(ORIGINALS[name])))
    )


@pytest.fixture(scope="module")
def evals_copy(tmp_path_factory) -> Path:
    """evals/ copied once (sets, criteria, negatives); each example overwrites one set."""
    import google.adk.evaluation.eval_set  # noqa: F401  (ADK's check in process: no worker each time)

    target = tmp_path_factory.mktemp("fuzz") / "evals"
    target.mkdir()
    for path in (REPO / "evals").iterdir():
        if path.is_file():
            shutil.copy(path, target / path.name)
    return target


def _validate_file(evals_copy: Path) -> Callable[[str, bytes], int]:
    from ops_eval.validation.validator import render, render_warnings, validate

    def run(name: str, content: bytes) -> int:
        path = evals_copy / name
        path.write_bytes(content)
        try:
            report = validate([path])
            lines = render(report) + render(report, "github") + render_warnings(report)
        finally:
            path.write_text(json.dumps(ORIGINALS[name]))
        assert report.exit_code in (0, 1, 2)
        assert all("\n" not in line for line in lines)
        return report.exit_code

    return run


@given(set_file=set_files())
def test_any_mutation_of_a_real_set_validates_without_raising(evals_copy, set_file):
    code = _validate_file(evals_copy)(*set_file)
    event(f"exit {code}")
