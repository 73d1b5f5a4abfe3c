"""The files a validation reads: eval sets found under the given paths, and the context files
beside them -- the criteria (`test_config.json`) and the deliberate negatives
(`negatives.yaml`) -- each read once, its own problems reported on the way."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ops_copilot.seed import EntityKind, YamlFileError, load_yaml, normalise

from ..criteria import strictness_problems
from ..evalset import MalformedInput, display_path, read_json
from .problems import Problem

NEGATIVES_FILE = "negatives.yaml"
CONFIG_FILE = "test_config.json"


class Negatives(BaseModel):
    """evals/negatives.yaml: ids per entity kind that must not exist in the seed."""

    model_config = ConfigDict(extra="forbid")

    incident: list[str] = []
    service: list[str] = []
    runbook: list[str] = []
    skill: list[str] = []

    def of(self, kind: EntityKind) -> frozenset[str]:
        """The declared ids of one kind, normalised as the tools normalise ids."""
        cache = self.__dict__.setdefault("_of", {})
        if kind not in cache:
            cache[kind] = frozenset(normalise(kind, v) for v in getattr(self, kind))
        return cache[kind]


@dataclass(frozen=True)
class Config:
    """One criteria file: where it is, its text (for ADK's own check) and its data."""

    path: Path
    text: str
    data: Any


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


def read_configs(folders: Iterable[Path], problems: list[Problem]) -> dict[Path, Config]:
    """The criteria file of each folder, held to the strict gate."""
    configs = {}
    for folder in dict.fromkeys(folders):
        path = folder / CONFIG_FILE
        shown = display_path(path)
        if not path.exists():
            problems.append(
                Problem(shown, "missing: adk eval would fall back to its default criteria")
            )
            continue
        try:
            text, data = read_json(path)
        except MalformedInput as exc:
            problems.append(Problem(exc.file, exc.message, malformed=True))
            continue
        for fld, message in strictness_problems(data):
            problems.append(Problem(shown, message, field=fld))
        configs[folder] = Config(path, text, data)
    return configs


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
