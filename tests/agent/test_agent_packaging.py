"""The agents load the way ADK's own CLIs load them, with no network, from configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops_copilot.model import ModelConfigError, ModelSettings, build_model
from support import REPO, run


def test_adk_loader_finds_both_agents():
    from google.adk.cli.utils.agent_loader import AgentLoader

    loader = AgentLoader(str(REPO / "agents"))
    ops = loader.load_agent("ops_copilot").root_agent  # an App: the agent behind its guard
    triage = loader.load_agent("triage_report")
    assert ops.name == "ops_copilot" and len(ops.tools) == 13
    tool_names = {t.name for t in triage.tools}
    assert "restart_service" not in tool_names and "get_incident" in tool_names
    assert triage.output_schema.__name__ == "TriageReport"


def test_adk_eval_module_loading_finds_root_agent():
    from google.adk.cli.cli_eval import get_root_agent

    agent = run(get_root_agent(str(REPO / "agents" / "ops_copilot")))
    assert agent.name == "ops_copilot"


def test_adk_run_starts_and_exits_cleanly():
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    adk = Path(sys.executable).with_name("adk")
    proc = subprocess.run(
        [str(adk), "run", "agents/ops_copilot"],
        input="exit\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Running agent ops_copilot" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_importing_tools_does_not_import_the_agent_or_litellm():
    code = (
        "import sys; import ops_copilot.tools.reads, ops_copilot.tools.registry; "
        "print('litellm' in sys.modules, 'ops_copilot.agent' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("env", "model"),
    [
        ({}, "ollama_chat/qwen3:4b-instruct"),
        ({"OPS_AGENT_MODEL": "openai/local", "OPS_AGENT_BASE_URL": "http://127.0.0.1:9/v1"}, None),
        ({"OPS_AGENT_MODEL": "gemini-2.5-flash"}, "gemini-2.5-flash"),
    ],
)
def test_model_from_configuration_builds_offline(env, model):
    built = build_model(ModelSettings.from_env(env))
    if model and model.startswith("gemini"):
        assert built == model
    else:
        assert built.model == (model or env["OPS_AGENT_MODEL"])


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"OPS_AGENT_MODEL": "qwen3"}, "OPS_AGENT_MODEL"),
        ({"OPS_AGENT_MODEL": "openai/x y"}, "OPS_AGENT_MODEL"),
        (
            {"OPS_AGENT_MODEL": "openai/x", "OPS_AGENT_BASE_URL": "localhost:8080"},
            "OPS_AGENT_BASE_URL",
        ),
        (
            {"OPS_AGENT_MODEL": "gemini-2.5-flash", "OPS_AGENT_BASE_URL": "http://x"},
            "OPS_AGENT_BASE_URL",
        ),
    ],
)
def test_broken_model_configuration_names_the_setting(env, field):
    with pytest.raises(ModelConfigError, match=f"^{field}"):
        ModelSettings.from_env(env)


def test_settings_from_a_mapping_ignore_the_process_environment(monkeypatch):
    """A bug fixed in the reshape: the mapping was silently completed from os.environ."""
    monkeypatch.setenv("OPS_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    assert build_model(ModelSettings.from_env({"OPS_AGENT_MODEL": "gemini-2.5-flash"})) == (
        "gemini-2.5-flash"
    )


def test_adk_loads_the_agent_behind_the_confirmation_guard(ops_env):
    """`adk run`, `adk web` and `adk eval` take a package's `app` before its `root_agent`: the
    agent they load must carry the plugin that keeps an unparseable approval from crashing."""
    from google.adk.apps import App
    from google.adk.cli.utils.agent_loader import AgentLoader

    from ops_copilot.confirmations import ConfirmationGuard

    ops_env.setenv("OPS_AGENT_MODEL", "openai/any")
    ops_env.setenv("OPS_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    loaded = AgentLoader(str(REPO / "agents")).load_agent("ops_copilot")
    assert isinstance(loaded, App)
    assert any(isinstance(p, ConfirmationGuard) for p in loaded.plugins)
    assert loaded.root_agent.name == "ops_copilot"
