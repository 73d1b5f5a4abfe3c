"""The live runner with deterministic models: gate pass and fail, approvals, errors, repeats and
pass^k, exit codes, concurrency, and record -> replay round trips."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
from pathlib import Path

import pytest

from ops_copilot.guards.answer_guard import WARNING
from ops_eval import (
    OpsEvalError,
    RunOptions,
    ToolCall,
    execute,
    in_order,
    load_record,
    read_evalset,
)
from ops_eval.models.stand_ins import OracleLlm, ReplayLlm, Saboteur, fixed_model
from ops_eval.scorers import registered
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = read_evalset(OPS).cases


def chooser_for(model):
    return fixed_model(model, getattr(model, "model", "test"), "deterministic test model")


def run(tmp_path: Path, model, **options):
    opts = RunOptions(output=tmp_path / "run.json", **options)
    code, record, path = execute(opts, chooser=chooser_for(model))
    assert load_record(path) == record  # what was written is what was returned
    return code, record


def prompt_of(case_id: str, turn: int = 1) -> str:
    return next(c for c in CASES if c.eval_id == case_id).turns[turn - 1].prompt


def test_gate_passes_with_a_perfect_agent(tmp_path):
    code, record = run(tmp_path, OracleLlm.from_cases(CASES))
    assert code == 0 and record.gate_passed
    assert record.total.rate.passed == len(CASES) and record.total.errors == 0
    assert {s.name for s in record.scorers} == set(registered())
    assert set(registered()) >= {
        "budget",
        "call_order",
        "forbidden_calls",
        "trajectory",
        "tool_policy",
        "complete",
        "facts",
        "end_state",
        "fault_handling",
        "contract_mode",
        "partial_credit",
    }
    assert record.seed_sha256 and record.tool_schema_sha256 and record.instruction_sha256
    assert record.schema_version == 6 and record.git_commit
    # Each trial names the version of its case the run played: its content hash, its lock line.
    from ops_eval.core.case_lock import versions

    played = {t.case_id: (t.case_version, t.case_sha256) for t in record.trials}
    assert played == {c: v for c, v in versions(read_evalset(OPS)).items() if c in played}
    assert record.eval_set_cases == len(read_evalset(OPS).cases)
    assert record.scoring and list(record.scoring) == [s.name for s in record.scorers]


def test_every_defence_on_leaves_every_oracle_answer_of_the_ops_set_as_written(tmp_path):
    """Benign utility: with spotlighting, the link guard and the answer guard on, the scripted
    oracle passes every ops case and no guard touched any of its answers (no link removed, no
    claim or quote flagged)."""
    code, record = run(tmp_path, OracleLlm.from_cases(CASES))
    assert code == 0 and record.total.rate.passed == len(CASES)
    turns = [t for trial in record.trials for t in trial.turns]
    assert turns and not [
        (t.index, text) for t in turns for text in [t.response, *t.texts]
        if WARNING in text or "removed: untrusted link" in text
    ]  # fmt: skip


def test_gate_fails_when_a_call_is_missing(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.skip_first_call_on = {prompt_of("recommend-fix-inc-002")}
    code, record = run(tmp_path, model, cases=["recommend-fix-inc-002", "open-incidents"])
    assert code == 1 and not record.gate_passed
    gates = {c.case_id: c.gate for c in record.cases}
    assert gates == {"recommend-fix-inc-002": False, "open-incidents": True}
    trial = record.trials[0]
    assert trial.scores["trajectory"].value == 0.0 and trial.status == "failed"


def test_approval_is_answered_and_the_end_state_checked(tmp_path):
    code, record = run(
        tmp_path,
        OracleLlm.from_cases(CASES),
        cases=["approve-restart-inventory", "deny-restart-database", "restart-needs-approval"],
    )
    assert code == 0
    by_case = {t.case_id: t for t in record.trials}
    approved = by_case["approve-restart-inventory"]
    assert approved.turns[0].answered == ["approve"]
    assert approved.state_after["services"]["inventory"] == "operational"
    assert approved.state_after["audit"] == 1
    denied = by_case["deny-restart-database"]
    assert denied.turns[0].answered == ["deny"] and denied.state_after["audit"] == 0
    paused = by_case["restart-needs-approval"]
    assert paused.turns[0].answered == [] and paused.turns[0].response_synthesized is True
    assert paused.turns[0].response == (
        "Waiting for approval: restart_service(name=inventory). No state change."
    )
    assert [c.name for c in paused.turns[0].pending] == ["restart_service"]
    assert paused.state_after["services"]["inventory"] == "down"


def test_a_write_the_case_did_not_approve_fails_the_end_state(tmp_path):
    """An agent that resolves the wrong incident under an approval is caught by the end state."""
    model = OracleLlm.from_cases(CASES)
    prompt = prompt_of("approve-restart-inventory")
    _, reference = model.turns[prompt]
    model.turns = {
        **model.turns,
        prompt: (
            [
                ToolCall("restart_service", {"name": "inventory"}),
                ToolCall("resolve_incident", {"incident_id": "INC-002"}),
            ],
            reference,
        ),
    }
    code, record = run(tmp_path, model, cases=["approve-restart-inventory"])
    scores = record.trials[0].scores
    assert code == 1
    assert not scores["tool_policy"].passed and not scores["end_state"].passed
    assert "incident INC-002 is resolved, expected open" in scores["end_state"].detail


def test_error_trials_are_kept_out_of_rates_and_the_run_goes_on(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.crash_on = {prompt_of("open-incidents")}
    code, record = run(tmp_path, model, cases=["open-incidents", "list-skills"], repeats=2)
    assert code == 3  # a case without any valid trial has no verdict: infrastructure
    errors = [t for t in record.trials if t.status == "error"]
    assert len(errors) == 2 and all(
        "ConnectionError: model server hung up" in t.error for t in errors
    )
    assert record.total.rate.n == 2 and record.total.errors == 2
    gates = {c.case_id: c.gate for c in record.cases}
    assert gates == {"open-incidents": None, "list-skills": True}


def test_every_trial_erroring_is_infrastructure(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.crash_on = {t.prompt for c in CASES for t in c.turns}
    code, record = run(tmp_path, model, cases=["open-incidents"])
    assert code == 3 and record.notes == [
        "every trial errored: the model failed in 1 of 1 (ConnectionError: model server hung up)"
    ]


def test_repeats_give_pass_rates_with_intervals_and_pass_hat_k(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.flaky_on = {prompt_of("open-incidents")}
    code, record = run(tmp_path, model, cases=["open-incidents", "list-skills"], repeats=4)
    cases = {c.case_id: c for c in record.cases}
    flaky, steady = cases["open-incidents"], cases["list-skills"]
    assert (flaky.rate.passed, flaky.rate.n) == (2, 4)
    assert flaky.rate.text == "2/4 (95% CI 15%–85%)"
    assert flaky.pass_hat_k == 0.0 and steady.pass_hat_k == 1.0
    assert record.pass_hat_k == 0.5
    assert code == 1 and flaky.gate is False and steady.gate is True


def test_concurrency_overlaps_trials(tmp_path):
    in_flight = {"now": 0, "max": 0}

    class Slow(OracleLlm):
        async def generate_content_async(self, llm_request, stream=False):
            in_flight["now"] += 1
            in_flight["max"] = max(in_flight["max"], in_flight["now"])
            await asyncio.sleep(0.05)
            in_flight["now"] -= 1
            async for r in super().generate_content_async(llm_request, stream):
                yield r

    code, _ = run(
        tmp_path,
        Slow.from_cases(CASES),
        cases=["open-incidents", "list-skills", "checkout-dependencies"],
        concurrency=3,
    )
    assert code == 0 and in_flight["max"] == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cases": ["nope"]}, "evals/ops.evalset.json: no case 'nope'"),
        ({"repeats": 0}, "--repeats: 0 is not a whole number from 1 to 1,000"),
        ({"repeats": 1001}, "--repeats: 1001 is not a whole number from 1 to 1,000"),
        ({"concurrency": 65}, "--concurrency: 65 is not a whole number from 1 to 64"),
        ({"timeout_s": 86_401.0}, "--timeout: 86401 seconds; at most 86,400 (a day)"),
        ({"set_path": REPO / "evals" / "missing.evalset.json"}, "file not found"),
    ],
)
def test_bad_input_is_exit_2(tmp_path, monkeypatch, options, message):
    monkeypatch.chdir(REPO)
    with pytest.raises(OpsEvalError) as err:
        execute(
            RunOptions(output=tmp_path / "r.json", **options),
            chooser=chooser_for(OracleLlm.from_cases(CASES)),
        )
    assert err.value.code == 2 and message in str(err.value)


def test_a_set_that_does_not_validate_is_refused(tmp_path):
    bad = tmp_path / "evals"
    bad.mkdir()
    for name in ("test_config.json", "negatives.yaml"):
        (bad / name).write_text((REPO / "evals" / name).read_text())
    data = json.loads(OPS.read_text())
    data["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"][0]["name"] = "nope"
    (bad / "ops.evalset.json").write_text(json.dumps(data))
    with pytest.raises(OpsEvalError) as err:
        execute(
            RunOptions(set_path=bad / "ops.evalset.json", output=tmp_path / "r.json"),
            chooser=chooser_for(OracleLlm.from_cases(CASES)),
        )
    assert err.value.code == 2 and "'nope' is not a tool of agent ops_copilot" in str(err.value)


def test_cli_exit_codes_for_model_settings(tmp_path, capsys):
    from ops_eval.cli import main

    out = str(tmp_path / "r.json")
    assert main(["run", "--cases", "open-incidents", "--model", "qwen3", "--output", out]) == 2
    assert "OPS_AGENT_MODEL: 'qwen3' needs a LiteLLM provider prefix" in capsys.readouterr().err
    unreachable = ["run", "--cases", "open-incidents", "--output", out, "--model", "openai/x"]
    import os

    os.environ["OPS_AGENT_BASE_URL"] = "http://127.0.0.1:9/v1"
    try:
        assert main(unreachable) == 3
    finally:
        del os.environ["OPS_AGENT_BASE_URL"]
    err = capsys.readouterr().err
    assert "model unavailable: the model server at http://127.0.0.1:9/v1 does not answer" in err
    assert "Traceback" not in err
    assert main(["run", "--model", f"replay:{tmp_path / 'none.jsonl'}", "--output", out]) == 2
    assert "replay file" in capsys.readouterr().err


def test_record_then_replay_reproduces_the_run(tmp_path):
    recording = tmp_path / "rec.jsonl"
    code, first = run(tmp_path, OracleLlm.from_cases(CASES), record=recording)
    assert code == 0
    replay = ReplayLlm.from_file(recording)
    code, second = run(tmp_path, replay)
    assert code == 0

    def played(record):
        return [
            [
                (t.calls, t.response, trial.scores["trajectory"].per_turn[i])
                for i, t in enumerate(trial.turns)
            ]
            for trial in record.trials
        ]

    assert played(first) == played(second)
    assert [t.state_after for t in first.trials] == [t.state_after for t in second.trials]


def test_replay_miss_names_the_case_and_what_changed(tmp_path, monkeypatch):
    recording = tmp_path / "rec.jsonl"
    run(tmp_path, OracleLlm.from_cases(CASES), record=recording, cases=["open-incidents"])
    import ops_copilot.agent as agent_module

    monkeypatch.setattr(agent_module, "INSTRUCTION", agent_module.INSTRUCTION + "\nBe terse.")
    code, record = run(tmp_path, ReplayLlm.from_file(recording), cases=["open-incidents"])
    assert code == 3
    assert record.trials[0].error == (
        "model: ReplayMiss: replay miss for case open-incidents, turn 1: the prompt (system "
        "instruction) changed"
    )
    monkeypatch.undo()
    original = agent_module.build_tools
    monkeypatch.setattr(
        agent_module,
        "build_tools",
        lambda specs=None: [t for t in original(specs) if t.name != "list_skills"],
    )
    _, record = run(tmp_path, ReplayLlm.from_file(recording), cases=["open-incidents"])
    assert "the tools (names, parameters or descriptions) changed" in record.trials[0].error


def test_our_in_order_agrees_with_adk(tmp_path):
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types

    evaluator = TrajectoryEvaluator(threshold=1.0)
    rng = random.Random(7)
    pool = [
        ToolCall("a", {}),
        ToolCall("b", {"x": 1}),
        ToolCall("b", {"x": 2}),
        ToolCall("c", {"y": "z"}),
    ]
    for _ in range(400):
        actual = [rng.choice(pool) for _ in range(rng.randint(0, 5))]
        expected = [rng.choice(pool) for _ in range(rng.randint(0, 3))]
        fc = lambda cs: [types.FunctionCall(name=c.name, args=dict(c.args)) for c in cs]  # noqa: E731
        assert in_order(actual, expected) == evaluator._are_tool_calls_in_order_match(
            fc(actual), fc(expected)
        ), (actual, expected)


def test_an_unusable_output_path_is_refused_before_any_trial(tmp_path):
    model = Saboteur.from_cases(CASES)
    model.crash_on = {t.prompt for c in CASES for t in c.turns}  # would fail if it ran
    with pytest.raises(OpsEvalError) as err:
        execute(RunOptions(output=tmp_path, cases=["open-incidents"]), chooser=chooser_for(model))
    assert err.value.code == 2 and "is a folder" in str(err.value)
    assert model.seen == {}


def test_a_looping_agent_is_a_failed_trial_not_an_error(tmp_path):
    class Looper(OracleLlm):
        async def generate_content_async(self, llm_request, stream=False):
            from google.adk.models.llm_response import LlmResponse
            from google.genai import types

            from ops_eval.models.stand_ins import to_parts

            yield LlmResponse(
                content=types.Content(role="model", parts=to_parts(ToolCall("list_services")))
            )

    code, record = run(tmp_path, Looper.from_cases(CASES), cases=["open-incidents"])
    (trial,) = record.trials
    assert code == 1 and trial.status == "failed" and trial.error is None
    assert trial.looped == (
        "turn 1: the agent called list_services() 3 times in one turn and got the same result "
        "each time (no new information)"
    )
    assert trial.scores["trajectory"].detail == trial.looped
    (turn,) = trial.turns
    assert len(turn.calls) == 3 and turn.model_calls == 3  # ended there, not at 40 calls


def test_replay_answers_repeats_in_recorded_order(tmp_path):
    """Repeats share their first request; each asking gets the next recorded answer."""
    recording = tmp_path / "rec.jsonl"
    model = Saboteur.from_cases(CASES)
    model.flaky_on = {prompt_of("open-incidents")}
    run(tmp_path, model, cases=["open-incidents"], repeats=2, record=recording)
    _, replayed = run(tmp_path, ReplayLlm.from_file(recording), cases=["open-incidents"], repeats=2)
    assert [t.status for t in replayed.trials] == ["failed", "passed"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty, not a recording"),
        ("[1, 2]\n", "not a version-1 recording"),
        ('{"version": 1}\n{"key": "k"}\n', "line 2: an entry needs key, contents and responses"),
        ('{"version": 1}\nnot json\n', "line 2: not JSON"),
    ],
)
def test_malformed_recordings_are_bad_configuration(tmp_path, content, message):
    from ops_copilot.model import ModelConfigError

    path = tmp_path / "rec.jsonl"
    path.write_text(content)
    with pytest.raises(ModelConfigError, match=message):
        ReplayLlm.from_file(path)


def test_a_run_reads_its_eval_set_once(tmp_path, monkeypatch):
    """Plan, validation and ADK's parse all use the one reading of the set's file."""
    import builtins
    import io
    import os

    reads = []
    real_open, real_os_open = io.open, os.open

    def counted(file):
        if isinstance(file, str | Path) and Path(file).resolve() == OPS.resolve():
            reads.append(file)

    def counting_open(file, *args, **kwargs):
        counted(file)
        return real_open(file, *args, **kwargs)

    def counting_os_open(file, *args, **kwargs):  # textfiles opens without blocking on a FIFO
        counted(file)
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    code, _ = run(tmp_path, OracleLlm.from_cases(CASES), cases=["open-incidents"])
    monkeypatch.undo()
    assert code == 0 and len(reads) == 1


def test_session_input_state_reaches_the_session(tmp_path, monkeypatch):
    """A case's session_input.state is applied as ADK applies it: here the instruction names a
    state key, which ADK fills in from the session (and fails on when the state is missing)."""
    import ops_copilot.agent as agent_module

    data = json.loads(OPS.read_text())
    case = next(c for c in data["eval_cases"] if c["eval_id"] == "open-incidents")
    case["session_input"]["state"] = {"shift": "night shift"}
    folder = tmp_path / "evals"
    folder.mkdir()
    for name in ("test_config.json", "negatives.yaml"):
        (folder / name).write_text((REPO / "evals" / name).read_text())
    (folder / "ops.evalset.json").write_text(json.dumps(data))
    monkeypatch.setattr(agent_module, "INSTRUCTION", agent_module.INSTRUCTION + "Shift: {shift}.")

    seen: list[str] = []

    class Listening(OracleLlm):
        async def generate_content_async(self, llm_request, stream=False):
            seen.append(str(llm_request.config.system_instruction))
            async for r in super().generate_content_async(llm_request, stream):
                yield r

    set_path = folder / "ops.evalset.json"
    code, record = run(
        tmp_path, Listening.from_cases(CASES), set_path=set_path, cases=["open-incidents"]
    )
    assert code == 0 and seen and all("Shift: night shift." in s for s in seen)
    case["session_input"]["state"] = {}
    set_path.write_text(json.dumps(data))
    code, record = run(
        tmp_path, Listening.from_cases(CASES), set_path=set_path, cases=["open-incidents"]
    )
    assert code == 3 and "shift" in record.trials[0].error


def test_a_set_without_cases_is_refused(tmp_path):
    folder = tmp_path / "evals"
    folder.mkdir()
    for name in ("test_config.json", "negatives.yaml"):
        (folder / name).write_text((REPO / "evals" / name).read_text())
    (folder / "empty.evalset.json").write_text(json.dumps({"eval_set_id": "e", "eval_cases": []}))
    with pytest.raises(OpsEvalError) as err:
        execute(
            RunOptions(set_path=folder / "empty.evalset.json", output=tmp_path / "r.json"),
            chooser=chooser_for(OracleLlm.from_cases(CASES)),
        )
    assert err.value.code == 2 and "no case to run" in str(err.value)


def test_the_public_names_are_what_they_say_even_after_their_modules_load():
    """A module named like an export would shadow it once imported (found in the reshape)."""
    import importlib
    import pkgutil

    import ops_eval

    for module in pkgutil.walk_packages(ops_eval.__path__, "ops_eval."):
        if module.name != "ops_eval.validation.adk_parse":  # a worker's entry point
            importlib.import_module(module.name)
    for name in ops_eval.__all__:
        value = getattr(ops_eval, name)
        assert not isinstance(value, type(ops_eval)), f"ops_eval.{name} is a module"


def test_the_pause_cases_facts_are_not_applicable_never_a_pass(tmp_path):
    """At a pause the harness writes the response; that is evidence for `complete` only."""
    pauses = ["restart-needs-approval", "resolve-needs-approval"]
    code, record = run(tmp_path, OracleLlm.from_cases(CASES), cases=pauses)
    assert code == 0
    for trial in record.trials:
        assert trial.turns[0].response_synthesized
        facts, complete = trial.scores["facts"], trial.scores["complete"]
        assert facts.outcome == "n/a"
        assert facts.detail == "turn 1: the harness wrote the response at the pause"
        assert complete.outcome == "pass"
    (facts_rate,) = [g for g in record.scorers if g.name == "facts"]
    assert facts_rate.rate.n == 0  # n/a is out of the denominator


def test_a_model_that_serves_one_conversation_at_a_time_gets_one(tmp_path):
    """The embedded server's choice says parallel=1; asking for more runs one, with a note."""
    in_flight = {"now": 0, "max": 0}

    class Slow(OracleLlm):
        async def generate_content_async(self, llm_request, stream=False):
            in_flight["now"] += 1
            in_flight["max"] = max(in_flight["max"], in_flight["now"])
            await asyncio.sleep(0.02)
            in_flight["now"] -= 1
            async for r in super().generate_content_async(llm_request, stream):
                yield r

    one_at_a_time = fixed_model(Slow.from_cases(CASES), "slow", "test", parallel=1)
    options = RunOptions(
        output=tmp_path / "r.json", concurrency=3,
        cases=["open-incidents", "list-skills", "checkout-dependencies"],
    )  # fmt: skip
    code, record, _ = execute(options, chooser=one_at_a_time)
    assert code == 0 and in_flight["max"] == 1 and record.concurrency == 1
    assert record.notes == [
        "the model serves 1 conversation(s) at a time to advantage; concurrency 3 lowered to 1"
    ]


