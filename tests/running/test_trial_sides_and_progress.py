"""Inside a trial, through `ops-eval run` against a scripted OpenAI-compatible server (a stand-in
named as such: `fake_openai`): a trial silent a while prints a progress line with its case, turn,
model call and elapsed time (under minimal data, nothing the trial said); and an errored trial
names the side that failed -- a scenario whose simulated user ran out of time is the user's
failure in the trial's error and in the run's closing note, never "the model is unreachable"."""

from __future__ import annotations

import json
import re
import time

import pytest

from fake_openai import fake_openai, text, tool_call
from ops_eval import load_record
from ops_eval.cli import main

PLANTED = "Zebra quasar marmalade 4471 is the planted answer"
PROGRESS = re.compile(
    r"^  (?P<case>[\w-]+) #(?P<repeat>\d+): turn (?P<turn>\d+), (?P<doing>.+), \d+ s$"
)


@pytest.fixture
def short_silence(monkeypatch):
    """A trial counts as silent after 0.1 s (10 s in a run), and says so at most that often."""
    from ops_eval.running import heartbeat

    monkeypatch.setattr(heartbeat, "SILENCE_S", 0.1)
    monkeypatch.setattr(heartbeat, "STILL_S", 0.3)


def slow(seconds: float, answer: str):
    def reply(request: dict) -> dict:
        time.sleep(seconds)
        return text(answer)

    return reply


def run(ops_env, base: str, *argv: str) -> int:
    ops_env.setenv("OPS_AGENT_BASE_URL", base)
    return main(["run", "--model", "openai/fake", *argv])


def test_a_silent_trial_prints_a_progress_line_with_its_turn_call_and_elapsed_time(
    tmp_path, ops_env, capsys, short_silence
):
    out = tmp_path / "run.json"
    with fake_openai(slow(0.5, "Inventory is down.")) as (base, _):
        run(ops_env, base, "--cases", "open-incidents", "--output", str(out))
    err = capsys.readouterr().err.splitlines()
    lines = [m for m in map(PROGRESS.match, err) if m]
    assert lines, err
    first = lines[0]
    assert (first["case"], first["repeat"], first["turn"]) == ("open-incidents", "1", "1")
    assert first["doing"] == "model call 1"
    # never more than one line per silence for the trial: a 0.5 s call, lines 0.1 s apart at most
    assert len(lines) <= 6
    assert load_record(out).trials[0].seconds >= 0.5  # and nothing of it in the record


def test_under_minimal_data_a_progress_line_holds_nothing_the_trial_said(
    tmp_path, ops_env, capsys, short_silence
):
    ops_env.setenv("OPS_EVAL_DATA_KEY", "team-key-0123456789abcdef")
    out = tmp_path / "run.json"
    with fake_openai(slow(0.5, PLANTED)) as (base, _):
        run(ops_env, base, "--cases", "open-incidents", "--data", "minimal", "--output", str(out))
    err = capsys.readouterr().err.splitlines()
    lines = [m for m in map(PROGRESS.match, err) if m]
    assert lines, err
    for line in lines:  # the case id, counts and seconds: the harness's words, no more
        assert line["case"] == "open-incidents" and re.fullmatch(r"model call \d+", line["doing"])
    assert not any("zebra" in line.lower() or "4471" in line for line in err)


def test_a_scenario_whose_simulated_user_times_out_is_the_users_failure_not_the_models(
    evals, ops_env, capsys
):
    """The agent answers at once; the simulated user's model takes longer than the scenario's
    time limit. The trial's error, the run's note and the printed close name the user."""
    sets = evals / "scenarios.evalset.json"
    data = json.loads(sets.read_text())
    for case in data["eval_cases"]:
        if case["eval_id"] == "scn-restart-after-risk":
            case["meta"]["scenario"]["limits"] = {"turns": 6, "seconds": 3}
    sets.write_text(json.dumps(data))

    def reply(request: dict) -> dict:
        if "Simulated User" in json.dumps(request["messages"]):
            time.sleep(5)  # past the limit: the user's step is running when it runs out
            return text("Thanks. </finished>")
        return text("Inventory is down. Do you want me to restart it?")

    out = evals.parent / "run.json"
    with fake_openai(reply) as (base, _):
        code = run(ops_env, base, "--set", str(sets), "--cases", "scn-restart-after-risk",
                   "--user", "model", "--output", str(out))  # fmt: skip
    printed = capsys.readouterr()
    record = load_record(out)
    (trial,) = record.trials
    assert code == 3 and trial.status == "error"
    assert trial.conversation.blame == "user" and trial.conversation.ended_by == "time-limit"
    assert trial.error == (
        "simulated user: timed out (the scenario's limit of 3 s ran out during its reply)"
    )
    note = (
        "every trial errored: the simulated user timed out in 1 of 1 (the scenario's limit of "
        "3 s ran out during its reply)"
    )
    assert record.notes == [note]
    assert note in printed.out
    assert "simulated user: timed out" in printed.err  # the trial's own line
    assert "unreachable" not in printed.out + printed.err
    assert "the model failed" not in printed.out + printed.err


def test_a_tool_that_raises_is_the_tools_failure(tmp_path, ops_env, monkeypatch):
    import ops_copilot.tools.reads as reads

    works, playing = reads.workspace_for, []

    def down(tool_context):  # once the trial plays (the set's validation replays the tools)
        if playing:
            raise RuntimeError("status backend down")
        return works(tool_context)

    monkeypatch.setattr(reads, "workspace_for", down)
    out = tmp_path / "run.json"

    def reply(request: dict) -> dict:
        if request["messages"][-1]["role"] == "tool":
            return text("Here is what I found.")
        playing.append(True)
        return tool_call("list_services", {})

    with fake_openai(reply) as (base, _):
        code = run(ops_env, base, "--cases", "service-status-inventory", "--output", str(out))
    record = load_record(out)
    assert code == 3
    assert record.trials[0].error == (
        "tool fault: list_services raised RuntimeError: status backend down"
    )
    assert record.notes == [
        "every trial errored: a tool raised in 1 of 1 (list_services raised RuntimeError: "
        "status backend down)"
    ]


def test_a_user_whose_model_raises_is_the_users_failure(tmp_path):
    from scenario_models import RISK_LINES, Duet, duet

    from ops_eval.models.stand_ins import fixed_model
    from ops_eval.running.execute import execute
    from ops_eval.running.options import RunOptions
    from support import REPO

    class Unreachable(Duet):
        async def generate_content_async(self, llm_request, stream=False):
            text = "".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
            if "Simulated User" in text:
                raise ConnectionError("user model hung up")
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    model = Unreachable(turns=duet(RISK_LINES).turns, lines=RISK_LINES)
    code, record, _ = execute(
        RunOptions(set_path=REPO / "evals" / "scenarios.evalset.json", output=tmp_path / "r.json",
                   cases=["scn-restart-after-risk"], users="model"),
        chooser=fixed_model(model, "unreachable", "a scripted stand-in"),
    )  # fmt: skip
    assert code == 3
    assert record.trials[0].error == (
        "simulated user: the user's model failed (ConnectionError: user model hung up)"
    )
    assert record.notes[0].startswith("every trial errored: the simulated user failed in 1 of 1")
