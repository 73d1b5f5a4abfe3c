"""The offline commands never import MLflow (an optional group, seconds to import): `validate`,
`redteam`, `report`, `gate`, `history`, and `mlflow` itself when it refuses its input, run with
MLflow installed and leave it out of `sys.modules`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import REPO

PROBE = """
import sys
from ops_eval.cli import main
code = main(sys.argv[1:])
leaked = sorted(m for m in sys.modules if m == "mlflow" or m.startswith("mlflow."))
print("LEAKED" if leaked else "CLEAN", code, leaked[:3])
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["redteam", "--attacks", "override-db-log-resolve-inc-002"],
        ["report"],  # no run yet: refused, after its imports
        ["gate"],
        ["history"],
        ["mlflow", "--from-run", "no-such-run", "--cases", "x"],  # refused before MLflow
        ["mlflow-ui", "--port", "0"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_offline_commands_never_import_mlflow(argv, tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPS_RUNS_DIR": str(tmp_path),
        "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'none.db'}",
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "CLEAN" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "none.db").exists()  # nothing was logged


STARTUP = """
import sys
from ops_eval.cli import build_parser
build_parser()
heavy = sorted(m for m in sys.modules if m in ("yaml", "pydantic", "google.adk", "litellm"))
import ops_eval.commands.run, ops_eval.running.execute, ops_eval.running.trials
import ops_eval.validation.plan
rules = sorted(m for m in sys.modules if m.startswith("ops_eval.validation.") and (
    m.endswith("_rules") or m.endswith(".validator")))
print(heavy, rules)
"""


def probe(code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter, in the repository, with nothing of this process's."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        cwd=REPO,
        timeout=120,
    )


def test_the_parser_and_a_live_runs_modules_load_no_validator_rule_and_nothing_heavy():
    """Building the whole parser imports no command's machinery, and the live run's modules
    reach the validator through one call (`validation.plan.load_plan` -> `validator.check`),
    never by importing its rule modules: they load only when a set is validated."""
    proc = probe(STARTUP)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[] []"


VALIDATE_ONLY = """
import sys
from ops_eval.cli import main
code = main(["validate"])
heavy = sorted(m for m in ("google.adk.runners", "litellm", "ops_eval.playing.session",
                           "pydantic_settings") if m in sys.modules)
commands = sorted(m for m in sys.modules if m.startswith("ops_eval.commands."))
print(code, heavy, commands)
"""


def test_validate_never_imports_the_agents_runtime():
    """`ops-eval validate` checks scenarios with the scripted user's own rules, never through
    the modules that play a conversation: ADK's Runner and LiteLLM take a second to import,
    and the offline gate must start fast. Nor pydantic-settings, which cost a warm validation
    as much as pydantic itself: the settings read their variables themselves. Nor another
    command's module: a command line that names its command builds that command's parser
    alone (`gate_override` is asked first whether the line is `gate override ...`)."""
    proc = probe(VALIDATE_ONLY)
    said = proc.stdout.strip().splitlines()[-1]
    expected = "0 [] ['ops_eval.commands.gate_override', 'ops_eval.commands.validate']"
    assert said == expected, proc.stdout + proc.stderr
