"""`ops-eval validate [PATH...] [--format text|github]`: every eval case agrees with ADK's
schema, the agent's tools, the seed and the project's policies (`validation.validator`).

Exit codes: 0 every set agrees; 1 problems; 2 malformed input or a seed that does not load;
3 ADK's own schema check could not run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base import EXIT_INFRA, OpsEvalError, add_agent_option


def add_parser(subparsers: Any) -> None:
    val = subparsers.add_parser(
        "validate", help="prove every eval case agrees with ADK, the tools, the seed and policy"
    )
    val.add_argument("paths", nargs="*", help="eval set files or folders (default: evals/)")
    val.add_argument("--format", choices=["text", "github"], default="text")
    add_agent_option(val)
    # A validation keeps what it reads until it ends and makes next to no cyclic garbage (a
    # 10,000-case one peaks at the same memory without collections), and leaves nothing open to
    # finalise at exit: the console script runs it uncollected (`cli.main`).
    val.set_defaults(handler=run, uncollected=True)


def run(args: argparse.Namespace) -> int:
    from ..validation import AdkCheckError, adk_worker

    # ADK's import is most of a cold validation: begun before anything else, if it is needed
    with adk_worker(args.paths):
        try:
            from ..validation import render, render_warnings, validate

            report = validate(args.paths)
        except AdkCheckError as exc:
            raise OpsEvalError(EXIT_INFRA, str(exc)) from None
    for line in render_warnings(report, args.format):
        print(line, file=sys.stderr)
    for line in render(report, args.format):
        print(line)
    if report.problems:
        kind = "malformed input" if report.malformed else "problems"
        print(
            f"{len(report.problems)} {kind} in {report.files} eval set(s), {report.cases} cases",
            file=sys.stderr,
        )
    else:
        print(f"ok: {report.files} eval set(s), {report.cases} cases agree with the seed")
    return report.exit_code
