"""What every test shares: the environment the suite runs in, settings that follow the
environment a test sets (`ops_env`, and read again after each test), the fuzzing profiles, and
the order that runs the MLflow server's tests last. Loads, as plugins, the test tiers
(tiers.py) and the fixtures each named for what they hold: the ops copilot's seed and
workspaces (agent_fixtures.py), the eval sets and trial views (evalset_fixtures.py), the
embedded model (embedded_fixtures.py), MLflow's stores and command (mlflow_fixtures.py). What
tests import by name is in support.py."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# ADK-acceptance cache of the validator: one fresh cache per test session, so the suite always
# exercises ADK's own parse at least once and never depends on a developer's cache.
os.environ["OPS_EVAL_CACHE"] = tempfile.mkdtemp(prefix="ops-eval-cache-")

# The test tiers: the `e2e` marker, and the guard that fails an unmarked test needing a server
# (tests/tiers.py); pytester runs the guard's own tests. Then the shared fixtures.
pytest_plugins = [
    "tiers",
    "pytester",
    "agent_fixtures",
    "evalset_fixtures",
    "embedded_fixtures",
    "mlflow_fixtures",
]

# Property-based fuzzing (tests/fuzz): a bounded profile inside `mise run test`, a long one for
# `mise run fuzz`. No deadline: the first example of a target pays for its imports.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile("default")


@pytest.fixture(autouse=True)
def _settings_follow_the_environment():
    """Settings are read once per process (the CLI reloads them at each start); each test starts
    from the environment as it is. Leaving none of its changes behind is `pytest_runtest_teardown`'s
    part below."""
    from ops_eval.base.settings import reload

    reload()


PROJECT_AGENTS = {p.parent.name for p in (Path(__file__).parents[1] / "agents").glob("*/port.py")}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Read the settings again, and forget the agents the test loaded, once *every* fixture of
    the test is torn down. A fixture's own teardown is too early: `monkeypatch` is shared with
    the fast-tier guard, set up before any autouse fixture here and so undone after them, and
    the next test's module-scoped fixtures are set up before its function-scoped ones -- they
    read the settings this leaves."""
    from ops_eval.agents import ports
    from ops_eval.base.settings import reload

    try:
        return (yield)
    finally:
        reload()
        # Agents from outside the project a test loaded (the ticket desk, a planted package)
        # are forgotten with it: the ports loaded are what "every agent" means to a command (the
        # answer models a `pydantic` check may name, set-level contracts), and one process runs
        # one command. The project's own (`agents/`) stay: module-scoped plans hold them.
        for name in set(ports._PORTS) - PROJECT_AGENTS:
            ports._PORTS.pop(name, None)
            ports._SEEDS.pop(name, None)


@pytest.fixture
def ops_env():
    """Set or remove environment variables for this test, with the settings read again -- and,
    at the end, the environment put back and read again (`support.TestEnv`)."""
    from support import TestEnv

    env = TestEnv()
    yield env
    env.close()


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled
def pytest_collection_modifyitems(config, items):
    """The tests on a real MLflow server (end-to-end tier, one process) run last. An MLflow
    evaluation leaves MLflow's tracer provider as OpenTelemetry's global one for the rest of
    the process (OpenTelemetry lets a provider be set once; putting the old one back made
    MLflow's next evaluation lose its traces), so every later ADK span is exported to that
    store: with the server stopped, MLflow retried those exports for minutes at exit. Into a
    test's own SQLite store, as in the fast tier, the same export is harmless."""
    items.sort(key=lambda item: item.path.name == "test_tracking_server.py")
