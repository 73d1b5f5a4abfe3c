"""`ops-eval`: the single CLI for the evaluation commands.

This module is the parser, and the one place an error becomes an exit code.
Each command is a module of `commands` with `add_parser` (argparse only: the parser is built
on every start, so nothing heavy is imported until a command runs) that sets its `handler`; a
command line that starts with a command's name builds that command's parser alone.
Exit codes: 0 pass, 1 the thing measured failed, 2 bad input or configuration, 3 infrastructure.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable, Sequence

from .base.exits import (
    EXIT_BAD_INPUT,
    EXIT_INFRA,
    OpsEvalError,
    console_for_people,
    exit_code_of,
    first_error,
    os_exit_code,
    os_problem,
)
from .base.inputs import OneLineParser

# `ops-eval --help` lists them in this order; each is `commands/<name>.py`.
COMMANDS = (
    "seed",
    "validate",
    "cases",
    "redteam",
    "run",
    "chat",
    "web",
    "report",
    "audit",
    "gate",
    "gate_override",
    "baseline",
    "history",
    "calibrate",
    "readers",
    "ab",
    "merge",
    "distill",
    "audit_run",
    "compare_hashes",
    "mutate",
    "mlflow",
    "mlflow_ui",
)


def _error(message: object, code: int) -> int:
    """One line on stderr, and the exit code that goes with it."""
    print(f"error: {message}", file=sys.stderr)
    return code


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; or, for `command` (what a command line starts with) when it names one,
    a parser holding that command alone -- it parses that command's line as the whole parser
    does, and the other command modules are not imported (a start-up cost of every run)."""
    parser = OneLineParser(prog="ops-eval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    named = [name for name in COMMANDS if name.replace("_", "-") == command]
    for name in named or COMMANDS:
        importlib.import_module(f"{__package__}.commands.{name}").add_parser(sub)
    return parser


def _as_agent(
    agent: str | None, handler: Callable[[argparse.Namespace], int], args: argparse.Namespace
) -> int:
    """The command run with `--agent`'s choice (`agents.chosen`), when it was given one: an
    agent that declares no port is one line and exit 2, before anything is read."""
    if agent is None:
        return handler(args)
    from .agents import UnknownAgent, chosen, port

    try:
        port(agent)
    except UnknownAgent as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, f"--agent: {exc}") from None
    with chosen(agent):
        return handler(args)


def main(argv: Sequence[str] | None = None) -> int:
    from .commands.gate_override import rewrite_argv

    if argv is None:  # the console script, not a caller in this process (tests, other tools)
        console_for_people()
    line = rewrite_argv(list(sys.argv[1:] if argv is None else argv))
    args = build_parser(line[0] if line else None).parse_args(line)
    # A command that keeps what it loads until the process ends (its parser says `uncollected`)
    # runs without the cyclic garbage collector, and skips its collections at exit, when it is
    # the whole process: they only cost time (a third of a 10,000-case validation).
    uncollected = argv is None and getattr(args, "uncollected", False)
    if uncollected:
        gc.disable()
    from .base.settings import reload

    try:
        reload()  # every command starts from the environment as it is now
    except ValueError as exc:  # pydantic's ValidationError: a variable that is not UTF-8 text
        return _error(
            f"environment: {first_error(exc) if hasattr(exc, 'errors') else exc}", EXIT_BAD_INPUT
        )
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return exit_code_of(lambda: _as_agent(getattr(args, "agent", None), handler, args))
    except KeyboardInterrupt:
        return _error("interrupted before the end; nothing was recorded as a result", EXIT_INFRA)
    except OSError as exc:  # a path no reader checked: one line, never a traceback
        return _error(os_problem(exc), os_exit_code(exc))
    finally:
        if uncollected:
            gc.freeze()  # atexit handlers and flushes still run


if __name__ == "__main__":
    raise SystemExit(main())
