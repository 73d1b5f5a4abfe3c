"""The red team: an attack corpus planted into seed copies (`corpus`, `reading`, `planting`), a
deterministic suite with scripted attackers (`suite`, judged by `checks`, `answers`, `reach`,
found in `results`), reported as a short summary led by its verdict (`summary`), the tables in
plain words with each designed ablation labelled (`tables`, behind `--verbose`) and one HTML
file holding them all (`report`, from the jinja2 templates beside it); its unit level -- every
payload part through spotlighting comes back fenced once (`unit`) -- and the same attacks
against a real model (`live`); the corpus the command chose, run either way (`corpus_run`). The
suite under each guard mutant is mutation testing's (`mutation.redteam`).

May import: every layer below `commands`; the command is `commands.redteam`.
"""

from __future__ import annotations

from ..base.exports import lazy_getattr
from .checks import ATTACKERS, MODES, RawTextWorkspace
from .corpus import ATTACK_CLASSES, Attack, BenignLine, load_attacks, load_benign
from .reading import CorpusError

__all__ = [
    "ATTACKERS",
    "ATTACK_CLASSES",
    "MODES",
    "Attack",
    "BenignLine",
    "CorpusError",
    "RawTextWorkspace",
    "default_attacks",
    "default_benign",
    "default_held_out",
    "load_attacks",
    "load_benign",
]


def default_attacks():
    """The corpus the neutraliser is tuned on."""
    from ..base.settings import current

    return current().redteam_dir / "attacks.yaml"


def default_held_out():
    """The held-out split: the same families in wording nobody tuned on."""
    from ..base.settings import current

    return current().redteam_dir / "held-out.yaml"


def default_benign():
    from ..base.settings import current

    return current().redteam_dir / "benign.yaml"


# Public names loaded on first use (what they import would load with the package).
_EXPORTS = {
    "chosen_corpus": "corpus_run",
    "run_deterministic": "corpus_run",
    "run_live": "corpus_run",
}
__all__ += sorted(_EXPORTS)
__getattr__ = lazy_getattr(__name__, _EXPORTS)
