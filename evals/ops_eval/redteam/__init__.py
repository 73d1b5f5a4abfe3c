"""The red team: an attack corpus planted into seed copies, a deterministic suite with a model
that obeys every payload (`suite`), the same attacks against a real model (`live`), and the
modes and state checks both share (`checks`)."""

from __future__ import annotations

from .checks import MODES, RawTextWorkspace
from .corpus import ATTACK_CLASSES, Attack, BenignLine, CorpusError, load_attacks, load_benign

__all__ = [
    "ATTACK_CLASSES",
    "MODES",
    "Attack",
    "BenignLine",
    "CorpusError",
    "RawTextWorkspace",
    "default_attacks",
    "default_benign",
    "load_attacks",
    "load_benign",
]


def default_attacks():
    from ..settings import current

    return current().redteam_dir / "attacks.yaml"


def default_benign():
    from ..settings import current

    return current().redteam_dir / "benign.yaml"
