"""`adk eval` runs the eval set unchanged with a replayed model (google-adk[eval] is in dev),
through `evals/replay_agent`, the real agent wrapped around a recording."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

SET = REPO / "evals" / "ops.evalset.json"


@pytest.mark.e2e
def test_adk_eval_passes_the_ops_set_with_a_replayed_model(tmp_path):
    recording = tmp_path / "oracle.jsonl"

    oracle = fixed_model(OracleLlm.from_cases(read_evalset(SET).cases), "oracle", "recording")
    with open(os.devnull, "w") as null:
        code, _, _ = execute(
            RunOptions(record=recording, output=tmp_path / "run.json"),
            chooser=oracle, out=null, err=null,
        )  # fmt: skip
    assert code == 0
    history = REPO / "evals" / "replay_agent" / ".adk" / "eval_history"
    before = set(history.glob("*")) if history.exists() else set()
    env = {**os.environ, "OPS_AGENT_MODEL": f"replay:{recording}",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    adk = Path(sys.executable).with_name("adk")
    try:
        proc = subprocess.run(
            [str(adk), "eval", "evals/replay_agent", str(SET)],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    finally:
        for path in (set(history.glob("*")) - before) if history.exists() else []:
            path.unlink()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    cases = len(read_evalset(SET).cases)
    assert f"Tests passed: {cases}" in proc.stdout and "Tests failed: 0" in proc.stdout


def test_replay_agent_without_a_recording_file_says_so():
    """`OPS_AGENT_MODEL=replay:` names no file: the agent says what is missing, not that '.' is
    a folder."""
    env = {**os.environ, "OPS_AGENT_MODEL": "replay:", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    code = "import sys; sys.path.insert(0, 'evals'); import replay_agent.agent"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    assert "replay: needs a recording file (replay:FILE)" in proc.stderr
    assert "is a folder" not in proc.stderr
