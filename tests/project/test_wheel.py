"""The built wheel works on its own: installed into a fresh virtual environment, from outside the
repository, it finds its seed and eval sets and validates what the checkout validates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO

pytestmark = pytest.mark.e2e  # the built wheel, installed in a fresh environment


def _uv() -> list[str]:
    """uv, found the way .mise/bootstrap finds it (which also installs it)."""
    found = shutil.which("uv")
    if found:
        return [found]
    python3 = shutil.which("python3") or sys.executable
    probe = subprocess.run([python3, "-m", "uv", "--version"], capture_output=True)
    if probe.returncode == 0:
        return [python3, "-m", "uv"]
    pytest.fail("uv is not installed; .mise/bootstrap installs it (mise run setup)")


def _checkout_counts() -> tuple[int, int]:
    sets = sorted((REPO / "evals").glob("*.evalset.json"))
    return len(sets), sum(len(json.loads(p.read_text())["eval_cases"]) for p in sets)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding the wheel and the locked runtime dependencies, nothing else."""
    uv, tmp = _uv(), tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_SYSTEM_CERTS": "1"}

    def sh(*args: str) -> None:
        proc = subprocess.run([*uv, *args], cwd=REPO, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]

    sh("build", "--wheel", "--out-dir", str(tmp / "dist"))
    (wheel,) = (tmp / "dist").glob("ops_copilot-*.whl")
    requirements = tmp / "requirements.txt"
    sh("export", "--frozen", "--no-dev", "--no-hashes", "--no-emit-project", "-q",
       "-o", str(requirements))  # fmt: skip
    venv = tmp / "venv"
    sh("venv", "-q", str(venv), "--python", sys.executable)
    python = venv / "bin" / "python"
    sh("pip", "install", "-q", "--python", str(python), "-r", str(requirements), str(wheel))
    return venv


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPS_", "PYTHON"))}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", OPS_EVAL_CACHE=str(cwd / "cache"))
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True)


def test_the_wheel_validates_and_loads_its_seed_outside_the_repository(installed, tmp_path):
    code = "import ops_copilot.settings as s, ops_eval; print(s.data_root(), ops_eval.__file__)"
    where = _run(installed, str(installed / "bin" / "python"), "-c", code, cwd=tmp_path)
    data_root, harness = where.stdout.split()
    assert Path(data_root).is_relative_to(installed) and Path(data_root).name == "_data"
    assert Path(harness).is_relative_to(installed)  # not the checkout's copy

    sets, cases = _checkout_counts()
    validated = _run(installed, str(installed / "bin" / "ops-eval"), "validate", cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.strip() == f"ok: {sets} eval set(s), {cases} cases agree with the seed"

    seed = _run(installed, str(installed / "bin" / "ops-eval"), "seed", cwd=tmp_path)
    assert seed.returncode == 0, seed.stdout + seed.stderr
    assert seed.stdout.startswith("seed ok: 8 services, 10 incidents, 7 runbooks, 5 logs, 2 skills")
