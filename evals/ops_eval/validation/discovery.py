"""Which files a validation reads, found by name alone -- nothing is read or parsed here, and
nothing heavy is imported, so `ops-eval validate` can ask before it imports the validator: the
eval sets under the given paths (`discover`) and the files it will hand ADK's schema check
(`adk_candidates`), which tell it whether ADK's worker is needed at all (`adk.prestart`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

CONFIG_FILE = "test_config.json"


def discover(paths: Iterable[str | Path], default: Path) -> list[Path]:
    """Eval set files named or found under the given paths (default: the project's evals/)."""
    found: list[Path] = []
    for raw in paths or [default]:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(path.glob("*.evalset.json")))
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def adk_candidates(paths: Iterable[str | Path], project: Path) -> list[tuple[str, Path]]:
    """What validating `paths` will hand ADK's check, as (kind, file): each eval set, and the
    criteria file beside it or else the project's (`files.Fallbacks`). A guess, made before
    anything is read: a file it leaves out is still checked, only without the head start."""
    sets = discover(paths, project)
    beside = (folder / CONFIG_FILE for folder in dict.fromkeys(p.parent for p in sets))
    configs = dict.fromkeys(own if own.exists() else project / CONFIG_FILE for own in beside)
    return [("evalset", p) for p in sets] + [("config", p) for p in configs]
