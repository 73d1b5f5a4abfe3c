"""`gguf:PATH`: a GGUF file on disk as a model, checked before any server is started.

A path that is missing, a folder, unreadable, or a file that does not start with GGUF's magic
bytes is bad configuration (ModelConfigError, exit 2), said in one line naming the setting.
Whether its chat template can call tools is for llama.cpp's server to say once it has loaded
it (`embedded.gguf_model`).
"""

from __future__ import annotations

from pathlib import Path

GGUF_PREFIX = "gguf:"
MAGIC = b"GGUF"


def check_gguf(raw: str, source: str) -> Path:
    """The GGUF file `raw` names (`~` expanded), or ModelConfigError saying why it is none."""
    from ops_copilot.model import ModelConfigError

    where = f"{source}: {GGUF_PREFIX}{raw}"
    if not raw.strip():
        raise ModelConfigError(f"{where}: needs a file (gguf:PATH)")
    path = Path(raw.strip()).expanduser()
    if not path.exists():
        raise ModelConfigError(f"{where}: no such file")
    if not path.is_file():
        raise ModelConfigError(f"{where}: not a file")
    try:
        with path.open("rb") as f:
            head = f.read(len(MAGIC))
    except OSError as exc:
        raise ModelConfigError(f"{where}: cannot be read ({exc.strerror})") from None
    if head != MAGIC:
        raise ModelConfigError(f"{where}: not a GGUF file (it does not start with {MAGIC!r})")
    return path.resolve()
