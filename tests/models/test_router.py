"""`--model router:FILE`: one run over several OpenAI-compatible servers through a LiteLLM Router,
through the public surface (`ops-eval run`), with fake servers on loopback that answer as an
oracle of the eval set, answer 500, or stop listening mid-run.

What must hold: calls spread over the servers and the record says which server answered each
model call (the counts add up, and match what each server answered); a server that dies or
answers 500 is retried elsewhere, so no trial errors while one server lives; trials whose calls
no server could answer are errors, never passes, and every planned trial is in the record; a
config file that cannot be run is one line and exit 2 with nothing written; no server answering
is exit 3 before any trial.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fake_openai import text, tool_call
from ops_eval import load_record, read_evalset
from ops_eval.cli import main
from ops_eval.playing.spans import spans_path
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = ["service-status-inventory", "incident-detail-inc-002", "open-incidents", "list-skills"]
APPROVAL = "approve-restart-inventory"  # an approval round: its model calls count too
_TURNS = {t.prompt.strip(): (t.calls, t.reference) for c in read_evalset(OPS).cases
          for t in c.turns}  # fmt: skip
SECRET = "sk-router-test-secret-0123456789"


def _prompt_and_calls_made(messages: list[dict[str, Any]]) -> tuple[str, int]:
    """The last user prompt (text) and how many tool calls the assistant made since."""
    last = max(i for i, m in enumerate(messages) if m["role"] == "user" and _text(m))
    made = sum(len(m.get("tool_calls") or []) for m in messages[last + 1 :])
    return _text(messages[last]).strip(), made


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def oracle(request: dict[str, Any]) -> dict[str, Any]:
    """The expected calls of the case whose prompt this is, one per request, then its
    reference: a run on it passes by construction, so a pass that should not be one shows."""
    prompt, made = _prompt_and_calls_made(request["messages"])
    calls, reference = _TURNS.get(prompt, ([], "I do not know this request."))
    if made < len(calls):
        return tool_call(calls[made].name, dict(calls[made].args), n=made)
    return text(reference)


class Backend:
    """An OpenAI-compatible server on loopback that answers as `oracle`, or with `status`
    (e.g. 500), or hangs up without an answer (`drop`, as a server killed in the middle of a
    request); after `die_after` answers it stops listening (later connections are refused, as
    with a server that was killed). `answered` and `received` count chat requests."""

    def __init__(self, status: int = 200, die_after: int | None = None, drop: bool = False):
        self.status, self.die_after, self.drop = status, die_after, drop
        self.answered = self.received = 0
        self.keys: set[str] = set()
        self._lock = threading.Lock()
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with backend._lock:
                    backend.received += 1
                    backend.keys.add(self.headers.get("Authorization", ""))
                if backend.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if backend.status != 200:
                    self._send(backend.status, {"error": {"message": "overloaded", "code": 500}})
                    return
                message = oracle(request)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                self._send(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                    "model": request.get("model", "fake"),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })  # fmt: skip
                with backend._lock:
                    backend.answered += 1
                    dying = backend.die_after is not None and backend.answered == backend.die_after
                if dying:
                    threading.Thread(target=backend.stop, daemon=True).start()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        self._stopped = False

    def stop(self) -> None:
        """Stop listening: the port refuses connections from now on."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def backends(*specs: dict[str, Any]) -> Iterator[list[Backend]]:
    started = [Backend(**spec) for spec in specs]
    try:
        yield started
    finally:
        for b in started:
            b.stop()


def closed_port() -> str:
    """A loopback base URL where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def router_file(
    path: Path, servers: list[tuple[str | None, str]], settings: dict[str, Any] | None = None
) -> Path:
    """A router file over `servers` ((model_info.id or None, api_base)), in LiteLLM's format."""
    entries = []
    for name, base in servers:
        entry: dict[str, Any] = {
            "model_name": "fake",
            "litellm_params": {"model": "openai/fake", "api_base": base},
        }
        if name is not None:
            entry["model_info"] = {"id": name}
        entries.append(entry)
    data: dict[str, Any] = {"model_list": entries}
    if settings:
        data["router_settings"] = settings
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML
    return path


