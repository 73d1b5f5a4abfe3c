"""Which model a live run talks to.

In order:
1. `--model` or OPS_AGENT_MODEL: a LiteLLM model string, a Gemini name, `gguf:PATH` (that file
   served here by llama.cpp, `embedded.py`), `replay:FILE` (answer from a recording) or
   `router:FILE` (a LiteLLM Router over several servers of one model, `router.py`). The endpoint
   is probed first (every server of a router), so an unreachable server is one clear error.
2. Ollama, if it answers (OLLAMA_API_BASE or http://127.0.0.1:11434) and has the default tag.
3. The embedded llama.cpp model (`embedded`), installed and started on first use.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..agents.project import ModelConfigError, ModelSettings, build_model, temperature
from ..base.settings import current
from .choice import REPLAY_PREFIX, ROUTER_PREFIX, ModelChoice, ModelUnavailable, Say, probe
from .embedded import embedded_model, gguf_model
from .gguf import GGUF_PREFIX

OLLAMA_DEFAULT_TAG = "qwen3:4b-instruct"
OLLAMA_DEFAULT_BASE = "http://127.0.0.1:11434"


def _ollama_base(settings_base: str | None = None) -> str:
    return (settings_base or current().ollama_api_base or OLLAMA_DEFAULT_BASE).rstrip("/")


def _preflight(settings: ModelSettings) -> str | None:
    """Probe the endpoint of an explicitly configured model; returns the endpoint probed."""
    if settings.model.startswith(("ollama/", "ollama_chat/")):
        base = _ollama_base(settings.base_url)
        ok, detail = probe(f"{base}/api/tags")
        if not ok:
            raise ModelUnavailable(f"Ollama at {base} does not answer ({detail})")
        return base
    if settings.base_url:
        base = settings.base_url.rstrip("/")
        ok, detail = probe(f"{base}/models")
        if not ok:
            raise ModelUnavailable(f"the model server at {base} does not answer ({detail})")
        return base
    if settings.is_gemini and not (
        os.environ.get("GOOGLE_API_KEY") or os.environ.get("GOOGLE_GENAI_USE_VERTEXAI")
    ):
        raise ModelConfigError(
            f"OPS_AGENT_MODEL: {settings.model} needs GOOGLE_API_KEY (or Vertex AI settings)"
        )
    return None


def _explicit(
    value: str, source: str, say: Say, stack: contextlib.ExitStack, log_dir: Path
) -> ModelChoice:
    if value.startswith(GGUF_PREFIX):
        return stack.enter_context(gguf_model(value, source, say, log_dir))
    if value.startswith(ROUTER_PREFIX):
        from .router import router_model

        return stack.enter_context(router_model(value, source, say))
    if value.startswith(REPLAY_PREFIX):
        from .stand_ins.replay import ReplayLlm

        file = value[len(REPLAY_PREFIX) :].strip()
        if not file:
            raise ModelConfigError(f"{source}: replay: needs a recording file (replay:FILE)")
        return ModelChoice(
            model=ReplayLlm.from_file(Path(file), origin=source),
            name=value,
            source="replay",
            reason=f"from {source}: answers come from a recording, no model is called",
        )
    settings = current()
    chosen = ModelSettings(value.strip(), settings.agent_base_url, settings.agent_api_key)
    chosen.check()
    endpoint = _preflight(chosen)
    env = {"OPS_AGENT_MODEL": chosen.model}
    if chosen.base_url:
        env["OPS_AGENT_BASE_URL"] = chosen.base_url
    if chosen.api_key:
        env["OPS_AGENT_API_KEY"] = chosen.api_key
    return ModelChoice(
        model=build_model(chosen),
        name=chosen.model,
        source=source,
        reason=f"from {source}",
        endpoint=endpoint,
        agent_env=env,
    )


def refuse_router_alone(cli_model: str | None, command: str) -> None:
    """`ops-eval chat` and `web` hand the model to the agent package, which reaches one server
    from its own settings (`ModelChoice.agent_env`) and has no Router: a `router:` setting is
    refused there, before any server is probed, as bad configuration."""
    value, source = (cli_model, "--model")
    if not cli_model:
        value, source = current().agent_model, "OPS_AGENT_MODEL"
    if value and value.strip().startswith(ROUTER_PREFIX):
        raise ModelConfigError(
            f"{source}: {value.strip()}: `ops-eval {command}` runs the agent by itself, which "
            "reaches one server; a router serves `ops-eval run` only (for one of its servers: "
            "--model <its litellm_params.model> with OPS_AGENT_BASE_URL=<its api_base>)"
        )


def _ollama_default() -> tuple[ModelChoice | None, str]:
    """Ollama's default tag if Ollama answers and has it; else why not (for the banner)."""
    base = _ollama_base()
    ok, body = probe(f"{base}/api/tags")
    if not ok:
        return None, f"no Ollama answered at {base}"
    try:
        tags = {m.get("name") for m in json.loads(body).get("models", [])}
    except ValueError:
        tags = set()
    if OLLAMA_DEFAULT_TAG not in tags and f"{OLLAMA_DEFAULT_TAG}:latest" not in tags:
        return None, f"Ollama at {base} answered but has no {OLLAMA_DEFAULT_TAG} (ollama pull it)"
    settings = ModelSettings(model=f"ollama_chat/{OLLAMA_DEFAULT_TAG}", base_url=None)
    os.environ.setdefault("OLLAMA_API_BASE", base)  # LiteLLM's own variable for the endpoint
    choice = ModelChoice(
        model=build_model(settings),
        name=settings.model,
        source="ollama",
        reason=f"no model configured; Ollama answered at {base} with {OLLAMA_DEFAULT_TAG}",
        endpoint=base,
        # an inherited endpoint or key for other routes must not redirect the agent
        agent_env={
            "OPS_AGENT_MODEL": settings.model,
            "OLLAMA_API_BASE": base,
            "OPS_AGENT_BASE_URL": "",
            "OPS_AGENT_API_KEY": "",
        },
    )
    return choice, ""


@contextlib.contextmanager
def choose_model(
    cli_model: str | None,
    *,
    say: Say,
    log_dir: Path,
    record: Path | None = None,
) -> Iterator[ModelChoice]:
    """The model for a live run, per the order in the module docstring; cleans up on exit."""
    temperature()  # a broken OPS_AGENT_TEMPERATURE is bad configuration, said before anything
    with contextlib.ExitStack() as stack:
        configured = current().agent_model
        if cli_model:
            choice = _explicit(cli_model, "--model", say, stack, log_dir)
        elif configured:
            choice = _explicit(configured, "OPS_AGENT_MODEL", say, stack, log_dir)
        else:
            choice, why_not = _ollama_default()
            if choice is None:
                choice = stack.enter_context(embedded_model(say, log_dir, why_not))
        if record is not None:
            from .stand_ins.replay import RecordingLlm

            choice.model = RecordingLlm.to_file(choice.model, record)
            choice.reason += f"; recording every request to {record}"
        yield choice
