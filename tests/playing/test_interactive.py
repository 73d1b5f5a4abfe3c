"""`mise run chat` and `mise run web`: ADK's own CLIs with the model chosen as for a live eval,
the dev UI listing the project's eval sets, and the embedded model's server gone afterwards."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from fake_openai import after_tool_results, fake_openai, text, tool_call
from processes import TAG, llama_servers, new_tag
from support import REPO

OPS_EVAL = Path(sys.executable).with_name("ops-eval")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPS_AGENT_")}
    env["OLLAMA_API_BASE"] = "http://127.0.0.1:9"  # an Ollama on this machine must not be picked
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return {**env, **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, body: dict | None = None, timeout: float = 120) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (loopback)
        return json.loads(response.read())


@pytest.mark.e2e
def test_the_dev_ui_lists_both_agents_eval_sets_and_runs_a_case():
    """One source: the agents' folders link the files of evals/, and a case runs from the UI."""
    for agent, sets in {
        "ops_copilot": ["holdout", "ops", "scenarios"],
        "triage_report": ["triage-report"],
    }.items():
        for name in sets:
            link = REPO / "agents" / agent / f"{name}.evalset.json"
            assert link.is_symlink() and link.resolve() == REPO / "evals" / f"{name}.evalset.json"
    reply = after_tool_results(tool_call("list_skills", {}), text("Two skills."))
    port = free_port()
    with fake_openai(reply) as (base, received):
        env = clean_env(OPS_AGENT_MODEL="openai/fake", OPS_AGENT_BASE_URL=base)
        proc = subprocess.Popen(
            [str(OPS_EVAL), "web", "--port", str(port)], cwd=REPO, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(240):
                try:
                    listed = get(f"{url}/dev/apps/ops_copilot/eval-sets")
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                pytest.fail("the dev UI server did not answer")
            assert sorted(listed["evalSetIds"]) == ["holdout", "ops", "scenarios"]
            triage = get(f"{url}/dev/apps/triage_report/eval-sets")
            assert triage["evalSetIds"] == ["triage-report"]
            metric = {"metric_name": "tool_trajectory_avg_score", "threshold": 1.0,
                      "criterion": {"threshold": 1.0, "match_type": "IN_ORDER"}}  # fmt: skip
            ran = get(
                f"{url}/dev/apps/ops_copilot/eval-sets/ops/run",
                {"eval_case_ids": ["list-skills"], "eval_metrics": [metric]},
            )
            (result,) = ran["runEvalResults"]
            assert result["evalId"] == "list-skills" and result["finalEvalStatus"] == 1  # PASSED
            assert any(m["role"] == "tool" for r in received for m in r["messages"])
        finally:
            proc.terminate()
            out, _ = proc.communicate(timeout=30)
    assert "model: openai/fake (from OPS_AGENT_MODEL)" in out


@pytest.mark.e2e
@pytest.mark.skipif(
    os.environ.get("OPS_SKIP_EMBEDDED_TEST") == "1",
    reason="OPS_SKIP_EMBEDDED_TEST=1: the embedded llama.cpp chat test was skipped",
)
def test_mise_run_chat_answers_from_the_embedded_model_and_stops_its_server(tmp_path):
    mise = shutil.which("mise")
    cmd = [mise, "run", "-q", "chat"] if mise else [str(OPS_EVAL), "chat"]
    tag = new_tag()  # its server told apart from any other on this machine
    env = clean_env(OPS_RUNS_DIR=str(tmp_path), **{TAG: tag})
    before = llama_servers(tag)
    proc = subprocess.run(
        cmd, input="Hello!\nexit\n", cwd=REPO, env=env, capture_output=True, text=True,
        timeout=1800,
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert "model: openai/smollm2-135m-instruct (embedded llama.cpp" in out
    assert "replies are not constrained to open with a tool call" in out
    assert "first reply to each message is constrained" not in out  # the run's caveat, not said
    answer = next(ln for ln in out.splitlines() if ln.startswith("[ops_copilot]:"))
    assert len(answer) > len("[ops_copilot]: ") + 5  # the model said something
    assert "Traceback" not in proc.stderr
    assert llama_servers(tag) <= before, "the embedded server outlived the chat"


def test_a_model_that_cannot_be_reached_is_one_line_for_chat_and_web():
    for command in ("chat", "web"):
        proc = subprocess.run(
            [str(OPS_EVAL), command, "--model", "ollama_chat/qwen3:4b-instruct"],
            cwd=REPO, env=clean_env(), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 3, proc.stderr
        assert proc.stderr.strip() == (
            "error: model unavailable: Ollama at http://127.0.0.1:9 does not answer "
            "([Errno 111] Connection refused)"
        )


def test_a_recording_cannot_serve_chat(tmp_path):
    recording = tmp_path / "rec.jsonl"
    recording.write_text('{"version": 1, "model": "x"}\n')
    proc = subprocess.run(
        [str(OPS_EVAL), "chat", "--model", f"replay:{recording}"],
        cwd=REPO, env=clean_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "a recording answers `ops-eval run`" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.e2e
def test_ctrl_c_ends_the_dev_ui_as_a_normal_stop():
    """Found in review: every Ctrl-C used to end `mise run web` as an infrastructure error."""
    import signal

    port = free_port()
    with fake_openai(lambda request: text("hi")) as (base, _):
        env = clean_env(OPS_AGENT_MODEL="openai/fake", OPS_AGENT_BASE_URL=base)
        proc = subprocess.Popen(
            [str(OPS_EVAL), "web", "--port", str(port)], cwd=REPO, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        for _ in range(240):
            try:
                get(f"http://127.0.0.1:{port}/list-apps")
                break
            except OSError:
                time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert "error:" not in err


def test_a_broken_temperature_is_bad_configuration_before_any_model():
    for command in (["chat"], ["run", "--cases", "list-skills"]):
        proc = subprocess.run(
            [str(OPS_EVAL), *command], cwd=REPO, env=clean_env(OPS_AGENT_TEMPERATURE="warm"),
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == (
            "error: OPS_AGENT_TEMPERATURE: 'warm' is not a number from 0 to 2"
        )


@pytest.mark.e2e
def test_chat_with_agent_talks_to_that_agent_through_its_port():
    """`--agent` serves a package the project did not write (the third agent of the tests): its
    own tools reach the model, and its tool reads its own seed."""
    reply = after_tool_results(tool_call("get_ticket", {"ticket_id": "T-1"}), text("T-1 is open."))
    with fake_openai(reply) as (base, received):
        env = clean_env(
            OPS_AGENT_MODEL="openai/fake", OPS_AGENT_BASE_URL=base,
            PYTHONPATH=str(REPO / "tests" / "your_agent"),
        )  # fmt: skip
        proc = subprocess.run(
            [str(OPS_EVAL), "chat", "--agent", "ticket_desk"], input="What is T-1?\nexit\n",
            cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "[ticket_desk]: T-1 is open." in proc.stdout
    assert {t["function"]["name"] for t in received[0]["tools"]} == {"get_ticket", "close_ticket"}
    result = [m for m in received[-1]["messages"] if m["role"] == "tool"]
    assert "Printer on floor 2 jams on every job" in result[0]["content"]
    assert "Traceback" not in proc.stderr


def test_an_agent_without_a_port_is_one_line_for_chat_and_web():
    for command in ("chat", "web"):
        proc = subprocess.run(
            [str(OPS_EVAL), command, "--agent", "no_such_desk"],
            cwd=REPO, env=clean_env(), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == (
            "error: --agent: agent 'no_such_desk': no package 'no_such_desk' with a `port` "
            "module on the path (see docs/your-agent.md)"
        )
