"""A third agent, written as a team would write theirs (`ticket_desk/`: two tools, a tiny seed,
one write that waits for approval), evaluated through its port with no change to the harness:
docs/your-agent.md is followed step by step -- its shell commands through the CLI and its
Python through the library, in the order the page gives them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from ops_eval.cli import main

HERE = Path(__file__).parent
PAGE = HERE.parents[1] / "docs" / "your-agent.md"
BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.S)


@pytest.fixture
def desk(tmp_path, monkeypatch):
    """The page's working folder: the agent and its set where the page says, runs kept here."""
    copy = tmp_path / "tests" / "your_agent"
    shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("test_*", "__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(copy))
    monkeypatch.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path


def _steps() -> list[tuple[str, str]]:
    """The page's runnable blocks, in order: each shell line, and each Python block that plays
    (the declaration sketches of steps 1 and 2 are shown, not run: the agent has them)."""
    steps = []
    for lang, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        if lang == "sh":
            steps += [("sh", line) for line in body.splitlines() if line.strip()]
        elif "execute(" in body:
            steps.append(("python", body))
    return steps


def test_the_page_followed_step_by_step_validates_plays_gates_and_mutates_the_third_agent(
    desk, capsys
):
    steps = _steps()
    assert [kind for kind, _ in steps] == ["sh", "python", "sh", "sh"], steps
    said = {}
    for kind, step in steps:
        if kind == "python":
            exec(compile(step, str(PAGE), "exec"), {})
            continue
        argv = shlex.split(step)
        assert argv[0] == "ops-eval", step
        assert main(argv[1:]) == 0, (step, capsys.readouterr())
        said[argv[1]] = capsys.readouterr().out
    assert "2 cases agree with the seed" in said["validate"]
    for name in ("baseline", "candidate"):
        record = json.loads((desk / f"{name}.json").read_text())
        assert [(t["case_id"], t["status"]) for t in record["trials"]] == [
            ("ticket-status-t2", "passed"),
            ("close-t1-approved", "passed"),
        ]
        closing = record["trials"][1]
        assert closing["scores"]["end_state"]["outcome"] == "pass"
        assert closing["state_after"] == {
            "tickets": {"T-1": "closed", "T-2": "open", "T-3": "closed"}
        }
    assert "gate: PASSED" in said["gate"]
    verdicts = dict(re.findall(r"^(port-[a-z-]+)\s+\w+\s+(\w+)", said["mutate"], re.M))
    assert verdicts == {
        "port-approval-skipped": "killed",
        "port-write-unapplied": "killed",
        "port-read-not-found": "survived",
    }


def test_an_id_the_desk_seed_lacks_is_named_with_the_closest_one(desk, capsys):
    path = desk / "tests" / "your_agent" / "ticket_desk.evalset.json"
    data = json.loads(path.read_text())
    data["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"] = {
        "ticket_id": "T-22"
    }
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "get_ticket.ticket_id: 'T-22' is not a ticket in the seed (did you mean 'T-2'?)" in out


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (["T-2", "t 2"], None),  # the desk's ids, read with the desk's own normaliser
        (["T-2", "T-9"], "one_of value 'T-9' is not ticket in the seed"),
    ],
)
def test_a_matcher_on_the_desk_is_held_to_the_desk_seed(desk, capsys, values, said):
    """Contracts name the case's agent's entities: before, they were read against the ops
    copilot's seed, so every desk ticket was 'not in the seed'."""
    path = desk / "tests" / "your_agent" / "ticket_desk.evalset.json"
    data = json.loads(path.read_text())
    matcher = {"match": "one_of", "values": values}
    data["eval_cases"][0]["meta"]["contracts"] = {"args": {"get_ticket": {"ticket_id": matcher}}}
    path.write_text(json.dumps(data))
    code = main(["validate", str(path)])
    out = capsys.readouterr().out
    if said is None:
        assert code == 0, out
    else:
        assert code == 1 and said in out and out.count("one_of value") == 1, out


def test_a_case_naming_an_agent_that_declares_no_port_is_one_line(desk, capsys):
    path = desk / "tests" / "your_agent" / "ticket_desk.evalset.json"
    data = json.loads(path.read_text())
    data["eval_cases"][0]["meta"]["agent"] = "ticket_dsek"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "meta.agent: agent 'ticket_dsek': no package 'ticket_dsek' with a `port` module" in out


