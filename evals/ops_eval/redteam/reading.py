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

from opskit.textfiles import TextFileError, UniqueKeys, read_text

MAX_BYTES = 1_000_000


class CorpusError(ValueError):
    """A corpus file that cannot be used; the message names file, entry and field, on one
    line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).splitlines()))


class _NoAliasLoader(UniqueKeys, yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases are not allowed", mark
            )
        return super().compose_node(parent, index)


# textfiles' reasons this reader words for a corpus; every other reason is used as it is.
_WORDING = {
    "folder": "is a folder, not a corpus file",
    "too_large": f"larger than {MAX_BYTES:,} bytes; a corpus is written by hand",
}


def _text(path: Path) -> str:
    try:
        return read_text(path, MAX_BYTES, refuse_binary=True)
    except TextFileError as exc:
        raise CorpusError(f"{path}: {_WORDING.get(exc.kind, exc)}") from None


def read_yaml(path: Path) -> Any:
    """The YAML data of one corpus file."""
    text = _text(path)
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
