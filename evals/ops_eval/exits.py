"""Exit codes of every `ops-eval` command, the error that carries one to the CLI, and how a
command unwinds when it is stopped.

0 pass, 1 the thing measured failed (gate, attack), 2 bad input or configuration, 3
infrastructure (model unreachable, every trial errored, a check that could not run).
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INFRA = 0, 1, 2, 3


def describe(exc: BaseException, limit: int = 300) -> str:
    """An exception as one line for a record or a log: its type and the first line of its text."""
    first_line = (str(exc).strip().splitlines() or [""])[0][:limit]
    return f"{type(exc).__name__}: {first_line}"


def one_line(text: str) -> str:
    """Control characters (a newline in a key or an id) escaped: a message is one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def first_error(exc: Exception) -> str:
    """A pydantic ValidationError's first error as one line: `where: what`, or `what` alone
    when it is about the whole value. (Duck-typed: pydantic is not imported here.)"""
    first = exc.errors()[0]  # type: ignore[attr-defined]
    where = ".".join(map(str, first["loc"]))
    return one_line(f"{where}: {first['msg']}" if where else first["msg"])


class OpsEvalError(Exception):
    """A precise, one-message failure with the exit code it means; never shown as a traceback."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def unwind_on_signals() -> None:
    """Ctrl-C and SIGTERM (a CI job cancelled) both unwind as KeyboardInterrupt, through the
    model's context manager, so an embedded model server is always stopped."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