def test_a_write_the_approver_gave_no_reason_for_is_refused_by_the_desk_itself(desk):
    """The desk's own rule, reached through the port's state and tools alone."""
    from types import SimpleNamespace

    from ticket_desk.port import PORT

    from ops_eval.core.direct import DirectContext

    state = PORT.state.fresh(PORT.load_seed(None))
    bare = SimpleNamespace(confirmed=True, payload={})
    with DirectContext(state, "direct", "support", bare, "ticket_desk") as direct:
        assert direct.call("close_ticket", ticket_id="t 1")["status"] == "refused"
    assert PORT.state.snapshot(state)["tickets"]["T-1"] == "open"


def _unnamed_set(desk: Path) -> Path:
    """The desk's set with no case naming its agent: the agent comes from `--agent`."""
    path = desk / "tests" / "your_agent" / "ticket_desk.evalset.json"
    data = json.loads(path.read_text())
    for case in data["eval_cases"]:
        del case["meta"]["agent"]
    path.write_text(json.dumps(data))
    return path


def test_agent_chooses_the_agent_of_every_case_that_names_none(desk, capsys, monkeypatch):
    from fake_openai import after_tool_results, fake_openai, text, tool_call

    path = _unnamed_set(desk)
    assert main(["validate", str(path)]) == 1  # read as the ops copilot's: not its tools
    assert "'get_ticket' is not a tool of agent ops_copilot" in capsys.readouterr().out
    assert main(["validate", "--agent", "ticket_desk", str(path)]) == 0
    assert "2 cases agree with the seed" in capsys.readouterr().out

    answer = after_tool_results(
        tool_call("get_ticket", {"ticket_id": "T-2"}),
        text("Ticket T-2 (VPN drops every hour) is open."),
    )
    out = desk / "run.json"
    with fake_openai(answer) as (base, _):
        monkeypatch.setenv("OPS_AGENT_MODEL", "openai/fake")
        monkeypatch.setenv("OPS_AGENT_BASE_URL", base)
        argv = ["run", "--agent", "ticket_desk", "--set", str(path), "--cases", "ticket-status-t2"]
        assert main([*argv, "--output", str(out)]) == 0, capsys.readouterr()
    record = json.loads(out.read_text())
    [trial] = record["trials"]
    assert (trial["case_id"], trial["status"]) == ("ticket-status-t2", "passed"), trial
    assert trial["scores"]["trajectory"]["outcome"] == "pass"
    assert list(record["instruction_sha256"]) == ["ticket_desk"], record.keys()

    main(["mutate", "--agent", "ticket_desk", "--set", str(path)])
    assert "ticket_desk.evalset.json: 2/3 (67%)" in capsys.readouterr().out


def test_agent_refuses_a_case_written_for_another_agent_and_an_agent_without_a_port(desk, capsys):
    triage = Path(__file__).parents[2] / "evals" / "triage-report.evalset.json"
    assert main(["validate", "--agent", "ticket_desk", str(triage)]) == 1
    assert (
        "case triage-inc-002, meta.agent: the case is for agent 'triage_report', and --agent "
        "chose 'ticket_desk'" in capsys.readouterr().out
    )
    assert main(["validate", "--agent", "ticket_dsek", str(_unnamed_set(desk))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --agent: agent 'ticket_dsek': no package 'ticket_dsek'"), err
    assert len(err.strip().splitlines()) == 1
    assert main(["validate", str(triage)]) == 0  # the choice ended with its command


def test_an_agent_declaring_an_answer_schema_has_its_references_held_to_it(desk, capsys):
    """No harness change: a port with an `answer_schema` makes the validator read every
    reference answer of its cases as that schema (the triage agent's rule, for any agent)."""
    package = desk / "tests" / "your_agent" / "desk_reports"
    package.mkdir()
    (package / "__init__.py").write_text('"""The desk, answering in JSON."""\n')
    (package / "port.py").write_text(
        "from dataclasses import replace\n\n"
        "from pydantic import BaseModel\n\n"
        "from ticket_desk.port import PORT as DESK\n\n\n"
        "class Status(BaseModel):\n"
        "    ticket_id: str\n"
        "    open: bool\n\n\n"
        'PORT = replace(DESK, name="desk_reports", answer_schema=Status)\n'
    )
    path = _unnamed_set(desk)
    assert main(["validate", "--agent", "desk_reports", str(path)]) == 1
    out = capsys.readouterr().out
    assert "case ticket-status-t2, turn 1, final_response: reference is not a Status" in out
    data = json.loads(path.read_text())
    for case in data["eval_cases"]:
        case["conversation"][0]["final_response"]["parts"][0]["text"] = json.dumps(
            {"ticket_id": "T-2", "open": True}
        )
    path.write_text(json.dumps(data))
    assert main(["validate", "--agent", "desk_reports", str(path)]) == 0, capsys.readouterr()
