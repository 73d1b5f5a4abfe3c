"""Public names that load their module on first use (PEP 562), so importing a package -- which
`ops-eval`'s parser does -- costs nothing until a name is used."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `exports` maps each public name to the submodule
    that defines it; a name is imported once, then kept in the package."""

    def __getattr__(name: str) -> Any:  # noqa: N807
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
