"""The agent's configuration: every OPS_* variable it reads, read once, and where its data lives.

`current()` reads the environment on first use and keeps the result for the process; `reload()`
reads it again (a CLI does so when it starts, tests after changing a variable). A harness may
`install` a subclass holding its own variables too, so one object serves the whole process.

Data (the seed, and the eval files beside it) is found the same way whatever the install: under
`data_root()`, which is the top of a source checkout (an editable install), or the `_data` folder
that the wheel build puts inside this package with the same layout.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_PACKAGE = Path(__file__).resolve().parent
_TRUE = {"1", "true", "yes", "on"}


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


class Settings(BaseSettings):
    """OPS_* variables of the agent. Empty values count as unset; surrounding spaces are dropped."""

    model_config = SettingsConfigDict(
        extra="ignore", str_strip_whitespace=True, case_sensitive=True
    )

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
    """The kill switch: 1, true, yes or on refuse every write before anyone is asked."""
    seed_dir: Path | None = env_var("OPS_SEED_DIR")

    @model_validator(mode="before")
    @classmethod
    def _empty_is_unset(cls, values: Any) -> Any:
        """An empty variable counts as unset, for every field (a subclass's too)."""
        if not isinstance(values, dict):
            return values
        return {k: v for k, v in values.items() if not (isinstance(v, str) and not v.strip())}

    @field_validator("writes_disabled", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        return str(value).strip().lower() in _TRUE if not isinstance(value, bool) else value

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Settings:
        """Settings from a mapping shaped like the environment, and from nothing else."""
        return _from_mapping_only(cls)(**env)

    @property
    def seed_path(self) -> Path:
        return (self.seed_dir or data_root() / "seed").resolve()


@cache
def _from_mapping_only(cls: type[Settings]) -> type[Settings]:
    """`cls`, reading only the values it is given (not the process environment)."""

    class FromMapping(cls):  # type: ignore[valid-type, misc]
        @classmethod
        def settings_customise_sources(cls, settings_cls, init_settings, **other_sources):  # type: ignore[override]
            return (init_settings,)

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
