"""Which model the agent talks to, from configuration; building it never touches the network.

OPS_AGENT_MODEL holds a LiteLLM model string (`ollama_chat/qwen3:4b-instruct`, `openai/<name>`
for any OpenAI-compatible server) or a native Gemini model name (`gemini-...`).
OPS_AGENT_BASE_URL and OPS_AGENT_API_KEY set the endpoint and key for LiteLLM routes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from ops_copilot.settings import Settings, current

__all__ = [
    "DEFAULT_MODEL",
    "PROVIDER_PREFIX",
    "ModelConfigError",
    "ModelSettings",
    "build_model",
    "temperature",
]

DEFAULT_MODEL = "ollama_chat/qwen3:4b-instruct"
PROVIDER_PREFIX = re.compile(r"^[A-Za-z0-9_.-]+/\S")
"""A LiteLLM model string starts with its provider: `ollama_chat/`, `openai/`, ..."""


class ModelConfigError(ValueError):
    """The model settings cannot describe a model (empty name, base URL without a scheme...)."""


@dataclass(frozen=True)
class ModelSettings:
    model: str
    base_url: str | None = None
    api_key: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelSettings:
        model = settings.agent_model or DEFAULT_MODEL
        built = cls(model, settings.agent_base_url, settings.agent_api_key)
        built.check()
        return built

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> ModelSettings:
        """From the process settings, or from a mapping shaped like the environment."""
        return cls.from_settings(current() if env is None else Settings.from_env(env))

    @property
    def is_gemini(self) -> bool:
        return self.model.startswith("gemini-") or self.model.startswith("models/gemini")

    def check(self) -> None:
        if not self.model or any(ch.isspace() for ch in self.model):
            raise ModelConfigError(f"OPS_AGENT_MODEL: {self.model!r} is not a model name")
        if self.model.startswith("router:"):  # ops-eval's Router over several servers
            raise ModelConfigError(
                f"OPS_AGENT_MODEL: {self.model!r}: a router serves `ops-eval run` only; the "
                "agent alone reaches one server (set one of its models and OPS_AGENT_BASE_URL)"
            )
        if not self.is_gemini and not PROVIDER_PREFIX.match(self.model):
            raise ModelConfigError(
                f"OPS_AGENT_MODEL: {self.model!r} needs a LiteLLM provider prefix "
                "(ollama_chat/<tag>, openai/<name>) or a gemini-* name"
            )
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ModelConfigError(
                f"OPS_AGENT_BASE_URL: {self.base_url!r} must start with http:// or https://"
            )
        if self.is_gemini and self.base_url:
            raise ModelConfigError("OPS_AGENT_BASE_URL applies to LiteLLM models, not to Gemini")


def temperature() -> float | None:
    """OPS_AGENT_TEMPERATURE as a number from 0 to 2, or None when unset."""
    raw = current().agent_temperature
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 2:
        raise ModelConfigError(f"OPS_AGENT_TEMPERATURE: {raw!r} is not a number from 0 to 2")
    return value


def build_model(settings: ModelSettings | None = None) -> Any:
    """A model object for `LlmAgent(model=...)`: a Gemini name, or ADK's LiteLlm wrapper."""
    settings = settings or ModelSettings.from_env()
    if settings.is_gemini:
        return settings.model
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from google.adk.models.lite_llm import LiteLlm

    kwargs: dict[str, Any] = {}
    if settings.base_url:
        kwargs["api_base"] = settings.base_url
    if settings.api_key:
        kwargs["api_key"] = settings.api_key
    elif settings.model.startswith("openai/"):
        kwargs["api_key"] = "not-needed"  # LiteLLM insists on a key even when the server ignores it
    return LiteLlm(model=settings.model, **kwargs)
