"""Reading the project's text and YAML files so that a bad one is one line, never a traceback
and never a hang.

The seed, eval sets, run records, recordings and red-team corpora are read through here: a missing
file, a folder, something that is not a regular file (a FIFO would block the open forever, a link to
/dev/zero would be read forever), a file over the size cap, an unreadable or non-UTF-8 file, or YAML
that does not parse is an error whose message says why (the first bad byte, the line and column),
for the caller to prefix with the file name its users know. Each error also carries a `kind`, for a
caller that words its own messages.

`MAX_BYTES` (20 MB) is the default cap: every file the project reads is written by hand or by
`ops-eval` and is far smaller, so anything bigger is a wrong path, not data. A caller may pass a
tighter `max_bytes`, and `refuse_binary=True` to refuse a NUL byte, which no text format here
holds (a binary file can still be valid UTF-8).

A YAML mapping that names one key twice is refused ('line L, column C: duplicate key ...'):
PyYAML would let the later value win without a word, so a line appended to a policy file could
quietly override the one above it. `UniqueKeys` does this for any PyYAML safe loader.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

import yaml

MAX_BYTES = 20_000_000

ErrorKind = Literal[
    "missing", "folder", "not_regular", "too_large", "unreadable", "binary", "not_utf8", "yaml"
]


class TextFileError(ValueError):
    """A text file that cannot be read as UTF-8 text; the message says why, not which file, and
    `kind` says which of the reasons it is."""

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


class YamlFileError(TextFileError):
    """A YAML file that is unreadable or does not parse; the message says where, not which file."""

    def __init__(self, message: str, kind: ErrorKind = "yaml") -> None:
        super().__init__(message, kind)


def resolved(path: Path | str) -> Path:
    """`path` made absolute, its symbolic links followed as far as they go. A symlink loop is
    not an error here (Python 3.11's `Path.resolve` raises RuntimeError for one): the reader
    that opens the path says it cannot be read, as for any other unreadable file."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))


def shown(path: Path) -> str:
    """`path` relative to the working folder when it is under it (a message or a report read
    on another machine should not name this one's folders), else as given."""
    try:
        return resolved(path).relative_to(resolved(Path.cwd())).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _check(info: os.stat_result, max_bytes: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise TextFileError("is a folder, not a file", "folder")
    if not stat.S_ISREG(info.st_mode):
        raise TextFileError("is not a regular file", "not_regular")
    if info.st_size > max_bytes:
        raise TextFileError(f"larger than {max_bytes:,} bytes", "too_large")


def read_bytes(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """A regular file's bytes, at most `max_bytes`, or TextFileError: not found, a folder, not a
    regular file, too large, unreadable. The path is checked before it is opened (a FIFO's open
    blocks), and the open file again (the path may have been swapped in between); the open never
    blocks, and the read stops past the cap even if the file grows."""
    try:
        _check(os.stat(path), max_bytes)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            _check(os.fstat(file.fileno()), max_bytes)
            data = file.read(max_bytes + 1)
    except FileNotFoundError:
        raise TextFileError("file not found", "missing") from None
    except IsADirectoryError:
        raise TextFileError("is a folder, not a file", "folder") from None
    except OSError as exc:
        raise TextFileError(f"cannot read ({exc.strerror or exc})", "unreadable") from None
    if len(data) > max_bytes:
        raise TextFileError(f"larger than {max_bytes:,} bytes", "too_large")
    return data


def read_text(path: Path, max_bytes: int = MAX_BYTES, *, refuse_binary: bool = False) -> str:
    """A UTF-8 text file's content, or TextFileError with one reason: those of `read_bytes`, a
    NUL byte when `refuse_binary`, or not UTF-8 (with the first bad byte, so a binary file is
    easy to spot)."""
    data = read_bytes(path, max_bytes)
    if refuse_binary and b"\x00" in data:
        raise TextFileError(f"binary file (a NUL byte at offset {data.index(0)})", "binary")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start : exc.start + 1].hex()
        raise TextFileError(
            f"not UTF-8 text (byte 0x{byte} at offset {exc.start})", "not_utf8"
        ) from None


class UniqueKeys:
    """Mixin for a PyYAML safe loader (`class L(UniqueKeys, yaml.SafeLoader)`): a mapping with
    a duplicate key is a YamlFileError 'line L, column C: duplicate key K', at the later one.

    Keys are compared as constructed, so `1` and `0x1`, or `yes` and `true`, are one key, as
    they would be in the dict. A merge (`<<: *base`) may still override the keys it brings in:
    only a mapping's own keys are compared with each other. Only the construction is
    overridden, so libyaml still parses for the fast loader; and a mapping is only searched for
    its duplicate when it came out with fewer keys than it has pairs (or has a merge), so the
    check costs a length comparison per mapping."""

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        # Flattening deletes the merge keys from the node's list in place and then puts the
        # merged pairs in front of it in a new list: the old list keeps the mapping's own pairs.
        # A mapping merged into another is flattened first there (perhaps never built on its
        # own), so its own pairs are those seen the first time, and are checked then.
        own: dict[yaml.Node, list] = self.__dict__.setdefault("_own_pairs", {})
        depth = self.__dict__.get("_merge_depth", 0)
        pairs = node.value
        self.__dict__["_merge_depth"] = depth + 1
        try:
            super().flatten_mapping(node)  # type: ignore[misc]
        finally:
            self.__dict__["_merge_depth"] = depth
        if node not in own:
            own[node] = pairs
            if depth:  # a merge source: its pairs go into the mapping that merges it
                self._refuse_duplicates(pairs)

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict:
        mapping = super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        pairs = self.__dict__.get("_own_pairs", {}).get(node, node.value)
        if pairs is not node.value or len(mapping) < len(pairs):  # merged, or a key repeated
            self._refuse_duplicates(pairs)
        return mapping

    def _refuse_duplicates(self, pairs: list) -> None:
        seen: set[object] = set()
        for key_node, _ in pairs:
            if not isinstance(key_node, yaml.ScalarNode):
                continue  # a collection as a key is unhashable: the constructor refuses it
            key = self.construct_object(key_node)  # type: ignore[attr-defined]
            if key in seen:
                mark = key_node.start_mark
                shown = repr(key)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                raise YamlFileError(
                    f"line {mark.line + 1}, column {mark.column + 1}: duplicate key {shown}"
                )
            seen.add(key)


class UniqueKeySafeLoader(UniqueKeys, yaml.SafeLoader):
    """The pure-Python safe loader, duplicate keys refused; it places syntax errors best."""


# libyaml's safe loader parses about six times faster; the pure-Python one places errors better.
_LIBYAML_OR_PYTHON: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyFastLoader(UniqueKeys, _LIBYAML_OR_PYTHON):
    """libyaml's safe loader when PyYAML has it (else the pure-Python one), duplicate keys
    refused."""


_FAST_LOADER = UniqueKeyFastLoader


def load_yaml(path: Path) -> object:
    """Parse one YAML file; YamlFileError says why it cannot be read, 'line L, column C not
    valid YAML', or 'line L, column C: duplicate key K', for the caller to prefix with the file
    name its users know."""
    try:
        text = read_text(path)
    except TextFileError as exc:
        raise YamlFileError(str(exc), exc.kind) from None
    try:
        return _parse(text, _FAST_LOADER)
    except yaml.YAMLError:
        pass
    try:
        return _parse(text, UniqueKeySafeLoader)  # parse again, only to say where the error is
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1} " if mark else ""
        raise YamlFileError(f"{where}not valid YAML") from None


def _parse(text: str, loader: type) -> object:
    """YAML that parses into something Python cannot hold (a date that does not exist, nesting
    deeper than the stack) is invalid YAML too, not a crash."""
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader)
    except YamlFileError:  # a duplicate key: said already, with where
        raise
    except RecursionError:
        raise YamlFileError("not valid YAML: nested too deeply") from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise YamlFileError(f"not valid YAML: {exc}") from None
