"""Shared fixtures: the real seed, fresh workspaces, a seed copy to break, settings that follow
the environment a test sets, the MLflow stores, and the session's embedded server. Loads the test
tiers (tiers.py). What tests import by name is in support.py, not here."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# ADK-acceptance cache of the validator: one fresh cache per test session, so the suite always
# exercises ADK's own parse at least once and never depends on a developer's cache.
os.environ["OPS_EVAL_CACHE"] = tempfile.mkdtemp(prefix="ops-eval-cache-")

from support import REPO  # noqa: E402  (what tests import by name lives in support.py)

# The test tiers: the `e2e` marker, and the guard that fails an unmarked test needing a server
# (tests/tiers.py); pytester runs the guard's own tests.
pytest_plugins = ["tiers", "pytester"]

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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Read the settings again once *every* fixture of the test is torn down. A fixture's own
    teardown is too early: `monkeypatch` is shared with the fast-tier guard, set up before any
    autouse fixture here and so undone after them, and the next test's module-scoped fixtures
    are set up before its function-scoped ones -- they read the settings this leaves."""
    from ops_eval.base.settings import reload

    try:
        return (yield)
    finally:
        reload()


@pytest.fixture
def ops_env():
    """Set or remove environment variables for this test, with the settings read again -- and,
    at the end, the environment put back and read again (`support.TestEnv`)."""
    from support import TestEnv

    env = TestEnv()
    yield env
    env.close()


@pytest.fixture
def seed():
    from ops_copilot.seed.loading import default_seed

    return default_seed()


@pytest.fixture
def workspace(seed):
    from ops_copilot.store.workspace import Workspace

    return Workspace.fresh(seed)


@pytest.fixture
def seed_copy(tmp_path: Path) -> Path:
    """A writable copy of the repository's seed, for tests that break or extend it."""
    target = tmp_path / "seed"
    shutil.copytree(REPO / "seed", target)
    return target


@pytest.fixture
def call(workspace):
    """Call a declared tool directly on this workspace: call("get_incident", incident_id=...)."""
    from ops_eval import DirectContext

    with DirectContext(workspace=workspace) as ctx:
        yield ctx.call


# -- trial views built by hand, for one scorer at a time (tests/scorers) ------------------------


@pytest.fixture(scope="session")
def plan():
    """The real plan of the ops set."""
    from ops_eval import load_plan

    return load_plan(REPO / "evals" / "ops.evalset.json")


@pytest.fixture
def trial(plan):
    """trial(case_id, responses=[...], calls=[[...]], ...) -> a TrialView of that case whose
    turns hold the case's expected calls and references; by default the agent made exactly
    the expected calls and answered the reference, and the store did not change."""
    from ops_eval import ToolCall, TrialView, Turn

    def build(
        case_id, *, calls=None, responses=None, after=None, audit=(), before=None, results=False
    ):
        """`results=True`: each read call holds the real tool's result on a fresh workspace (what
        the `grounded` scorer reads); writes, and every call by default, hold none."""
        case = next(c for c in plan.cases if c.eval_id == case_id)
        turns = []
        for i, spec in enumerate(case.turns):
            made = calls[i] if calls is not None else [ToolCall(c.name, c.args) for c in spec.calls]
            if results:
                made = [_with_result(c) for c in made]
            said = responses[i] if responses is not None else spec.reference
            turns.append(
                Turn(
                    index=spec.index,
                    prompt=spec.prompt,
                    reference=spec.reference,
                    expected=list(spec.calls),
                    calls=made,
                    response=said,
                )
            )
        from ops_copilot.store.state import StateStore

        start = before or StateStore.create(plan.seed).snapshot()
        return TrialView(
            case=case,
            repeat=1,
            turns=turns,
            before=start,
            after=after or start,
            audit=list(audit),
        )

    def _with_result(call):
        from ops_copilot.definition import write_tools
        from ops_copilot.store.workspace import Workspace
        from ops_eval import DirectContext

        if call.name in write_tools():
            return call
        with DirectContext(workspace=Workspace.fresh(plan.seed)) as ctx:
            return ToolCall(call.name, call.args, result=ctx.call(call.name, **call.args))

    return build


@pytest.fixture
def evals(tmp_path: Path, monkeypatch) -> Path:
    """A copy of evals/'s files (sets, criteria, negatives, contracts) to mutate; the working
    directory is its parent, so problems name it evals/ as they name the real one."""
    import google.adk.evaluation.eval_set  # noqa: F401  (loaded once: mutations parse in-process)

    target = tmp_path / "evals"
    target.mkdir()
    for path in (REPO / "evals").iterdir():
        if path.is_file():
            shutil.copy(path, target / path.name)
    monkeypatch.chdir(tmp_path)
    return target