def run(config: Path, out: Path, *extra: str, cases: list[str] = CASES) -> int:
    return main(
        ["run", "--model", f"router:{config}", "--cases", ",".join(cases), "--output", str(out),
         *extra]
    )  # fmt: skip


@pytest.fixture
def failed_calls(monkeypatch) -> Counter[str]:
    """Model calls that failed on a server, by server name, as LiteLLM reports each failure to
    its failure callbacks (the Router's retries included): the proof that a retry happened."""
    import litellm

    failed: Counter[str] = Counter()

    def count(kwargs: dict[str, Any], *_: Any) -> None:
        info = (kwargs.get("litellm_params") or {}).get("model_info") or {}
        failed[info.get("id", "?")] += 1

    monkeypatch.setattr(litellm, "failure_callback", [*litellm.failure_callback, count])
    return failed


def per_server(record: Any) -> Counter[str]:
    return Counter(s for t in record.trials for turn in t.turns for s in turn.servers or [])


def assert_honest(record: Any, planned: int) -> None:
    """Every planned trial is in the record; a trial passes only when it has no error and no
    score fails or errs; the rates count exactly the passing trials."""
    assert len(record.trials) == planned
    for t in record.trials:
        bad = [n for n, s in t.scores.items() if s.outcome in ("fail", "error")]
        assert (t.status == "passed") == (t.error is None and not bad), (t.status, t.error, bad)
        if t.status == "error":
            assert t.error
    assert record.total.rate.passed == sum(t.status == "passed" for t in record.trials)
    assert record.total.errors == sum(t.status == "error" for t in record.trials)


