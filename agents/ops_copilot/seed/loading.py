"""The fixed seed: services, incidents, runbooks, logs and skills, validated once at load.

The seed is the single source of truth for what exists. It is immutable at run time; everything
that changes (statuses, notes, audit rows) lives in the per-session state store, which is created
from it. Loading fails with one message naming the file, the record and the field, so a broken
seed can never reach an agent or an eval. The records' shapes (and what a real moment is) live
in `seed_models`; every name is imported from here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ops_copilot.seed.models import (
    ENTITY_KINDS,
    EntityKind,
    Incident,
    IncidentStatus,
    Runbook,
    Service,
    ServiceLog,
    ServiceStatus,
    Severity,
    SkillInfo,
    TimelineEntry,
    World,
)
from ops_copilot.settings import current
from opskit.textfiles import TextFileError, YamlFileError, load_yaml, read_text, resolved

__all__ = [
    "ENTITY_KINDS", "EntityKind", "Incident", "IncidentStatus", "Runbook", "Seed", "SeedError",
    "Service", "ServiceLog", "ServiceStatus", "Severity", "SkillInfo", "TimelineEntry", "World",
    "closest", "default_seed", "load_seed", "normalise",
]  # fmt: skip


class SeedError(ValueError):
    """The seed on disk is unreadable or inconsistent; the message names file, record and field."""


@dataclass(frozen=True)
class Seed:
    """A loaded, cross-checked seed. Lookups take already-normalised ids (see `normalise`)."""

    root: Path
    world: World
    services: dict[str, Service]
    incidents: dict[str, Incident]
    runbooks: dict[str, Runbook]
    logs: dict[str, ServiceLog]
    skill_dirs: dict[str, Path]

    def ids(self, kind: EntityKind) -> frozenset[str]:
        """Every id of one entity kind; what validators and not-found messages compare against."""
        return frozenset(
            {
                "incident": self.incidents,
                "service": self.services,
                "runbook": self.runbooks,
                "skill": self.skill_dirs,
            }[kind]
        )

    @cached_property
    def skills(self) -> dict[str, SkillInfo]:
        """Skills parsed with ADK's own SKILL.md loader, on first use (it costs an import)."""
        from google.adk.skills import load_skill_from_dir

        loaded: dict[str, SkillInfo] = {}
        for name, folder in self.skill_dirs.items():
            try:
                skill = load_skill_from_dir(folder)
            except (ValueError, FileNotFoundError) as exc:
                raise SeedError(f"{_rel(folder / 'SKILL.md', self.root)}: {exc}") from None
            loaded[name] = SkillInfo(
                name=skill.name, description=skill.description, instructions=skill.instructions
            )
        return loaded

    @cached_property
    def digest(self) -> str:
        """sha256 over every seed file, so run records can say exactly which seed they used."""
        h = hashlib.sha256()
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            h.update(path.relative_to(self.root).as_posix().encode())
            h.update(b"\0")
            h.update(path.read_bytes())
        return h.hexdigest()


def normalise(kind: EntityKind, value: str) -> str:
    """Canonical form of an id as a model or a user may type it (case, surrounding/inner spaces)."""
    text = " ".join(str(value).split())
    if kind == "incident":
        return text.upper().replace(" ", "-")
    return text.lower().replace(" ", "-")


def _rel(path: Path, root: Path) -> str:
    try:
        return (Path(root.name) / path.relative_to(root)).as_posix()
    except ValueError:
        return path.as_posix()


def _field_path(loc: Iterable[object]) -> str:
    return ".".join(str(p) for p in loc) or "(record)"


def _read_yaml(path: Path, root: Path) -> object:
    try:
        return load_yaml(path)
    except YamlFileError as exc:
        raise SeedError(f"{_rel(path, root)}: {exc}") from None


def _read_text(path: Path, root: Path) -> str:
    try:
        return read_text(path)
    except TextFileError as exc:
        raise SeedError(f"{_rel(path, root)}: {exc}") from None


def _parse_records(path: Path, root: Path, key: str, model: type[BaseModel], id_field: str):
    data = _read_yaml(path, root)
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise SeedError(f"{_rel(path, root)}: expected a top-level '{key}' list")
    records = {}
    for index, raw in enumerate(data[key]):
        label = raw.get(id_field) if isinstance(raw, dict) else None
        where = f"{_rel(path, root)}: {key[:-1]} {label or f'#{index + 1}'}"
        try:
            record = model.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise SeedError(f"{where}, field {_field_path(err['loc'])}: {err['msg']}") from None
        rid = getattr(record, id_field)
        if rid in records:
            raise SeedError(f"{where}, field {id_field}: duplicate id {rid!r}")
        records[rid] = record
    return records


