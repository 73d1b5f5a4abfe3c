"""Exit codes of every `ops-eval` command, the error that carries one to the CLI, and how a
command unwinds when it is stopped.

0 pass, 1 the thing measured failed (gate, attack), 2 bad input or configuration, 3
infrastructure (model unreachable, every trial errored, a check that could not run).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import TextIO

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INFRA = 0, 1, 2, 3
# An OSError of these is what the machine did (disk full, I/O error, read-only file system, no
# lock or memory), not what the user gave: exit 3; any other is bad input, exit 2.
MACHINE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS, errno.ENOLCK, errno.ENOMEM}
)


def os_exit_code(exc: OSError) -> int:
    return EXIT_INFRA if exc.errno in MACHINE_ERRNOS else EXIT_BAD_INPUT


def describe(exc: BaseException, limit: int = 300) -> str:
    """An exception as one line for a record or a log: its type and the first line of its text."""
    first_line = (str(exc).strip().splitlines() or [""])[0][:limit]
    return f"{type(exc).__name__}: {first_line}"


def console_for_people() -> None:
    """The console script's own streams: output piped into `head` ends quietly, as any Unix
    tool's does, and a terminal that cannot encode a name (`José` under LC_ALL=C) shows it
    escaped, never a traceback. Not for a caller in the same process (tests, other tools)."""
    import signal
    import sys

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def shown_name(path: object, most: int = 120) -> str:
    """A path or name for a one-line message, cut to `most` characters (a name the system
    refused as too long would otherwise fill the screen)."""
    text = str(path)
    return text if len(text) <= most else f"{text[: most - 20]}...{text[-17:]}"


def os_problem(exc: OSError) -> str:
    """An OSError as one line: the file (cut to fit) and what the system said."""
    where = f"{shown_name(exc.filename)}: " if exc.filename is not None else ""
    return f"{where}{exc.strerror or exc}"


def one_line(text: str) -> str:
    """Control characters (a newline in a key or an id) escaped: a message is one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def first_error(exc: Exception) -> str:
    """A pydantic ValidationError's first error as one line: `where: what`, or `what` alone
    when it is about the whole value. (Duck-typed: pydantic is not imported here.)"""
    first = exc.errors()[0]  # type: ignore[attr-defined]
    where = ".".join(map(str, first["loc"]))
    return one_line(f"{where}: {first['msg']}" if where else first["msg"])


def measured_failure(code: int, what: str) -> str | None:
    """The last line of a command whose exit 1 is a measurement (`run`, `merge`, `gate`): a
    task runner then says only "task failed", and a reader must not take a run below the gate
    for a broken harness. None for any other exit code."""
    if code != EXIT_FAILED:
        return None
    return f"exit 1: {what} -- measured, not broken (bad input exits 2, infrastructure 3)"


class OpsEvalError(Exception):
    """A precise, one-message failure with the exit code it means; never shown as a traceback."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def exit_code_of(command: Callable[[], int], err: TextIO | None = None) -> int:
    """The one error-to-exit wrapper of every command: what `command` returns, or, when it
    raises an OpsEvalError, that error as one line on `err` (stderr) and its exit code. A seed
    that does not load (`ops_copilot.seed.loading.SeedError`) is bad input, exit 2, the same way."""
    import sys

    try:
        return command()
    except Exception as exc:
        seed = sys.modules.get(
            "ops_copilot.seed.loading"
        )  # a SeedError is raised only once it loaded
        if isinstance(exc, OpsEvalError):
            code = exc.code
        elif seed is not None and isinstance(exc, seed.SeedError):
            code = EXIT_BAD_INPUT
        else:
            raise
        print(f"error: {exc}", file=err if err is not None else sys.stderr)
        return code


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def hold_signals() -> Callable[[], None]:
    """Ignore Ctrl-C and SIGTERM until the returned function is called (which restores them):
    once a run was interrupted, a second signal must not cut short the record of what finished.
    Outside the main thread, signals cannot be set: nothing is held."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    held = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for signum, handler in held.items():
            signal.signal(signum, handler)

    return restore


def unwind_on_signals() -> None:
    """Ctrl-C and SIGTERM (a CI job cancelled) both unwind as KeyboardInterrupt, through the
    model's context manager, so an embedded model server is always stopped."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
