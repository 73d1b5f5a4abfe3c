"""The agent's configuration: every OPS_* variable it reads, read once, and where its data lives.

`current()` reads the environment on first use and keeps the result for the process; `reload()`
reads it again (a CLI does so when it starts, tests after changing a variable). A harness may
`install` a subclass holding its own variables too, so one object serves the whole process.

Data (the seed, and the eval files beside it) is found the same way whatever the install: under
`data_root()`, which is the top of a source checkout (an editable install), or the `_data` folder
that the wheel build puts inside this package with the same layout.

The variables are read by `Settings.__init__` itself, not by pydantic-settings: each field from
the one variable its `env_var` names, exactly as written, the value as it is (what
pydantic-settings did for these flat fields, case-sensitive, with no .env file), and validated by
pydantic as before. Importing pydantic-settings cost every CLI start as much as pydantic itself
(`evals/benchmarks/validate_speed.py`).
"""

from __future__ import annotations

import logging
import os
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from opskit.textfiles import resolved

_PACKAGE = Path(__file__).resolve().parent
_log = logging.getLogger(__name__)

# OPS_WRITES_DISABLED, compared after trimming spaces and lower-casing. Only these values leave
# writes on; the kill switch must fail closed, so any value outside both sets turns writes off.
WRITES_ON = frozenset({"0", "false", "no", "off"})  # and unset or empty
WRITES_OFF = frozenset({"1", "true", "yes", "on"})
_warned: set[str] = set()


def data_root() -> Path:
    """The folder holding `seed/` (and `evals/`): `_data/` in a wheel, else the checkout."""
    packaged = _PACKAGE / "_data"
    return packaged if packaged.is_dir() else _PACKAGE.parents[1]


def source_root() -> Path | None:
    """The source checkout this code runs from, or None when it runs from an installed wheel."""
    root = _PACKAGE.parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "seed").is_dir() else None


def env_var(name: str, default: Any = None) -> Any:
    """A settings field read from the environment variable `name`."""
    return Field(default=default, validation_alias=name)


# What "surrounding spaces" means in a variable's value: ASCII space, tab and line ends only.
SPACES = " \t\r\n"


class Settings(BaseModel):
    """OPS_* variables of the agent. Empty values count as unset; surrounding spaces are dropped.

    `Settings()` reads the process environment; keyword arguments, named by variable, win over
    it (as pydantic-settings' init source did). Defaults are validated too."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, validate_default=True)

    def __init__(self, **values: Any) -> None:
        super().__init__(**{**type(self)._environment(), **values})

    @classmethod
    def _environment(cls) -> dict[str, str]:
        """Each field's variable that is set, by name (case-sensitive), its value untouched."""
        names = (field.validation_alias or name for name, field in cls.model_fields.items())
        return {name: os.environ[name] for name in names if name in os.environ}  # type: ignore[index]

    agent_model: str | None = env_var("OPS_AGENT_MODEL")
    """LiteLLM model string or Gemini name (checked by `model.ModelSettings`); None: unset."""
    agent_base_url: str | None = env_var("OPS_AGENT_BASE_URL")
    agent_api_key: str | None = env_var("OPS_AGENT_API_KEY")
    agent_temperature: str | None = env_var("OPS_AGENT_TEMPERATURE")
    """Sampling temperature for every request (checked by `model.temperature`); unset, the
    model server's default."""
    state_db: str | None = env_var("OPS_STATE_DB")
    """A SQLite file shared by interactive sessions; unset, each session gets a fresh store."""
    writes_disabled: bool = env_var("OPS_WRITES_DISABLED", False)
    """The kill switch, failing closed. Writes stay on only when it is unset, empty, 0, false, no
    or off; 1, true, yes or on refuse every write before anyone is asked, and so does any other
    value (case and surrounding spaces ignored), with one warning per process for that value --
    a typo such as `=enabled` or `=2` must never be what lets a write through. "Spaces" are
    `SPACES` only: Python's `str.strip` also drops the separators U+001C-U+001F and Unicode
    spaces, and `0\x1f` read as `0` turned writes on."""
    seed_dir: Path | None = env_var("OPS_SEED_DIR")

    @model_validator(mode="before")
    @classmethod
    def _empty_is_unset(cls, values: Any) -> Any:
        """An empty variable counts as unset, for every field (a subclass's too)."""
        if not isinstance(values, dict):
            return values
        return {k: v for k, v in values.items() if not (isinstance(v, str) and not v.strip(SPACES))}

    @field_validator("writes_disabled", mode="before")
    @classmethod
    def _kill_switch(cls, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        word = str(value).strip(SPACES).lower()
        if word in WRITES_ON or word == "":
            return False
        if word not in WRITES_OFF:
            _warn_once(str(value))
        return True

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Settings:
        """Settings from a mapping shaped like the environment, and from nothing else."""
        return _from_mapping_only(cls)(**env)

    @property
    def seed_path(self) -> Path:
        return resolved(self.seed_dir or data_root() / "seed")


def _warn_once(value: str) -> None:
    """Say once per process (per value) that an unrecognised kill-switch value disabled writes:
    settings are read again at every CLI start and in every test, and one line is enough."""
    if value in _warned:
        return
    _warned.add(value)
    _log.warning(
        "OPS_WRITES_DISABLED=%r is not a known value, so writes are disabled (writes stay on "
        "only when it is unset, empty, 0, false, no or off)",
        value,
    )


@cache
def _from_mapping_only(cls: type[Settings]) -> type[Settings]:
    """`cls`, reading only the values it is given (not the process environment)."""

    class FromMapping(cls):  # type: ignore[valid-type, misc]
        @classmethod
        def _environment(cls) -> dict[str, str]:
            return {}

    return FromMapping


_current: Settings | None = None


def current() -> Settings:
    """The process's settings, read from the environment on first use."""
    global _current
    if _current is None:
        _current = Settings()
    return _current


def install(settings: Settings) -> Settings:
    """Make `settings` (a harness's subclass, say) the process's settings."""
    global _current
    _current = settings
    return settings


def reload() -> Settings:
    """Read the environment again, keeping the installed settings class."""
    return install(type(_current)() if _current is not None else Settings())