@pytest.fixture
def uncontracted_trial(trial):
    """Like `trial`, with the case's own contracts dropped: a test's set policy is then the only
    rule (the cases' own contracts in ops.evalset.json change as the set grows)."""
    from dataclasses import replace

    from ops_eval.core.contracts import Contracts

    def build(*args, **kwargs):
        view = trial(*args, **kwargs)
        meta = view.case.meta.model_copy(update={"contracts": Contracts()})
        view.case = replace(view.case, meta=meta)
        return view

    return build


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled
def pytest_collection_modifyitems(config, items):
    """The tests on a real MLflow server (end-to-end tier, one process) run last. An MLflow
    evaluation leaves MLflow's tracer provider as OpenTelemetry's global one for the rest of
    the process (OpenTelemetry lets a provider be set once; putting the old one back made
    MLflow's next evaluation lose its traces), so every later ADK span is exported to that
    store: with the server stopped, MLflow retried those exports for minutes at exit. Into a
    test's own SQLite store, as in the fast tier, the same export is harmless."""
    items.sort(key=lambda item: item.path.name == "test_tracking_server.py")


# --- the MLflow tests (tests/tracking/): a store per test, the command in-process ---


@pytest.fixture(scope="session")
def mlflow_installed():
    """The optional `mlflow` group, installed on first use as the command installs it, so the
    MLflow tests (tests/tracking/) never skip on a fresh machine."""
    from ops_eval.outputs.tracking.store import ensure_mlflow

    ensure_mlflow(print)


@pytest.fixture(scope="session")
def local_installed():
    """The embedded model's optional `local` group (its GGUF, llama.cpp's server), installed on
    first use as the commands install it: for a fast test that reads the GGUF (its pin) and
    starts no server, which on a fresh clone no end-to-end test has installed before it."""
    from ops_eval.models import local_deps

    local_deps.ensure(print)


@pytest.fixture(scope="session")
def local_group():
    """The `local` group installed, as `local_installed`; skipped, saying so, where
    OPS_SKIP_EMBEDDED_TEST=1 and it is missing (the end-to-end tests of the embedded model)."""
    from ops_eval.base.settings import current
    from ops_eval.models import local_deps

    if local_deps.missing() and current().skip_embedded_test:
        pytest.skip("OPS_SKIP_EMBEDDED_TEST=1 and the embedded model's `local` group is missing")
    local_deps.ensure(print)


@pytest.fixture
def store(tmp_path: Path, ops_env, mlflow_installed):
    """A fresh SQLite tracking store and runs folder for this test (MLflow installed); the
    URI."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    for name in ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL",
                 "MLFLOW_JUDGE_API_KEY"):  # fmt: skip
        ops_env.delenv(name)
    return uri


@pytest.fixture
def mlflow_cli(store, capsys):
    """`ops-eval mlflow ARGV` in this process, with `model` (a deterministic test model) in
    place of model selection when given: (exit code, stdout, stderr)."""
    from ops_eval.base.exits import OpsEvalError
    from ops_eval.cli import build_parser
    from ops_eval.commands.mlflow import run_mlflow
    from ops_eval.models.stand_ins import fixed_model

    def run(argv: list[str], model=None) -> tuple[int, str, str]:
        args = build_parser().parse_args(["mlflow", *argv])
        chooser = None
        if model is not None:
            chooser = fixed_model(
                model, getattr(model, "model", "test"), "deterministic test model"
            )
        try:
            code = run_mlflow(args, chooser=chooser)
        except OpsEvalError as exc:
            print(f"error: {exc}", file=__import__("sys").stderr)
            code = exc.code
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def client(store):
    """An MLflow client on this test's store."""
    import mlflow

    mlflow.set_tracking_uri(store)
    return mlflow.MlflowClient(store)


# --- the end-to-end tier: one embedded model server per session, for the tests that only ask it ---


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory, local_group):
    """The embedded llama.cpp server, started as the product starts it (`embedded_model`), once
    per pytest session (per xdist worker) for every test that only sends it requests: the
    choice (its model and endpoint), the served alias, its log, how long it took to answer,
    and `idle()`, which waits until no request is in progress -- a test counting what the
    server answered starts there, never in the middle of an earlier test's request. Tests that
    check how a command starts or stops its server start their own."""
    import json
    import time
    from types import SimpleNamespace

    from ops_eval.models.choice import probe
    from ops_eval.models.embedded import EMBEDDED_ALIAS, embedded_model

    log_dir = tmp_path_factory.mktemp("embedded")
    started = time.monotonic()
    with embedded_model(print, log_dir, "a test asked for it") as choice:
        startup_s = time.monotonic() - started
        print(f"\nembedded server answered after {startup_s:.1f} s")
        slots = choice.endpoint.removesuffix("/v1") + "/slots"  # llama.cpp's own endpoint

        def idle(wait_s: float = 120.0) -> None:
            """No slot processing, and its log unchanged for half a second (the line saying a
            request finished can come after its answer)."""
            log = log_dir / "embedded-llama-server.log"
            deadline = time.monotonic() + wait_s
            while True:
                ok, body = probe(slots)
                if ok and not any(s.get("is_processing") for s in json.loads(body)):
                    size = log.stat().st_size
                    time.sleep(0.5)
                    if log.stat().st_size == size:
                        return
                assert time.monotonic() < deadline, f"the embedded server stayed busy: {body}"
                time.sleep(0.1)

        yield SimpleNamespace(
            choice=choice,
            endpoint=choice.endpoint,
            alias=EMBEDDED_ALIAS,
            log=log_dir / "embedded-llama-server.log",
            startup_s=startup_s,
            idle=idle,
        )
