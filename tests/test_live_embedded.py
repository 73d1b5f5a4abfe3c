"""The real live path, end to end: the embedded llama.cpp server, LiteLLM, the real agent.

This is slow (on a fresh machine the first run also compiles llama.cpp), and it is never skipped
silently: only OPS_SKIP_EMBEDDED_TEST=1 skips it, and the skip says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from ops_eval.settings import current

SKIP = current().skip_embedded_test


@pytest.mark.skipif(
    SKIP, reason="OPS_SKIP_EMBEDDED_TEST=1: the embedded llama.cpp end-to-end test was skipped"
)
def test_embedded_model_runs_a_case_end_to_end(tmp_path):
    record_path = tmp_path / "run.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPS_AGENT_")}
    env["OLLAMA_API_BASE"] = "http://127.0.0.1:9"  # an Ollama on this machine must not be picked
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    ops_eval = Path(sys.executable).with_name("ops-eval")
    proc = subprocess.run(
        [str(ops_eval), "run", "--cases", "service-status-inventory", "--output", str(record_path)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "far too small to pass the gate" in proc.stdout
    record = json.loads(record_path.read_text())
    assert record["model"]["source"] == "embedded"
    (trial,) = record["trials"]
    assert trial["status"] in ("passed", "failed"), trial.get("error")
    (turn,) = trial["turns"]
    assert turn["prompt_tokens"] > 0 and turn["output_tokens"] > 0  # a real model answered
    assert turn["response"]
    assert set(trial["scores"]) == {"trajectory", "tool_policy", "complete", "facts", "end_state"}
    leftovers = subprocess.run(["pgrep", "-f", "llama_cpp.server"], capture_output=True, text=True)
    assert leftovers.stdout.strip() == "", "the embedded server outlived the run"
