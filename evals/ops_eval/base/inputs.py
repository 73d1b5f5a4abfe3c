"""Checks of CLI inputs, made before anything runs: each bad input is one OpsEvalError (exit 2)
that names the option and what is wrong with the value, never a traceback or a silent default.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from .exits import EXIT_BAD_INPUT, OpsEvalError, shown_name

MAX_PORT = 65535
# The shortest trial timeout. A trial opens a session and a store and makes at least one model
# request; even the scripted oracle takes about half a second (measured), a real model seconds.
# Anything shorter (1e-300, 0.01) only times every trial out, which then reads as a broken model
# (exit 3) instead of as the bad option it is.
MIN_TIMEOUT_S = 1.0
# Upper bounds of the count options: far above any run this project makes (60 cases x 100
# repeats is hours on a local model), low enough that a typo cannot make a run plan billions of
# trials in memory (`--repeats 100000000000` died of MemoryError) or open thousands of sessions.
MAX_REPEATS = 1_000
MAX_CONCURRENCY = 64
MAX_SHARDS = 1_000
MAX_TIMEOUT_S = 86_400.0  # a day per trial


def bad_input(message: str) -> OpsEvalError:
    return OpsEvalError(EXIT_BAD_INPUT, message)


def id_list(option: str, raw: str | None, what: str = "eval id") -> list[str] | None:
    """A comma-separated list of ids; None when the option was not given. Given but empty
    (`--cases ,`, `--cases ''`) is an error: silently running everything is not what was asked."""
    if raw is None:
        return None
    ids = [i.strip() for i in raw.split(",") if i.strip()]
    if not ids:
        raise bad_input(f"{option}: no {what} given; name at least one, comma-separated")
    return list(dict.fromkeys(ids))


def trial_timeout(option: str, value: float) -> float:
    """A trial timeout: a finite number of seconds, from MIN_TIMEOUT_S to MAX_TIMEOUT_S."""
    if not (math.isfinite(value) and value >= MIN_TIMEOUT_S):
        raise bad_input(
            f"{option}: {value:g} is not a number of seconds from {MIN_TIMEOUT_S:g} up "
            "(a shorter one only times trials out)"
        )
    if value > MAX_TIMEOUT_S:
        raise bad_input(f"{option}: {value:g} seconds; at most {MAX_TIMEOUT_S:,.0f} (a day)")
    return value


def count(option: str, value: int, most: int) -> int:
    """A count option: a whole number from 1 to `most`."""
    if not 1 <= value <= most:
        raise bad_input(f"{option}: {value} is not a whole number from 1 to {most:,}")
    return value


def tcp_port(option: str, value: int) -> int:
    if not 1 <= value <= MAX_PORT:
        raise bad_input(f"{option}: {value} is not a TCP port (1 to {MAX_PORT})")
    return value


def output_file(option: str, path: Path) -> Path:
    """A path a command will write a file to: refused up front when it is a folder, anything
    else that is not a regular file (a named pipe would block the write until a reader came; a
    device would be replaced by the atomic rename), or a name the system refuses (too long)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise bad_input(f"{option} {shown_name(path)}: cannot write ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise bad_input(f"{option} {path}: is a folder; give a file path")
    if not stat.S_ISREG(info.st_mode):
        raise bad_input(f"{option} {path}: is not a regular file; give a file path")
    return path


def write_output(path: Path, text: str) -> None:
    """`text` into a file a command was told to write; one line (exit 2) when it cannot be."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise bad_input(f"{path}: cannot write ({exc.strerror})") from None


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line like every other error (exit 2); the usage is
    one `--help` away. Subcommand parsers are made of the same class."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"error: {self.prog}: {message} (see `{self.prog} --help`)\n")


_SPEC = re.compile(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*")
_GROUP = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")


def parse_shard(option: str, raw: str) -> tuple[int, int]:
    """`I/N` with 1 <= I <= N <= MAX_SHARDS; OpsEvalError (exit 2) saying why otherwise."""
    found = _SPEC.fullmatch(raw)
    if not found:
        raise bad_input(f"{option}: {raw!r} is not I/N (the I-th of N shards, e.g. 1/3)")
    index, count = int(found[1]), int(found[2])
    if count < 1 or not 1 <= index <= count:
        raise bad_input(f"{option}: {raw!r} is not a shard: I/N needs 1 <= I <= N and N >= 1")
    if count > MAX_SHARDS:
        raise bad_input(f"{option}: {raw!r}: at most {MAX_SHARDS:,} shards")
    return index, count


def parse_run_group(raw: str | None, shard: str | None) -> str | None:
    """`--run-group NAME`: letters, digits and `._:-`, up to 100; only with `--shard`."""
    if raw is None:
        return None
    if shard is None:
        raise bad_input("--run-group: names the shards of one run; give it with --shard I/N")
    if not _GROUP.fullmatch(raw):
        raise bad_input(
            f"--run-group: {raw!r} is not a group name (letters, digits and ._:- , at most 100)"
        )
    return raw


def check_writable(path: Path, option: str = "--output") -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise OpsEvalError(
            EXIT_BAD_INPUT, f"{option} {path}: cannot write ({exc.strerror})"
        ) from None


def number_option(*, fraction: bool = False) -> Callable[[str], float]:
    """An argparse `type` for a float option: a finite number, or with `fraction` one from 0 to
    1; anything else is argparse's one-line usage error naming the option."""

    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{raw!r} is not a number") from None
        if fraction and not (math.isfinite(value) and 0 <= value <= 1):
            raise argparse.ArgumentTypeError(f"{raw} is not a fraction from 0 to 1")
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{raw} is not a finite number")
        return value

    return parse


AGENT_HELP = (
    "the agent of every case that names none: a Python package whose `port` module declares "
    "PORT (docs/your-agent.md); default ops_copilot. A case naming another agent is refused"
)


def add_agent_option(parser: argparse.ArgumentParser) -> None:
    """`--agent NAME`, read by `cli.main` around the whole command (`agents.chosen`)."""
    parser.add_argument("--agent", metavar="PACKAGE", help=AGENT_HELP)
