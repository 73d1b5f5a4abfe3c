"""`gguf:PATH`: a GGUF file on disk as a model, checked before any server is started, and the
one fact of its header the server needs before it loads it (`training_context`).

A path that is missing, a folder, unreadable, or a file that does not start with GGUF's magic
bytes is bad configuration (ModelConfigError, exit 2), said in one line naming the setting.
Whether llama.cpp can load it, and whether its chat template can call tools, is for llama.cpp's
server to say once it tries (`embedded.gguf_model`).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

from opskit.textfiles import resolved

GGUF_PREFIX = "gguf:"
MAGIC = b"GGUF"
# GGUF value types: the size of each fixed-size one (https://github.com/ggml-org/ggml, gguf.md)
_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_LONGEST = 1 << 24  # a key or a value longer than this is a corrupt header, not a chat template
_INTEGERS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 10: "<Q", 11: "<q"}


def check_gguf(raw: str, source: str) -> Path:
    """The GGUF file `raw` names (`~` expanded), or ModelConfigError saying why it is none."""
    from ..agents.project import ModelConfigError

    where = f"{source}: {GGUF_PREFIX}{raw}"
    if not raw.strip():
        raise ModelConfigError(f"{where}: needs a file (gguf:PATH)")
    path = Path(raw.strip()).expanduser()
    try:
        if not os.path.lexists(path):
            raise ModelConfigError(f"{where}: no such file")
        os.stat(path)  # a dangling link or a symlink loop: cannot be read, below
        if not path.is_file():
            raise ModelConfigError(f"{where}: not a file")
        with path.open("rb") as f:
            head = f.read(len(MAGIC))
        found = resolved(path)
    except OSError as exc:  # a folder on the way that cannot be read, a name too long...
        raise ModelConfigError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    if head != MAGIC:
        raise ModelConfigError(f"{where}: not a GGUF file (it does not start with {MAGIC!r})")
    return found


def training_context(path: Path) -> int | None:
    """The context length the model was trained with (`<architecture>.context_length` in its
    header), or None when the header does not say or cannot be read."""
    try:
        with path.open("rb") as f:
            return _context_length(f)
    except (OSError, OverflowError, struct.error, UnicodeDecodeError, ValueError):
        return None  # a cut or corrupt header: llama.cpp will say what is wrong with it


def _read(f: BinaryIO, fmt: str) -> int:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the header ends early")
    return struct.unpack(fmt, data)[0]


def _string(f: BinaryIO) -> str:
    size = _read(f, "<Q")
    if size > _LONGEST:
        raise ValueError(f"a string of {size} bytes")
    return f.read(size).decode("utf-8")


def _skip(f: BinaryIO, kind: int) -> None:
    if kind == _STRING:
        f.seek(_read(f, "<Q"), 1)
    elif kind == _ARRAY:
        item, count = _read(f, "<I"), _read(f, "<Q")
        if item in _SIZES:
            f.seek(_SIZES[item] * count, 1)
        else:
            for _ in range(count):
                _skip(f, item)
    elif kind in _SIZES:
        f.seek(_SIZES[kind], 1)
    else:
        raise ValueError(f"unknown value type {kind}")


def _context_length(f: BinaryIO) -> int | None:
    if f.read(4) != MAGIC or _read(f, "<I") < 2:
        return None  # version 1 headers count with 32-bit integers: not read here
    _read(f, "<Q")  # tensors
    architecture, lengths = None, {}
    for _ in range(_read(f, "<Q")):
        key, kind = _string(f), _read(f, "<I")
        if key == "general.architecture" and kind == _STRING:
            architecture = _string(f)
        elif key.endswith(".context_length") and kind in _INTEGERS:
            lengths[key] = _read(f, _INTEGERS[kind])
        else:
            _skip(f, kind)
        if architecture and f"{architecture}.context_length" in lengths:
            return lengths[f"{architecture}.context_length"]
    return None
