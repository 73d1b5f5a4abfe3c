"""Deterministic mutants of the agent, declared once each (see `base`: what a mutant is, and the
registry), one module per kind: the tools' (`tools`), the guards' and the write policy's
(`guards`).

May import: `base` (the harness's), `core`. The mutants patch the agent's own modules.
"""

from .base import Mutant, registered

__all__ = ["Mutant", "registered"]
