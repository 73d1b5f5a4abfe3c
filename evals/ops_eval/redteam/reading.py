"""Reading one corpus file into YAML data, or one line saying why it cannot be read.

`--corpus` and `--benign` take any path a user types: a folder, a missing file, a binary, a file
in another encoding, YAML that does not parse (or parses into a date that does not exist). Each
becomes a `CorpusError` naming the file -- exit 2 at the CLI -- never a traceback. Anchors and
aliases are refused: a hand-written corpus has no use for them, and nested aliases can make a
few hundred bytes expand into more data than validation can get through.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1_000_000


class CorpusError(ValueError):
    """A corpus file that cannot be used; the message names file, entry and field, on one
    line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).splitlines()))


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases are not allowed", mark
            )
        return super().compose_node(parent, index)


def _bytes(path: Path) -> bytes:
    try:
        if path.is_dir():
            raise CorpusError(f"{path}: is a folder, not a corpus file")
        if not path.exists():
            raise CorpusError(f"{path}: file not found")
        if not path.is_file():
            raise CorpusError(f"{path}: is not a regular file")
        if path.stat().st_size > MAX_BYTES:
            raise CorpusError(
                f"{path}: larger than {MAX_BYTES:,} bytes; a corpus is written by hand"
            )
        return path.read_bytes()
    except (OSError, ValueError) as exc:
        if isinstance(exc, CorpusError):
            raise
        reason = getattr(exc, "strerror", None) or str(exc)
        raise CorpusError(f"{path}: cannot be read ({reason})") from None


def _text(path: Path, data: bytes) -> str:
    if b"\x00" in data:
        raise CorpusError(
            f"{path}: binary file (a NUL byte at offset {data.index(0)}), not a YAML corpus"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_yaml(path: Path) -> Any:
    """The YAML data of one corpus file."""
    text = _text(path, _bytes(path))
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1} " if mark else ""
        problem = getattr(exc, "problem", None)
        detail = f": {problem}" if problem else ""
        raise CorpusError(f"{path}: {where}not valid YAML{detail}") from None
    except RecursionError:
        raise CorpusError(f"{path}: not valid YAML: nested too deeply") from None
    except (ValueError, OverflowError, TypeError) as exc:  # e.g. a date that does not exist
        raise CorpusError(f"{path}: not valid YAML: {exc}") from None
