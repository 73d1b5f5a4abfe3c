"""Shared pieces of the calibration tests (imported by name: a second conftest.py would shadow
the suite's own): the command run as the CLI runs it, a scripted judge behind a real
OpenAI-compatible HTTP server (reached through LiteLLM), and labelled sets of any shape."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from fake_openai import fake_openai, text
from support import REPO

SHIPPED_SET = REPO / "evals" / "calibration" / "set.yaml"


def calibrate_cli(argv: list[str]) -> int:
    """`ops-eval calibrate ARGV` through the CLI's own entry point, in this process."""
    from ops_eval.cli import main

    return main(["calibrate", *argv])


def graded_item(request: dict[str, Any]) -> dict[str, Any]:
    """The document a judge request grades (question, answer, rubric, reference), read back
    from inside its untrusted-data fence."""
    user = next(m for m in request["messages"] if m["role"] == "user")["content"]
    body = user.removeprefix("<untrusted_data>\n").removesuffix("\n</untrusted_data>")
    return json.loads(body)


def verdict(passed: bool, why: str = "scripted") -> dict[str, Any]:
    """A valid grading reply, analysis first."""
    return text(json.dumps({"analysis": f"{why}.", "passed": passed, "rationale": f"{why}."}))


def isolate(tmp_path: Path, ops_env: Any) -> Path:
    """The report log of this test (OPS_CALIBRATION_REPORTS), its own verdict cache folder (a
    calibration never reads it; nothing else of the test's may share another's) and runs
    folder; the log's path."""
    path = tmp_path / "reports" / "reports.jsonl"
    ops_env.setenv("OPS_CALIBRATION_REPORTS", str(path))
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    return path


@contextlib.contextmanager
def serve_judge(
    ops_env: Any, reply: Callable[[dict[str, Any]], dict[str, Any]]
) -> Iterator[list[dict[str, Any]]]:
    """`reply(request)` served as the judge named `fake` at a loopback URL (OPS_JUDGE_MODEL,
    OPS_JUDGE_BASE_URL); yields the requests it received."""
    with fake_openai(reply) as (url, received):
        ops_env.setenv("OPS_JUDGE_MODEL", "fake")
        ops_env.setenv("OPS_JUDGE_BASE_URL", url)
        yield received


def write_set(folder: Path, items: list[dict[str, Any]], name: str = "set.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump({"version": 1, "items": items}, sort_keys=False))
    return path


def shipped_items() -> list[dict[str, Any]]:
    return yaml.safe_load(SHIPPED_SET.read_text())["items"]


def labels_by_answer() -> dict[str, bool]:
    """The shipped set's labels, by the answer text a request carries."""
    from ops_eval.judging.calibration import load_set

    return {item.answer: item.labelled_pass for item in load_set(SHIPPED_SET).items}
