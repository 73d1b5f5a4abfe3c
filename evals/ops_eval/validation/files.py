"""The files a validation reads: eval sets (found by `discovery`), and the context files
beside them -- the criteria (`test_config.json`), the deliberate negatives (`negatives.yaml`)
and the set-level contracts (`contracts.yaml`, read by `contracts.read_set_contracts`) -- each
read once, its own problems reported on the way.

A set kept outside evals/ (an ad-hoc file) usually has no context files beside it: the project's
own evals/ files stand in, with one warning that says so, rather than a problem that buries the
set's real ones. Only where the project's own file is missing too is the absence a problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from opskit.textfiles import YamlFileError, load_yaml, resolved

from ..core.criteria import strictness_problems
from ..core.evalset import MalformedInput, display_path, read_json
from ..core.negatives import Negatives
from .discovery import CONFIG_FILE
from .problems import Problem

NEGATIVES_FILE = "negatives.yaml"


@dataclass(frozen=True)
class Config:
    """One criteria file: where it is, its text (for ADK's own check) and its data."""

    path: Path
    text: str
    data: Any


@dataclass
class Fallbacks:
    """Context files taken from the project's evals/ for folders that lack them."""

    project: Path
    taken: dict[Path, list[str]] = field(default_factory=dict)  # folder -> file names
    shown: dict[Path, str] = field(default_factory=dict)  # folder -> a set file in it

    def path(self, folder: Path, name: str) -> Path:
        """`folder/name`, or the project's file when only the project has one."""
        own = folder / name
        if own.exists() or resolved(folder) == resolved(self.project):
            return own
        if not (self.project / name).is_file():
            return own
        self.taken.setdefault(folder, []).append(name)
        return self.project / name

    def took(self, folder: Path, used: Path) -> None:
        """Record that `folder` uses `used`, a file the project's evals/ holds in its stead (a
        context file looked up elsewhere, as `contracts.set_contracts_path` does)."""
        if resolved(used.parent) != resolved(folder):
            names = self.taken.setdefault(folder, [])
            if used.name not in names:
                names.append(used.name)

    def warnings(self) -> list[str]:
        """One line per folder that fell back, naming what stands in for what."""
        lines = []
        for folder, names in self.taken.items():
            used = " and ".join(display_path(self.project / n) for n in names)
            beside = self.shown.get(folder) or display_path(folder)
            adk = " (adk eval would use its default criteria)" if CONFIG_FILE in names else ""
            lines.append(
                f"{', '.join(names)}: not beside {beside}; checked against the project's "
                f"{used} instead{adk}"
            )
        return lines


def read_configs(
    folders: Iterable[Path], problems: list[Problem], fallbacks: Fallbacks | None = None
) -> dict[Path, Config]:
    """The criteria file of each folder (or its fallback), held to the strict gate; a file
    several folders share is read, and its problems reported, once."""
    configs: dict[Path, Config] = {}
    read: dict[Path, Config | None] = {}
    for folder in dict.fromkeys(folders):
        path = fallbacks.path(folder, CONFIG_FILE) if fallbacks else folder / CONFIG_FILE
        if path not in read:
            read[path] = _read_config(path, problems)
        if read[path] is not None:
            configs[folder] = read[path]  # type: ignore[assignment]
    return configs


def _read_config(path: Path, problems: list[Problem]) -> Config | None:
    shown = display_path(path)
    if not path.exists():
        problems.append(Problem(shown, "missing: adk eval would fall back to its default criteria"))
        return None
    try:
        text, data = read_json(path)
    except MalformedInput as exc:
        problems.append(Problem(exc.file, exc.message, malformed=True))
        return None
    for fld, message in strictness_problems(data):
        problems.append(Problem(shown, message, field=fld))
    return Config(path, text, data)


def read_negatives(path: Path, problems: list[Problem]) -> Negatives | None:
    shown = display_path(path)
    try:
        return Negatives.model_validate(load_yaml(path) or {})
    except YamlFileError as exc:
        message = f"{exc}: the deliberate negatives must be declared"
        problems.append(Problem(shown, message, malformed=True))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, err["loc"]))
        problems.append(Problem(shown, err["msg"], field=where, malformed=True))
    return None