def test_calls_spread_over_both_servers_and_each_is_named_in_the_record(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("ROUTER_TEST_KEY", SECRET)
    with backends({}, {}) as (a, b):
        config = router_file(tmp_path / "router.yaml", [("alpha", a.base), (None, b.base)])
        data = json.loads(config.read_text())
        for entry in data["model_list"]:  # the key from the environment, as LiteLLM writes it
            entry["litellm_params"]["api_key"] = "os.environ/ROUTER_TEST_KEY"
        config.write_text(json.dumps(data))
        out = tmp_path / "run.json"
        recording = tmp_path / "rec.jsonl"
        code = run(config, out, "--repeats", "3", "--concurrency", "2", "--record",
                   str(recording), cases=[*CASES, APPROVAL])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err[-2000:]
    record = load_record(out)
    assert_honest(record, 5 * 3)
    assert all(t.status == "passed" for t in record.trials)  # the oracle passes
    counts = per_server(record)
    # each server is named as the record names it: its id, else its base URL
    assert counts == {"alpha": a.answered, b.base: b.answered}
    assert a.answered > 0 and b.answered > 0
    assert a.received == a.answered and b.received == b.answered  # nothing retried
    calls = sum(turn.model_calls for t in record.trials for turn in t.turns)
    assert sum(counts.values()) == calls == a.answered + b.answered
    assert all(len(turn.servers) == turn.model_calls for t in record.trials for turn in t.turns)
    # named by the model every server serves, not by the file's alias for the group
    assert record.model.name == "openai/fake" and record.model.source == "--model"
    assert record.model.reason.startswith(f"from --model router:{config}: a LiteLLM Router")
    assert record.model.endpoint == f"alpha ({a.base}), {b.base}"
    assert {f"Bearer {SECRET}"} == a.keys == b.keys  # the key reached the servers ...
    for written in (out, spans_path(out), recording):  # each written by the run
        assert SECRET not in written.read_text()  # ... and no file kept it
    line = f"model calls per server: {b.base} {b.answered}, alpha {a.answered}"
    if a.answered >= b.answered:  # most first; a tie in name order
        line = f"model calls per server: alpha {a.answered}, {b.base} {b.answered}"
    assert f"{line} ({calls} model calls)" in captured.out
    from ops_eval.outputs.report import html_report, markdown

    assert f"`alpha` {a.answered}" in markdown(record)
    assert f"<code>alpha</code> {a.answered}" in html_report(record)

    # a replay of the routed run names no server: none answered it
    replayed = tmp_path / "replayed.json"
    assert main(["run", "--model", f"replay:{recording}", "--cases", ",".join([*CASES, APPROVAL]),
                 "--repeats", "3", "--output", str(replayed)]) == 0  # fmt: skip
    again = load_record(replayed)
    assert all(turn.servers is None for t in again.trials for turn in t.turns)
    assert "model calls per server" not in capsys.readouterr().out


def test_a_server_that_stops_mid_run_loses_no_trial(tmp_path, failed_calls):
    """Server a stops listening after 3 answers: every later call goes to b, no trial errors,
    and the record credits a with exactly what it answered."""
    with backends({"die_after": 3}, {}) as (a, b):
        config = router_file(tmp_path / "r.yaml", [("a", a.base), ("b", b.base)])
        out = tmp_path / "run.json"
        code = run(config, out, "--repeats", "3", "--concurrency", "2")
    record = load_record(out)
    assert_honest(record, len(CASES) * 3)
    assert code == 0 and all(t.status == "passed" for t in record.trials)
    assert a.answered >= 3 and b.answered > a.answered
    assert per_server(record) == {"a": a.answered, "b": b.answered}
    assert failed_calls["a"] >= 1 and not failed_calls["b"]  # a was tried after, and retried


@pytest.mark.parametrize("failure", [{"status": 500}, {"drop": True}], ids=["500", "hang-up"])
def test_a_server_failing_every_call_is_retried_on_the_other(tmp_path, failure, failed_calls):
    """A server that answers 500, or hangs up mid-request: cooled down for 0.2 s only, it is
    picked again and again, each time the call goes on to the other, and no trial sees it."""
    with backends(failure, {}) as (bad, good):
        config = router_file(
            tmp_path / "r.yaml", [("bad", bad.base), ("good", good.base)], {"cooldown_time": 0.2}
        )
        out = tmp_path / "run.json"
        code = run(config, out, "--repeats", "3", "--concurrency", "2")
    record = load_record(out)
    assert_honest(record, len(CASES) * 3)
    assert code == 0 and all(t.status == "passed" for t in record.trials)
    assert bad.received >= 1 and bad.answered == 0  # it was tried, and never credited
    assert failed_calls == {"bad": bad.received}  # each failure was retried: no trial saw one
    assert per_server(record) == {"good": good.answered}


def test_a_key_in_a_server_url_reaches_no_record_and_no_output(tmp_path, capsys):
    secret = "QuerySecret9"
    with backends({}, {}) as (a, b):
        bases = [f"{x.base}?api-key={secret}" for x in (a, b)]
        config = router_file(tmp_path / "router.yaml", [("a", bases[0]), ("b", bases[1])])
        out = tmp_path / "run.json"
        code = run(config, out)
    captured = capsys.readouterr()
    assert code == 0, captured.err[-2000:]
    assert a.answered + b.answered == sum(per_server(load_record(out)).values()) > 0
    for written in (out.read_text(), spans_path(out).read_text(),
                    captured.out, captured.err):  # fmt: skip
        assert secret not in written


def test_a_server_down_before_the_run_is_named_and_the_run_goes_on(tmp_path, capsys):
    with backends({}) as (b,):
        down = closed_port()
        config = router_file(tmp_path / "r.yaml", [("down", down), ("up", b.base)])
        out = tmp_path / "run.json"
        code = run(config, out, "--concurrency", "2")
    err = capsys.readouterr().err
    assert code == 0
    assert (
        f"router: a server does not answer, the others serve the run: down ({down}): "
        "[Errno 111] Connection refused"
    ) in err
    record = load_record(out)
    assert record.model.caveat.startswith("1 of 2 server(s) did not answer before the run: down")
    assert per_server(record) == {"up": b.answered}


def test_no_server_answering_is_exit_3_naming_each(tmp_path, capsys, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    one, two = closed_port(), closed_port()
    config = router_file(tmp_path / "r.yaml", [("one", one), (None, two)])
    code = main(["run", "--model", f"router:{config}", "--cases", "open-incidents"])
    err = capsys.readouterr().err
    assert code == 3
    assert err == (
        f"error: model unavailable: no server of {config} answers: one ({one}): [Errno 111] "
        f"Connection refused; {two}: [Errno 111] Connection refused\n"
    )
    assert not any((tmp_path / "runs").rglob("*.json"))


def test_every_server_dying_mid_run_errors_the_rest_never_passes_them(tmp_path):
    with backends({"die_after": 2}, {"die_after": 2}) as (a, b):
        config = router_file(tmp_path / "r.yaml", [("a", a.base), ("b", b.base)])
        out = tmp_path / "run.json"
        code = run(config, out, "--repeats", "2", "--concurrency", "2")
    record = load_record(out)
    assert_honest(record, len(CASES) * 2)
    errors = [t for t in record.trials if t.status == "error"]
    assert errors and code in (1, 3)
    assert per_server(record) == {"a": a.answered, "b": b.answered}
    # a trial can only pass on calls that were answered: 2 per trial here (call, answer)
    assert sum(t.status == "passed" for t in record.trials) <= (a.answered + b.answered) // 2
    for t in errors:  # LiteLLM's error, one line: the server died, or none is left to try
        assert t.error.startswith(("model: InternalServerError", "model: RouterRateLimitError")), (
            t.error
        )


# -- configuration errors: one line naming the file and the field, exit 2, nothing written ------

GOOD = {"model_name": "m", "litellm_params": {"model": "openai/m", "api_base": "http://h:1/v1"}}


def _entry(**params: Any) -> dict[str, Any]:
    return {"model_name": "m", "litellm_params": {**GOOD["litellm_params"], **params}}


BAD_CONFIGS = [
    ({"model_list": [GOOD, _entry(api_base="localhost:1")]},
     "model_list[1].litellm_params.api_base: 'localhost:1' must start with http:// or https://"),
    ({"model_list": [_entry(api_base="http://")]},
     "model_list[0].litellm_params.api_base: 'http://' names no host"),
    ({"model_list": [_entry(model="qwen3")]},
     "model_list[0].litellm_params.model: 'qwen3' needs a LiteLLM provider prefix "
     "(openai/<name>, ollama_chat/<tag>)"),
    ({"model_list": [_entry(api_key="os.environ/OPS_ROUTER_UNSET_KEY")]},
     "model_list[0].litellm_params.api_key: os.environ/OPS_ROUTER_UNSET_KEY is not set"),
    ({"model_list": [GOOD, {**_entry(api_base="http://h:2/v1"), "model_name": "other"}]},
     "model_list[1].model_name: 'other' is not 'm' (model_list[0]): a router file lists the "
     "servers of one model"),
    ({"model_list": [GOOD, _entry(model="ollama_chat/m", api_base="http://h:2")]},
     "model_list[1].litellm_params.model: 'ollama_chat/m' is not 'openai/m' (model_list[0]): "
     "a router file lists the servers of one model"),
    ({"model_list": [GOOD, _entry(model="openai/other", api_base="http://h:2/v1")]},
     "model_list[1].litellm_params.model: 'openai/other' is not 'openai/m' (model_list[0]): "
     "a router file lists the servers of one model"),
    ({"model_list": [_entry(api_base="http://h:99999/v1")]},
     "model_list[0].litellm_params.api_base: 'http://h/v1' is not a URL: port '99999' (Port out "
     "of range 0-65535)"),
    ({"model_list": [_entry(api_base="http://h:abc/v1")]},
     "model_list[0].litellm_params.api_base: 'http://h/v1' is not a URL: port 'abc' (Port could "
     "not be cast to integer value as 'abc')"),
    ({"model_list": [_entry(api_base="http://a..b/v1")]},
     "model_list[0].litellm_params.api_base: 'http://a..b/v1' names a host that is no valid "
     "host name ('a..b')"),
    ({"model_list": [_entry(api_base="http://%zz/v1")]},
     "model_list[0].litellm_params.api_base: 'http://%zz/v1' names a host that is no valid "
     "host name ('%zz')"),
    ({"model_list": [_entry(api_base="http://h h/v1")]},
     "model_list[0].litellm_params.api_base: 'http://h h/v1' holds a space or a control "
     "character"),
    ({"model_list": [_entry(api_base="ftp://admin:SuperSecret1@h/v1")]},
     "model_list[0].litellm_params.api_base: 'ftp://h/v1' must start with http:// or https://"),
    ({"model_list": [_entry(api_base="http:///v1?key=Q")]},
     "model_list[0].litellm_params.api_base: 'http:///v1' names no host"),
    ({"model_list": [{**GOOD, "model_info": {"id": "a\n::error::x"}}]},
     "model_list[0].model_info.id: 'a\\n::error::x' holds a control character"),
    ({"model_list": [{**GOOD, "model_info": {"id": "x"}},
                     {**_entry(api_base="http://h:2/v1"), "model_info": {"id": "x"}}]},
     "model_list[1].model_info.id: server 'x' is model_list[0]'s too (each server once, or a "
     "distinct model_info.id)"),
    ({"model_list": [GOOD, _entry(api_base="http://h:1/v1?x=1")]},
     "model_list[1].litellm_params.api_base: server 'http://h:1/v1' is model_list[0]'s too "
     "(each server once, or a distinct model_info.id)"),
    ({"model_list": [_entry(api_base="http://user:SecretPw1@h:1/v1")]},
     "model_list[0].litellm_params.api_base: 'http://h:1/v1' carries a user or password, which "
     "LiteLLM does not send: give the key as litellm_params.api_key (os.environ/VAR)"),
    ({"model_list": []}, "model_list: List should have at least 1 item after validation, not 0"),
    ({"router_settings": {}}, "model_list: missing"),
    ({"model_list": [GOOD], "litellm_settings": {}},
     "litellm_settings: unknown key (allowed: model_list, router_settings)"),
    ({"model_list": [_entry(rpm=10)]},
     "model_list[0].litellm_params.rpm: unknown key (allowed: model, api_base, api_key)"),
    ({"model_list": [{"litellm_params": GOOD["litellm_params"]}]},
     "model_list[0].model_name: missing"),
    ({"model_list": [_entry(api_base=5)]},
     "model_list[0].litellm_params.api_base: Input should be a valid string (got 5)"),
    ({"model_list": [GOOD], "router_settings": {"routing_strategy": "cost-based-routing"}},
     "router_settings.routing_strategy: Input should be 'simple-shuffle', 'least-busy', "
     "'latency-based-routing' or 'usage-based-routing-v2' (got 'cost-based-routing')"),
    ({"model_list": [GOOD], "router_settings": {"num_retries": -1}},
     "router_settings.num_retries: Input should be greater than or equal to 0 (got -1)"),
    ({"model_list": [GOOD], "router_settings": {"num_retries": "3"}},
     "router_settings.num_retries: Input should be a valid integer (got '3')"),
    ({"model_list": [GOOD], "router_settings": {"fallbacks": []}},
     "router_settings.fallbacks: unknown key (allowed: routing_strategy, num_retries, "
     "allowed_fails, cooldown_time, timeout, retry_after)"),
    (["model_list"], "not a LiteLLM router configuration (the top level is not a mapping with "
     "model_list)"),
]  # fmt: skip


def _refused(capsys: Any, argv: list[str], runs: Path) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not [p for p in runs.rglob("*") if p.is_file()]  # nothing written under runs/
    return err.removeprefix("error: ").rstrip("\n")


@pytest.mark.parametrize(("data", "message"), BAD_CONFIGS, ids=lambda v: str(v)[:40])
def test_a_config_that_cannot_run_is_one_line_and_exit_2(tmp_path, capsys, ops_env, data, message):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    ops_env.delenv("OPS_ROUTER_UNSET_KEY")
    config = tmp_path / "router.yaml"
    config.write_text(json.dumps(data), encoding="utf-8")
    argv = ["run", "--model", f"router:{config}", "--cases", "open-incidents"]
    assert _refused(capsys, argv, tmp_path / "runs") == f"{config}: {message}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "file not found"),
        ("model_list: [\n", "line 2, column 1 not valid YAML"),
        ("model_list: []\nmodel_list: []\n", "line 2, column 1: duplicate key 'model_list'"),
        ("", "not a LiteLLM router configuration (the top level is not a mapping with "
         "model_list)"),
        ("folder", "is a folder, not a file"),
    ],
)  # fmt: skip
def test_a_file_that_cannot_be_read_is_one_line_and_exit_2(
    tmp_path, capsys, ops_env, content, message
):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    config = tmp_path / "router.yaml"
    if content == "folder":
        config.mkdir()
    elif content is not None:
        config.write_text(content, encoding="utf-8")
    argv = ["run", "--model", f"router:{config}", "--cases", "open-incidents"]
    assert _refused(capsys, argv, tmp_path / "runs") == f"{config}: {message}"


