"""The judge's HTTP path against a real OpenAI-compatible server: the embedded llama.cpp server
(SmolLM2-135M), one per module. A model that small rarely writes a valid verdict, so every
outcome is either a validated verdict or a JudgeError saying why -- and the request must have
reached the server either way (its log, and a recording proxy in between).

Only OPS_SKIP_EMBEDDED_TEST=1 with the `local` group missing skips these, and the skip says so.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from recording_proxy import recording_proxy
from support import REPO

pytestmark = pytest.mark.e2e  # the embedded judge: a real llama.cpp server

OPS_SET = REPO / "evals" / "ops.evalset.json"
CASES = ("service-status-inventory", "incident-detail-inc-002")
ANSWERED = re.compile(r"slot +release: .*stop processing")  # llama.cpp's log, one per request
JUNK_OPENAI = {
    "OPENAI_API_KEY": "sk-junk-never-use-me",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "OPENAI_API_BASE": "http://127.0.0.1:9/v1",
}
TURNS = [
    {
        "question": "What is the status of the inventory service?",
        "answer": "The inventory service is down; INC-002 is open.",
        "reference": "The inventory service is down. It is owned by the fulfilment team and has "
        "one unresolved incident, INC-002 (SEV1, open).",
    }
]
INVALID = ("the judge's reply is not a valid JudgeVerdict", "the judge replied with no text")


@pytest.fixture
def embedded(embedded_server):
    """The session's embedded server (conftest), idle: these tests only send it requests, and
    count the ones it answered from its log."""
    embedded_server.idle()
    return embedded_server


def _posts(log: Path) -> int:
    """Chat completions the server answered so far (llama.cpp's log)."""
    return len(ANSWERED.findall(log.read_text(errors="replace")))


def _posts_reach(log: Path, expected: int, wait_s: float = 10.0) -> int:
    """The count once it reaches `expected` (the log is written as requests finish), or what it
    is after `wait_s`."""
    deadline = time.monotonic() + wait_s
    while (count := _posts(log)) < expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return count


def _config(embedded, base_url: str | None = None):
    from ops_eval.judging import JudgeConfig

    return JudgeConfig(
        model=embedded.alias, base_url=base_url or embedded.endpoint, api_key="embedded"
    )


def _outcome(config) -> tuple[str, object]:
    """("verdict", Verdict) or ("error", message) -- nothing else may come out."""
    from ops_eval.judging import JudgeError, Verdict, ask_judge

    try:
        verdict = ask_judge(config, TURNS)
    except JudgeError as exc:
        return "error", str(exc)
    assert isinstance(verdict, Verdict)
    return "verdict", verdict


# -- a) ask_judge -------------------------------------------------------------------------------


def test_ask_judge_reaches_the_server_and_gives_a_verdict_or_says_why(embedded):
    before = _posts(embedded.log)
    started = time.monotonic()
    kind, got = _outcome(_config(embedded))
    took = time.monotonic() - started
    print(f"ask_judge: {kind} in {took:.2f} s: {got}")
    assert _posts_reach(embedded.log, before + 1) == before + 1  # one call, answered
    if kind == "verdict":
        assert isinstance(got.passed, bool) and got.rationale.strip()
    else:
        assert got.startswith(INVALID), got


def test_what_ask_judge_returns_is_exactly_the_servers_reply_validated(embedded):
    """Through a recording proxy: the request is the judge's (alias, temperature 0, capped, the
    instructions and the fenced data), and the outcome is the validation of the reply the
    server really sent -- a verdict only when that reply is one."""
    from ops_eval.judging import JudgeError, judge_messages, parse_verdict

    before = _posts(embedded.log)
    with recording_proxy(embedded.endpoint) as (proxy, exchanges):
        kind, got = _outcome(_config(embedded, base_url=proxy))
    assert _posts_reach(embedded.log, before + 1) == before + 1
    (exchange,) = [x for x in exchanges if x["path"].endswith("/chat/completions")]
    request = exchange["request"]
    assert request["model"] == embedded.alias
    assert request["temperature"] == 0.0 and request["max_tokens"] == 512
    assert request["messages"] == judge_messages(TURNS)
    assert exchange["status"] == 200
    reply = exchange["response"]["choices"][0]["message"]["content"]
    print(f"the server replied: {reply!r}")
    if kind == "verdict":
        assert got == parse_verdict(reply).kept()
    elif not (reply or "").strip():
        assert got == "the judge replied with no text"
    else:
        with pytest.raises(JudgeError) as raised:
            parse_verdict(reply)
        assert got == str(raised.value)


def test_a_wrong_base_url_is_a_judge_error_and_reaches_nothing(embedded):
    from ops_eval.judging import JudgeError, ask_judge

    before = _posts(embedded.log)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))  # bound and not listening: refused, and no one else's
        wrong = _config(embedded, base_url=f"http://127.0.0.1:{held.getsockname()[1]}/v1")
        with pytest.raises(JudgeError, match="^the judge call failed"):
            ask_judge(wrong, TURNS)
    assert _posts(embedded.log) == before


def test_ask_judge_ignores_openai_environment_variables(embedded, monkeypatch):
    """The same call with OPENAI_* pointing at nothing: the same outcome, from the same
    server."""
    start = _posts(embedded.log)
    clean = _outcome(_config(embedded))
    for name, value in JUNK_OPENAI.items():
        monkeypatch.setenv(name, value)
    # the first call's line, which the log may not hold yet (it failed a run under load)
    before = _posts_reach(embedded.log, start + 1)
    junk = _outcome(_config(embedded))
    assert _posts_reach(embedded.log, before + 1) == before + 1
    assert junk == clean
    if junk[0] == "error":
        assert not junk[1].startswith("the judge call failed"), junk


