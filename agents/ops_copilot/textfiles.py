"""Reading the project's text and YAML files so that a bad one is one line, never a traceback.

The seed, eval sets, red-team corpora, run records and recordings are all read through here: a
missing file, a folder, an unreadable or non-UTF-8 file, or YAML that does not parse is an error
whose message says why (the first bad byte, the line and column), for the caller to prefix with
the file name its users know.
"""

from __future__ import annotations

from pathlib import Path

import yaml


class TextFileError(ValueError):
    """A text file that cannot be read as UTF-8 text; the message says why, not which file."""


class YamlFileError(TextFileError):
    """A YAML file that is unreadable or does not parse; the message says where, not which file."""


def read_text(path: Path) -> str:
    """A UTF-8 text file's content, or TextFileError with one reason: not found, a folder,
    unreadable, or not UTF-8 (with the first bad byte, so a binary file is easy to spot)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TextFileError("file not found") from None
    except IsADirectoryError:
        raise TextFileError("is a folder, not a file") from None
    except OSError as exc:
        raise TextFileError(f"cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start : exc.start + 1].hex()
        raise TextFileError(f"not UTF-8 text (byte 0x{byte} at offset {exc.start})") from None


# libyaml's safe loader parses about six times faster; the pure-Python one places errors better.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Path) -> object:
    """Parse one YAML file; YamlFileError says why it cannot be read, or 'line L, column C not
    valid YAML', for the caller to prefix with the file name its users know."""
    try:
        text = read_text(path)
    except TextFileError as exc:
        raise YamlFileError(str(exc)) from None
    try:
        return _parse(text, _FAST_LOADER)
    except yaml.YAMLError:
        pass
    try:
        return _parse(text, yaml.SafeLoader)  # parse again, only to say where the error is
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1} " if mark else ""
        raise YamlFileError(f"{where}not valid YAML") from None


def _parse(text: str, loader: type) -> object:
    """YAML that parses into something Python cannot hold (a date that does not exist, nesting
    deeper than the stack) is invalid YAML too, not a crash."""
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader)
    except RecursionError:
        raise YamlFileError("not valid YAML: nested too deeply") from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise YamlFileError(f"not valid YAML: {exc}") from None
