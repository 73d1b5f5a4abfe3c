"""Ctrl-C during a live `ops-eval mlflow`: one `error: interrupted` line, exit 3, promptly, no
run record, and the logged model ends FAILED. The command runs in a child process (the signal
is real); its model is the oracle slowed down, so the interrupt lands mid-conversation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from mlflow_readback import error_lines, logged_models

from support import REPO

MARKER = "SLOW-MODEL-CALLED"

INTERRUPTED_SCRIPT = """
import asyncio
import os
import sys
from pathlib import Path

repo, db, runs, marker = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
sys.path[:0] = [str(repo / "evals"), str(repo / "agents")]
os.environ["MLFLOW_TRACKING_URI"] = "sqlite:///" + db
os.environ["OPS_RUNS_DIR"] = runs
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import ops_eval.models as models
from ops_eval import read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model


class Slow(OracleLlm):
    model: str = "slow"

    async def generate_content_async(self, llm_request, stream=False):
        print(marker, file=sys.stderr, flush=True)
        await asyncio.sleep(2)
        async for response in super().generate_content_async(llm_request, stream):
            yield response


slow = Slow.from_cases(read_evalset(repo / "evals" / "ops.evalset.json").cases)
models.choose_model = fixed_model(slow, "slow", "deterministic slow test model")
sys.exit(main(
    ["mlflow", "--cases",
     "open-incidents,list-skills,incident-detail-inc-002,service-status-inventory"]
))
"""


def test_ctrl_c_during_a_live_evaluation_exits_3_promptly_with_the_model_failed(
    tmp_path, mlflow_installed
):
    """Guards: `ops-eval mlflow` turning KeyboardInterrupt into one `error: interrupted` line and
    exit 3 (no traceback), and `LoopThread.close` cancelling the conversations MLflow's worker
    threads still wait on (without it the process never exits); the logged model ends
    FAILED."""
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED_SCRIPT)
    db, runs = tmp_path / "mlflow.db", tmp_path / "runs"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "OPS_RUNS"))}
    err_path = tmp_path / "stderr.txt"
    with err_path.open("w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(REPO), str(db), str(runs), MARKER],
            stdout=subprocess.PIPE,
            stderr=err_file,
            env=env,
            cwd=tmp_path,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while MARKER not in err_path.read_text():
                assert proc.poll() is None, f"exited {proc.returncode}: {err_path.read_text()}"
                assert time.monotonic() < deadline, "the first conversation never started"
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the command did not exit within 60 s of Ctrl-C")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    err = err_path.read_text()
    assert proc.returncode == 3, out + err
    lines = error_lines(err)
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert "Traceback" not in err
    assert not list(runs.glob("*.json"))  # no run record
    models = logged_models(f"sqlite:///{db}")
    assert models and all(m.status.name == "FAILED" for m in models), [m.status for m in models]
