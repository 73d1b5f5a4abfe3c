"""`ops-eval chat` and `ops-eval web`: ADK's own `adk run` and `adk web`, with the model chosen
exactly as for a live eval -- `--model` or OPS_AGENT_MODEL, then Ollama, then the embedded
llama.cpp server, which lives as long as the session -- and the same banner saying why.

ADK's CLI runs as a child process and builds the agent from the agent package's own settings,
which are set to reach the chosen model. In a source checkout it serves `agents/`; from an
installed wheel, the installed agent packages.

`--agent NAME` serves NAME alone, whatever package it is: a folder made for the session holds one
package, `NAME_chat` (named apart, so it does not shadow NAME itself), whose `app` is NAME's
agent built through its port (`build_agent`, `build_app`) with the chosen model, read from the
same settings (`agents.project.build_model`); NAME's folder goes on the child's PYTHONPATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..base.settings import current

AGENT_PACKAGES = ("ops_copilot", "triage_report")

UNCONSTRAINED = (
    "the embedded 135M-parameter model proves the path end to end and is far too small to be "
    "useful; ADK's CLI reaches it with the agent's own settings, so unlike in `ops-eval run` its "
    "replies are not constrained to open with a tool call, and it mostly answers in prose"
)  # in place of the run's caveat, which says the opposite of the constraint


@contextmanager
def agents_dir() -> Iterator[Path]:
    """The folder whose subfolders are the agents: `agents/` in a checkout, else a temporary
    folder linking the installed agent packages."""
    root = current().source_root
    if root is not None:
        yield root / "agents"
        return
    import importlib

    with tempfile.TemporaryDirectory(prefix="ops-agents-") as tmp:
        for name in AGENT_PACKAGES:
            package = Path(importlib.import_module(name).__file__ or "").parent
            (Path(tmp) / name).symlink_to(package, target_is_directory=True)
        yield Path(tmp)


WRAPPER = '''"""{name}'s ADK agent for `adk {kind}`, written by `ops-eval {kind} --agent {name}`:
built through its port with the model ops-eval chose (OPS_AGENT_MODEL and friends)."""

from ops_eval.agents import port
from ops_eval.agents.project import build_model

_PORT = port({name!r})
app = _PORT.build_app(_PORT.build_agent(build_model()), {app!r})
'''


@contextmanager
def served(kind: str, agent: str | None) -> Iterator[tuple[Path, str, dict[str, str]]]:
    """(the folder of agents ADK serves, the one `adk run` talks to, environment to add): the
    project's agents without `--agent`; else one wrapper package building `agent` through its
    port, in a folder that lives as long as the session."""
    if agent is None:
        with agents_dir() as folder:
            yield folder, "ops_copilot", {}
        return
    import importlib.util

    spec = importlib.util.find_spec(agent)
    where = Path(next(iter(spec.submodule_search_locations or []))).parent if spec else None
    path = os.pathsep.join(p for p in (str(where or ""), os.environ.get("PYTHONPATH", "")) if p)
    app = f"{agent}_chat"
    with tempfile.TemporaryDirectory(prefix="ops-agent-") as tmp:
        package = Path(tmp) / app
        package.mkdir()
        (package / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
        text = WRAPPER.format(name=agent, kind="run" if kind == "chat" else kind, app=app)
        (package / "agent.py").write_text(text, encoding="utf-8")
        yield Path(tmp), app, {"PYTHONPATH": path}


def adk_command(kind: str, folder: Path, agent: str, extra: Sequence[str]) -> list[str]:
    adk = str(Path(sys.executable).with_name("adk"))
    if kind == "chat":
        return [adk, "run", str(folder / agent), *extra]
    return [adk, "web", str(folder), *extra]


def _run_until_done(cmd: list[str], env: dict[str, str]) -> int:
    """Run ADK's CLI to its end. Ctrl-C (which the terminal sends to both processes) or a
    SIGTERM to this one stops it the way it stops itself, and that is a normal end: 0."""
    proc = subprocess.Popen(cmd, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()  # a no-op when Ctrl-C already ended it
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return 0


def launch(
    kind: str,
    cli_model: str | None,
    extra: Sequence[str],
    *,
    agent: str | None = None,
    chooser: Callable[..., Any] | None = None,
    say: Callable[[str], None],
) -> int:
    """Choose the model, print the banner, run ADK's CLI until it exits (over `agent` alone
    when one is named, else the project's agents); its exit code."""
    from ..agents.project import ModelConfigError
    from ..base.exits import EXIT_INFRA
    from ..models import ModelUnavailable, choose_model
    from ..models.selection import refuse_router_alone

    try:
        refuse_router_alone(cli_model, kind)
        with (chooser or choose_model)(cli_model, say=say, log_dir=current().runs_dir) as choice:
            banner = choice.banner()
            if choice.source == "embedded":
                banner = [banner[0], f"note:  {UNCONSTRAINED}"]
            print("\n".join(banner), flush=True)
            if choice.agent_env is None:
                raise OpsEvalError(
                    EXIT_BAD_INPUT,
                    f"{choice.name}: the agent cannot reach this model by itself; a recording "
                    "answers `ops-eval run` and `adk eval evals/replay_agent` only",
                )
            env = {**os.environ, **choice.agent_env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
            with served(kind, agent) as (folder, name, more):
                return _run_until_done(adk_command(kind, folder, name, extra), {**env, **more})
    except ModelConfigError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except ModelUnavailable as exc:
        raise OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}") from None