def _load_runbooks(folder: Path, root: Path) -> dict[str, Runbook]:
    runbooks = {}
    for path in sorted(folder.glob("*.md")):
        text = _read_text(path, root)
        first = text.splitlines()[0] if text else ""
        if not first.startswith("# "):
            raise SeedError(f"{_rel(path, root)}: field title: first line must be '# <title>'")
        try:
            runbooks[path.stem] = Runbook(slug=path.stem, title=first[2:].strip(), body=text)
        except ValidationError as exc:
            raise SeedError(f"{_rel(path, root)}: field slug: {exc.errors()[0]['msg']}") from None
    return runbooks


def _load_logs(folder: Path, root: Path) -> dict[str, ServiceLog]:
    return {
        path.stem: ServiceLog(
            service=path.stem,
            lines=tuple(ln for ln in _read_text(path, root).splitlines() if ln.strip()),
        )
        for path in sorted(folder.glob("*.log"))
    }


def _skill_dirs(folder: Path, root: Path) -> dict[str, Path]:
    """Skill folders; each SKILL.md must read as text now (its parse waits for `Seed.skills`)."""
    found = {p.name: p for p in sorted(folder.iterdir()) if (p / "SKILL.md").is_file()}
    for path in found.values():
        _read_text(path / "SKILL.md", root)
    return found


def _check_references(seed: Seed) -> None:
    root = seed.root
    services_file = _rel(root / "services.yaml", root)
    incidents_file = _rel(root / "incidents.yaml", root)
    for svc in seed.services.values():
        for dep in svc.depends_on:
            if dep not in seed.services or dep == svc.name:
                raise SeedError(
                    f"{services_file}: service {svc.name}, field depends_on: "
                    f"{dep!r} is not another service in the seed"
                )
    for inc in seed.incidents.values():
        where = f"{incidents_file}: incident {inc.id}"
        if inc.service not in seed.services:
            raise SeedError(f"{where}, field service: {inc.service!r} is not a service in the seed")
        if inc.runbook not in seed.runbooks:
            raise SeedError(f"{where}, field runbook: {inc.runbook!r} is not a runbook in the seed")
        for other in inc.related:
            if other not in seed.incidents or other == inc.id:
                raise SeedError(
                    f"{where}, field related: {other!r} is not another incident in the seed"
                )
    for log in seed.logs.values():
        if log.service not in seed.services:
            raise SeedError(
                f"{_rel(root / 'logs' / (log.service + '.log'), root)}: "
                f"log for {log.service!r}, which is not a service in the seed"
            )


def load_seed(root: Path | str | None = None) -> Seed:
    """Load and cross-check a seed folder; raises SeedError with file, record and field."""
    root = resolved(root) if root else current().seed_path
    if not root.is_dir():
        raise SeedError(f"{root}: seed folder does not exist")
    for sub in ("runbooks", "logs", "skills"):
        if not (root / sub).is_dir():
            raise SeedError(f"{_rel(root / sub, root)}: folder is missing")
    world_path = root / "world.yaml"
    try:
        world = World.model_validate(_read_yaml(world_path, root))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = f"{_rel(world_path, root)}: field {_field_path(err['loc'])}"
        raise SeedError(f"{where}: {err['msg']}") from None
    seed = Seed(
        root=root,
        world=world,
        services=_parse_records(root / "services.yaml", root, "services", Service, "name"),
        incidents=_parse_records(root / "incidents.yaml", root, "incidents", Incident, "id"),
        runbooks=_load_runbooks(root / "runbooks", root),
        logs=_load_logs(root / "logs", root),
        skill_dirs=_skill_dirs(root / "skills", root),
    )
    _check_references(seed)
    return seed


@lru_cache(maxsize=8)
def _cached(root: str) -> Seed:
    return load_seed(root)


def default_seed() -> Seed:
    """The seed the settings name (OPS_SEED_DIR, else the project's seed/), loaded once."""
    return _cached(str(current().seed_path))


def closest(value: str, candidates: Iterable[str]) -> str | None:
    """The nearest known id, for 'did you mean' hints; None when nothing is close."""
    import difflib

    found = difflib.get_close_matches(value, sorted(candidates), n=1, cutoff=0.6)
    return found[0] if found else None