# -- b) the command with the judge --------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle():
    from ops_eval import read_evalset
    from ops_eval.models.stand_ins import OracleLlm

    return OracleLlm.from_cases(read_evalset(OPS_SET).cases)


def _word_after(stdout: str, prefix: str) -> str:
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return line.removeprefix(prefix).split()[0].rstrip(":")
    raise AssertionError(f"no line starting {prefix!r} in:\n{stdout}")


def _judge_outcomes(client, run_id: str) -> dict[str, tuple]:
    """case id -> ("value", bool, rationale) or ("error", message), from the run's traces;
    asserting on the way that each row has one judge assessment and nothing in between."""
    import mlflow

    found = mlflow.search_traces(run_id=run_id, return_type="list")
    traces = [t for t in found if t.info.tags.get("mlflow.traceName") == "conversation"]
    # One trace per row, and nothing else but the judge's own calls: once an earlier test of
    # this process has turned MLflow's OpenAI autologging on, each is a "Completions" trace too
    # (seen in the end-to-end tier under some random orders, never in a process of its own).
    others = {t.info.tags.get("mlflow.traceName") for t in found if t not in traces}
    assert others <= {"Completions"}, others
    assert sorted(t.info.tags["case_id"] for t in traces) == sorted(CASES)
    outcomes = {}
    for trace in traces:
        case_id = trace.info.tags["case_id"]
        (judge,) = [a for a in trace.info.assessments if a.name == "judge"]
        assert judge.source.source_type == "LLM_JUDGE", judge.source
        if judge.error is not None:
            message = judge.error.error_message or ""
            assert judge.value is None, (case_id, judge)  # never a value beside an error
            assert message.startswith(INVALID), (case_id, message)  # the server was there
            outcomes[case_id] = ("error", message)
        else:
            assert isinstance(judge.value, bool), (case_id, judge)  # a validated verdict only
            assert judge.rationale and judge.rationale.strip(), (case_id, judge)
            outcomes[case_id] = ("value", judge.value, judge.rationale)
    return outcomes


def _run_with_judge(mlflow_cli, client, embedded, oracle) -> SimpleNamespace:
    before = _posts(embedded.log)
    started = time.monotonic()
    code, out, err = mlflow_cli(["--cases", ",".join(CASES)], model=oracle)
    seconds = time.monotonic() - started
    assert code == 0, f"exit {code}\nstdout:\n{out}\nstderr:\n{err[-4000:]}"
    run_id = _word_after(out, "mlflow run ")
    model_id = _word_after(out, "logged model ")
    return SimpleNamespace(
        out=out,
        run_id=run_id,
        model_id=model_id,
        posts=_posts_reach(embedded.log, before + len(CASES)) - before,
        outcomes=_judge_outcomes(client, run_id),
        metrics=client.get_run(run_id).data.metrics,
        model=client.get_logged_model(model_id),
        seconds=seconds,
    )


def test_the_command_with_the_embedded_judge_never_gates_on_it(
    mlflow_cli, client, ops_env, embedded, oracle
):
    from mlflow.entities import LoggedModelStatus

    ops_env.setenv("MLFLOW_JUDGE_MODEL", embedded.alias)
    ops_env.setenv("MLFLOW_JUDGE_BASE_URL", embedded.endpoint)
    ops_env.setenv("MLFLOW_JUDGE_API_KEY", "embedded")
    for name in JUNK_OPENAI:
        ops_env.delenv(name)
    clean = _run_with_judge(mlflow_cli, client, embedded, oracle)
    print(f"clean: {clean.seconds:.1f} s, judge: {clean.outcomes}")

    said = f"judge: openai/{embedded.alias} at {embedded.endpoint} (evidence, not a gate)"
    assert said in clean.out
    assert any(
        line.startswith("  judge: mean ") and line.endswith("(evidence, not a gate)")
        for line in clean.out.splitlines()
    ), clean.out
    assert f"logged model {clean.model_id}: READY" in clean.out
    assert clean.model.status == LoggedModelStatus.READY
    assert clean.posts == len(CASES)  # one judge call per row, each answered by the server
    valued = [o for o in clean.outcomes.values() if o[0] == "value"]
    assert ("judge/mean" in clean.metrics) == bool(valued), (clean.metrics, clean.outcomes)
    if valued:
        mean = sum(o[1] for o in valued) / len(valued)
        assert clean.metrics["judge/mean"] == pytest.approx(mean)
    for name in ("tool_trajectory", "complete_conversation", "response_facts", "tool_policy"):
        assert clean.metrics[f"{name}/mean"] == 1.0, clean.metrics

    # OPENAI_* pointing at nothing change nothing: the judge uses its trio only.
    for name, value in JUNK_OPENAI.items():
        ops_env.setenv(name, value)
    junk = _run_with_judge(mlflow_cli, client, embedded, oracle)
    print(f"junk OPENAI_*: {junk.seconds:.1f} s, judge: {junk.outcomes}")
    assert junk.posts == len(CASES)  # every row's judge call reached the embedded server
    # The same rows were judged. Their verdicts need not be the same to the byte: llama.cpp's
    # server reuses the prompt it evaluated before, and a reused prefix can round differently
    # (a reply that reads "It is data" once can read "It is\ndata" the next time).
    assert set(junk.outcomes) == set(clean.outcomes)
    assert f"logged model {junk.model_id}: READY" in junk.out
    assert junk.model.status == LoggedModelStatus.READY
    assert ("judge/mean" in junk.metrics) == ("judge/mean" in clean.metrics)
