"""The harness's configuration: the agent's OPS_* variables plus its own, and its data roots.

`EvalSettings` extends the agent's `Settings`, so one object per process reads every variable:
`current()` installs it as the agent's settings too. The CLI reads it afresh at each start.

Data roots come from `ops_copilot.settings.data_root()`: the eval sets, criteria, negatives and
red-team corpora live under `evals/` beside `seed/`, in a checkout and in a wheel alike. Outputs
(run records, caches) go under the checkout when there is one, else under the working folder and
the user's cache folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import SecretStr, field_validator

from ..agents.project import Settings, data_root, env_var, source_root
from ..agents.project import settings as agent_settings

__all__ = ["EvalSettings", "current", "reload"]


class EvalSettings(Settings):
    """OPS_* variables of the harness, OLLAMA_API_BASE (which model selection probes),
    XDG_CACHE_HOME (where the cache goes outside a checkout), and the MLFLOW_* variables of
    `ops-eval mlflow` (tracking store, experiment, judge)."""

    runs_dir_override: Path | None = env_var("OPS_RUNS_DIR")
    """Where run records go (default: runs/ in the checkout, else in the working folder)."""
    eval_cache: Path | None = env_var("OPS_EVAL_CACHE")
    """Where the validator remembers files ADK already accepted."""
    ollama_api_base: str | None = env_var("OLLAMA_API_BASE")
    skip_embedded_test: bool = env_var("OPS_SKIP_EMBEDDED_TEST", False)
    xdg_cache_home: Path | None = env_var("XDG_CACHE_HOME")
    mlflow_tracking_uri: str | None = env_var("MLFLOW_TRACKING_URI")
    """Where `ops-eval mlflow` logs (default: a SQLite file in the checkout, `tracking.config`)."""
    mlflow_experiment: str | None = env_var("MLFLOW_EXPERIMENT_NAME")
    judge_model: str | None = env_var("MLFLOW_JUDGE_MODEL")
    """The optional judge of `ops-eval mlflow`: on only when all three are set."""
    judge_base_url: str | None = env_var("MLFLOW_JUDGE_BASE_URL")
    judge_api_key: str | None = env_var("MLFLOW_JUDGE_API_KEY")
    ops_judge_model: str | None = env_var("OPS_JUDGE_MODEL")
    """The judge of the `llm_judge` scorer, `ops-eval calibrate` and `ops-eval ab`: a LiteLLM
    model string, a model name served at OPS_JUDGE_BASE_URL, `embedded`, or `gguf:PATH` (a GGUF
    on disk, served here). Unset: no judge."""
    ops_judge_base_url: str | None = env_var("OPS_JUDGE_BASE_URL")
    ops_judge_api_key: str | None = env_var("OPS_JUDGE_API_KEY")
    ops_judge_pin: str | None = env_var("OPS_JUDGE_PIN")
    """A digest or version naming the judge's exact weights, kept with its verdicts."""
    ops_judge_schema: str | None = env_var("OPS_JUDGE_SCHEMA")
    """How the reply is constrained: json_schema, llama_cpp or none (default by route)."""
    calibration_reports_override: Path | None = env_var("OPS_CALIBRATION_REPORTS")
    """Where calibration reports are appended (default: evals/calibration/reports.jsonl)."""
    data_key: SecretStr | None = env_var("OPS_EVAL_DATA_KEY")
    """The user's secret that keys a minimal-data run's hashes (`results/minimal.py`)."""
    ledger_key: SecretStr | None = env_var("OPS_LEDGER_KEY")
    """The secret that signs the gate ledger and the calibration reports (`deciding.ledger`)."""

    @field_validator("skip_embedded_test", mode="before")
    @classmethod
    def _exactly_one(cls, value: Any) -> bool:
        return str(value).strip() == "1"

    @property
    def evals_dir(self) -> Path:
        return data_root() / "evals"

    @property
    def redteam_dir(self) -> Path:
        return self.evals_dir / "redteam"

    @property
    def source_root(self) -> Path | None:
        return source_root()

    @property
    def runs_dir(self) -> Path:
        if self.runs_dir_override:
            return self.runs_dir_override
        return (self.source_root or Path.cwd()) / "runs"

    @property
    def calibration_reports(self) -> Path:
        """In a checkout, beside the calibration set, to be committed as evidence; from an
        installed wheel (whose data is read-only), beside the run records."""
        if self.calibration_reports_override:
            return self.calibration_reports_override
        if self.source_root:
            return self.evals_dir / "calibration" / "reports.jsonl"
        return self.runs_dir / "calibration-reports.jsonl"

    @property
    def cache_dir(self) -> Path:
        if self.eval_cache:
            return self.eval_cache
        if self.source_root:
            return self.source_root / ".cache" / "ops-eval"
        return (self.xdg_cache_home or Path.home() / ".cache") / "ops-eval"


def current() -> EvalSettings:
    """The process's settings, as an `EvalSettings` (installed for the agent too)."""
    found = agent_settings.current()
    if isinstance(found, EvalSettings):
        return found
    return agent_settings.install(EvalSettings())  # type: ignore[return-value]


def reload() -> EvalSettings:
    """Read the environment again (what the CLI does at each start)."""
    return agent_settings.install(EvalSettings())  # type: ignore[return-value]
