"""Checks of CLI inputs, made before anything runs: each bad input is one OpsEvalError (exit 2)
that names the option and what is wrong with the value, never a traceback or a silent default.
"""

from __future__ import annotations

import math
from pathlib import Path

from .exits import EXIT_BAD_INPUT, OpsEvalError

MAX_PORT = 65535


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


def positive_seconds(option: str, value: float) -> float:
    """A finite number of seconds above zero (0 would time every trial out at once)."""
    if not (math.isfinite(value) and value > 0):
        raise bad_input(f"{option}: {value:g} is not a positive number of seconds")
    return value


def tcp_port(option: str, value: int) -> int:
    if not 1 <= value <= MAX_PORT:
        raise bad_input(f"{option}: {value} is not a TCP port (1 to {MAX_PORT})")
    return value


def output_file(option: str, path: Path) -> Path:
    """A path a command will write a file to: refused up front when it is a folder."""
    if path.is_dir():
        raise bad_input(f"{option} {path}: is a folder; give a file path")
    return path