@contextlib.contextmanager
def broken_model_server(answer: str):
    """An OpenAI-compatible endpoint that lists models but answers every chat request with a
    500 (`answer="500"`) or with a 200 whose body is not JSON (`answer="garbage"`)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802
            self._reply(200, b'{"object": "list", "data": [{"id": "broken"}]}')

        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            self._reply(500, b"internal error") if answer == "500" else self._reply(200, b"<<>>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    ("answer", "verbose", "cause"),
    [
        ("500", False, "OpenAIException - internal error"),
        ("garbage", False, "Empty or invalid response from LLM endpoint. Received: '<<>>'"),
        ("garbage", True, "Empty or invalid response from LLM endpoint. Received: '<<>>'"),
    ],
)
def test_a_broken_model_is_one_line_per_trial_unless_verbose(
    tmp_path, capsys, caplog, ops_env, answer, verbose, cause
):
    """Tracebacks are what ADK logs (caplog sees what reaches the root logger's handlers);
    the one line is what a user reads on stderr."""
    from ops_eval.cli import main

    with broken_model_server(answer) as base:
        ops_env.setenv("OPS_AGENT_BASE_URL", base)
        output = str(tmp_path / "r.json")
        argv = ["run", "--cases", "open-incidents", "--model", "openai/broken", "--output", output]
        argv += ["--verbose"] if verbose else []
        assert main(argv) == 3
    out, err = capsys.readouterr()
    trial_lines = [ln for ln in err.splitlines() if "open-incidents #1 error" in ln]
    assert len(trial_lines) == 1 and cause in trial_lines[0]
    tracebacks = [r for r in caplog.records if r.exc_info]
    if verbose:
        assert tracebacks
    else:
        assert not tracebacks and err.splitlines() == trial_lines, err
        assert "Give Feedback" not in out and "LiteLLM.Info" not in out
