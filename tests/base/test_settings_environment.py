"""How the settings read the environment (`ops_copilot.settings`, `ops_eval.base.settings`):
each field from the one variable it names, exactly as spelled, empty meaning unset, surrounding
spaces dropped, keyword arguments winning, and a mapping read alone. pydantic-settings did this
until the settings read the variables themselves (every CLI start paid for its import); these
pin what it did, so the reader cannot drift."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from ops_copilot.settings import Settings
from ops_eval.base.settings import EvalSettings


def test_each_field_is_read_from_its_variable_exactly_as_spelled(monkeypatch):
    monkeypatch.setenv("OPS_AGENT_MODEL", "openai/qwen3")
    monkeypatch.setenv("ops_agent_base_url", "http://lower.case/v1")  # not OPS_AGENT_BASE_URL
    monkeypatch.setenv("agent_api_key", "by-field-name")  # a field's name is no variable
    monkeypatch.delenv("OPS_AGENT_BASE_URL", raising=False)
    monkeypatch.delenv("OPS_AGENT_API_KEY", raising=False)
    read = Settings()
    assert (read.agent_model, read.agent_base_url, read.agent_api_key) == (
        "openai/qwen3",
        None,
        None,
    )


def test_empty_is_unset_and_surrounding_spaces_are_dropped(monkeypatch):
    monkeypatch.setenv("OPS_AGENT_MODEL", " \t ")
    monkeypatch.setenv("OPS_AGENT_BASE_URL", "  http://127.0.0.1:9/v1\n")
    monkeypatch.setenv("OPS_SEED_DIR", "")
    read = Settings()
    assert read.agent_model is None and read.seed_dir is None
    assert read.agent_base_url == "http://127.0.0.1:9/v1"


def test_a_subclass_reads_its_own_variables_typed(monkeypatch, tmp_path):
    monkeypatch.setenv("OPS_EVAL_CACHE", str(tmp_path))
    monkeypatch.setenv("OPS_LEDGER_KEY", "k" * 16)
    monkeypatch.setenv("OPS_SKIP_EMBEDDED_TEST", "yes")  # only "1" skips
    monkeypatch.setenv("OPS_WRITES_DISABLED", "on")
    read = EvalSettings()
    assert read.cache_dir == tmp_path and isinstance(read.eval_cache, Path)
    assert isinstance(read.ledger_key, SecretStr) and read.ledger_key.get_secret_value() == "k" * 16
    assert read.skip_embedded_test is False and read.writes_disabled is True


def test_a_keyword_argument_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("OPS_AGENT_MODEL", "from-the-environment")
    assert Settings(OPS_AGENT_MODEL="given").agent_model == "given"
    assert Settings(agent_model="by-field-name").agent_model == "from-the-environment"


def test_a_mapping_is_read_alone(monkeypatch):
    monkeypatch.setenv("OPS_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    read = EvalSettings.from_env({"OPS_AGENT_MODEL": "m", "OPS_RUNS_DIR": "/tmp/r", "OTHER": "x"})
    assert (read.agent_model, read.agent_base_url, read.runs_dir) == ("m", None, Path("/tmp/r"))
    assert isinstance(read, EvalSettings)


def test_a_value_that_is_not_text_names_its_variable(monkeypatch):
    monkeypatch.setenv("OPS_AGENT_MODEL", "a\udcff")  # a byte that is not UTF-8
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert caught.value.errors()[0]["loc"] == ("OPS_AGENT_MODEL",)
