"""The seed's record models: what one service, incident, runbook, log, skill or world clock must
hold to be loaded. `seed` reads the files and cross-checks the records; the shapes live here so
that module stays about loading. Import them from `ops_copilot.seed.loading`, which re-exports them.

Times are checked as real moments, not only as patterns: a clock of "2026-13-45T99:99:99Z"
matched the pattern and crashed the store's first write, and "9999-12-31T23:59:59Z" overflowed
its first tick. `CLOCK_FORMAT` is the one format of the scenario clock, for the store to tick.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

EntityKind = Literal["incident", "service", "runbook", "skill"]
ENTITY_KINDS: tuple[EntityKind, ...] = ("incident", "service", "runbook", "skill")

ServiceStatus = Literal["operational", "degraded", "down"]
IncidentStatus = Literal["open", "investigating", "resolved"]
Severity = Literal["SEV1", "SEV2", "SEV3"]

SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"

CLOCK_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# Years a seed's moments may fall in: late enough to be a plausible scenario, early enough that
# the store's one-second ticks can never run past year 9999 (where datetime overflows).
CLOCK_YEARS = (2000, 9000)
_MOMENT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z")


def _real_moment(value: str) -> str:
    """`value` (already matching its field's pattern) if it names a moment that exists, in
    `CLOCK_YEARS`; datetime's own words say which part is out of range."""
    parts = _MOMENT.fullmatch(value)
    if parts is None:  # the field's pattern ran first; kept for a direct call
        raise PydanticCustomError("moment", "not a date and time in the seed's format")
    year, month, day, hour, minute, second = (int(p or 0) for p in parts.groups())
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise PydanticCustomError(
            "moment", "not a real date and time ({why})", {"why": str(exc)}
        ) from None
    low, high = CLOCK_YEARS
    if not low <= year <= high:
        raise PydanticCustomError(
            "moment",
            "year {year} is outside {low}..{high}",
            {"year": year, "low": low, "high": high},
        )
    return value


Moment = Annotated[str, AfterValidator(_real_moment)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Service(_Strict):
    name: str = Field(pattern=SLUG)
    status: ServiceStatus
    team: str = Field(min_length=1)
    description: str = Field(min_length=1)
    depends_on: tuple[str, ...] = ()


class TimelineEntry(_Strict):
    at: Moment = Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$")
    event: str = Field(min_length=1)


class Incident(_Strict):
    id: str = Field(pattern=r"^INC-\d{3}$")
    title: str = Field(min_length=1)
    service: str
    severity: Severity
    status: IncidentStatus
    runbook: str
    summary: str = Field(min_length=1)
    timeline: tuple[TimelineEntry, ...] = Field(min_length=1)
    related: tuple[str, ...] = ()


class Runbook(_Strict):
    slug: str = Field(pattern=SLUG)
    title: str
    body: str


class ServiceLog(_Strict):
    service: str
    lines: tuple[str, ...]


class SkillInfo(_Strict):
    name: str
    description: str
    instructions: str


class World(_Strict):
    """seed/world.yaml: the scenario's own clock (the seed is a fixed moment in time), from
    which the store stamps each write one second later."""

    now: Moment = Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
