"""What the harness shares with the project's own agent package beyond the port: the process's
settings (every `OPS_*` variable, read once) and the model route they choose (`OPS_AGENT_MODEL`
and friends), which the ops copilot's `root_agent` and the harness's model selection both use."""

from ops_copilot import settings
from ops_copilot.model import (
    PROVIDER_PREFIX,
    ModelConfigError,
    ModelSettings,
    build_model,
    temperature,
)
from ops_copilot.settings import Settings, current, data_root, env_var, source_root

__all__ = [
    "PROVIDER_PREFIX", "ModelConfigError", "ModelSettings", "Settings", "build_model", "current",
    "data_root", "env_var", "settings", "source_root", "temperature",
]  # fmt: skip
