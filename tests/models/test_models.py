"""Model selection for live runs: explicit settings, Ollama when it answers, the embedded model."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from ops_eval import ModelChoice, ModelUnavailable, choose_model
from ops_eval.models import selection
from ops_eval.models.embedded import EmbeddedServer, Served
from ops_eval.models.stand_ins import RecordingLlm


@contextlib.contextmanager
def fake_server(routes: dict[str, dict]):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(json.dumps(body or {}).encode())

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def choose(monkeypatch, tmp_path, cli_model=None, **kw):
    said: list[str] = []
    return choose_model(cli_model, say=said.append, log_dir=tmp_path, **kw), said


@pytest.fixture(autouse=True)
def clean_env(ops_env):
    for var in ("OPS_AGENT_MODEL", "OPS_AGENT_BASE_URL", "OPS_AGENT_API_KEY", "OLLAMA_API_BASE"):
        ops_env.delenv(var)


def test_explicit_openai_compatible_server_is_probed_and_used(monkeypatch, tmp_path, ops_env):
    with fake_server({"/v1/models": {"data": []}}) as base:
        ops_env.setenv("OPS_AGENT_MODEL", "openai/local")
        ops_env.setenv("OPS_AGENT_BASE_URL", f"{base}/v1")
        ctx, _ = choose(monkeypatch, tmp_path)
        with ctx as choice:
            assert (choice.source, choice.name, choice.endpoint) == (
                "OPS_AGENT_MODEL", "openai/local", f"{base}/v1")  # fmt: skip
            assert choice.model.model == "openai/local"


def test_ollama_with_the_default_tag_is_picked(monkeypatch, tmp_path, ops_env):
    tags = {"models": [{"name": "qwen3:4b-instruct"}]}
    with fake_server({"/api/tags": tags}) as base:
        ops_env.setenv("OLLAMA_API_BASE", base)
        ctx, _ = choose(monkeypatch, tmp_path)
        with ctx as choice:
            assert choice.source == "ollama" and choice.name == "ollama_chat/qwen3:4b-instruct"
            assert f"Ollama answered at {base}" in choice.reason


def test_ollama_without_the_tag_falls_back_to_the_embedded_model_and_says_why(
    monkeypatch, tmp_path, ops_env
):
    seen = {}

    @contextlib.contextmanager
    def fake_embedded(say, log_dir, why):
        seen["why"] = why
        yield ModelChoice(model="x", name="embedded", source="embedded", reason=why)

    monkeypatch.setattr(selection, "embedded_model", fake_embedded)
    with fake_server({"/api/tags": {"models": [{"name": "llama3:8b"}]}}) as base:
        ops_env.setenv("OLLAMA_API_BASE", base)
        ctx, _ = choose(monkeypatch, tmp_path)
        with ctx as choice:
            assert choice.source == "embedded"
    assert seen["why"] == f"Ollama at {base} answered but has no qwen3:4b-instruct (ollama pull it)"


def test_recording_wraps_the_chosen_model(monkeypatch, tmp_path, ops_env):
    with fake_server({"/v1/models": {"data": []}}) as base:
        ops_env.setenv("OPS_AGENT_BASE_URL", f"{base}/v1")
        ctx, _ = choose(monkeypatch, tmp_path, "openai/local", record=tmp_path / "rec.jsonl")
        with ctx as choice:
            assert isinstance(choice.model, RecordingLlm)
            assert choice.model.inner.model == "openai/local"
            assert "recording every request" in choice.reason


def test_unreachable_ollama_is_infrastructure(monkeypatch, tmp_path, ops_env):
    ops_env.setenv("OLLAMA_API_BASE", "http://127.0.0.1:9")
    ctx, _ = choose(monkeypatch, tmp_path, "ollama_chat/qwen3:4b-instruct")
    with pytest.raises(ModelUnavailable, match="Ollama at http://127.0.0.1:9 does not answer"):
        ctx.__enter__()


@pytest.mark.e2e  # llama.cpp's real server, given a file it cannot load
def test_an_embedded_server_that_cannot_start_is_reported_and_leaves_nothing(tmp_path):
    server = EmbeddedServer(Served(tmp_path / "missing.gguf", "missing"), tmp_path / "server.log")
    with pytest.raises(ModelUnavailable, match="could not load missing.gguf"):
        server.start(timeout_s=60)
    assert not server.alive()