def test_router_without_a_file_and_from_the_environment(tmp_path, capsys, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    argv = ["run", "--model", "router:", "--cases", "open-incidents"]
    assert _refused(capsys, argv, tmp_path / "runs") == (
        "--model: router: needs a configuration file (router:FILE)"
    )
    ops_env.setenv("OPS_AGENT_MODEL", f"router:{tmp_path / 'none.yaml'}")
    argv = ["run", "--cases", "open-incidents"]
    assert _refused(capsys, argv, tmp_path / "runs") == f"{tmp_path / 'none.yaml'}: file not found"


@pytest.mark.parametrize("command", ["chat", "web"])
def test_chat_and_web_refuse_a_router_before_probing(tmp_path, capsys, command):
    """The agent package reaches one server by itself: a router is refused, one line, exit 2,
    before any server is probed (none listens here) and before ADK's CLI starts."""
    config = router_file(tmp_path / "r.yaml", [(None, closed_port())])
    assert main([command, "--model", f"router:{config}"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --model: router:{config}: `ops-eval {command}` runs the agent by itself, which "
        "reaches one server; a router serves `ops-eval run` only (for one of its servers: "
        "--model <its litellm_params.model> with OPS_AGENT_BASE_URL=<its api_base>)\n"
    )


def test_the_agent_package_alone_refuses_a_router_setting_by_name():
    """`adk run` / `adk web` straight on the agent (no ops-eval) read OPS_AGENT_MODEL
    themselves: a router file there is named, not called a model without a provider."""
    from ops_copilot.model import ModelConfigError, ModelSettings

    with pytest.raises(ModelConfigError, match=r"'router:r\.yaml': a router serves `ops-eval run`"):
        ModelSettings.from_env({"OPS_AGENT_MODEL": "router:r.yaml"})


# -- the record: old records read as before, servers checked against model calls --------------


def test_records_without_servers_load_and_a_miscount_is_refused(tmp_path):
    from ops_eval.results.records import RecordError

    with backends({}, {}) as (a, b):
        config = router_file(tmp_path / "r.yaml", [("a", a.base), ("b", b.base)])
        out = tmp_path / "run.json"
        assert run(config, out, cases=["open-incidents"]) == 0
    data = json.loads(out.read_text())
    turn = data["trials"][0]["turns"][0]
    assert turn["servers"] and len(turn["servers"]) == turn["model_calls"] == 2
    for t in data["trials"]:  # as a record of before this field
        for u in t["turns"]:
            del u["servers"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert all(u.servers is None for t in load_record(old).trials for u in t.turns)
    assert '"servers"' not in load_record(old).model_dump_json()  # nor written back
    turn["servers"] = ["a"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data, "trials": [{**data["trials"][0], "turns": [turn]}]}))
    with pytest.raises(RecordError, match=r"servers names 1 server\(s\) for 2 model call\(s\)"):
        load_record(bad)


def test_the_offline_commands_import_neither_litellm_nor_the_router(tmp_path):
    probe = (
        "import sys\nfrom ops_eval.cli import main\ncode = main(sys.argv[1:])\n"
        "bad = sorted(m for m in sys.modules if m == 'litellm' or m == 'ops_eval.models.router')\n"
        "print('IMPORTED', bad)\n"
    )
    env = {**os.environ, "OPS_RUNS_DIR": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for argv in (["validate"], ["redteam", "--attacks", "override-db-log-resolve-inc-002"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], cwd=REPO, env=env, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        assert "IMPORTED []" in done.stdout, done.stdout + done.stderr
