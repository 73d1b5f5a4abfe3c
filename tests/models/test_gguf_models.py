"""Any GGUF on disk is a model: `--model gguf:PATH` (or OPS_AGENT_MODEL, or OPS_JUDGE_MODEL)
serves that file on llama.cpp's server with its own chat template and native tool calling.

A file that is missing, not a file, not GGUF, that llama.cpp cannot load, or whose template
cannot call tools is one line and exit 2 -- checked before anything runs where the file alone
says so, and by the server's own reading of the template otherwise. The real-server tests use
the embedded SmolLM2: as shipped (its template has no tools: refused), and copied with a
tool-calling template written into it (served natively: the agent's tools reach it, no
response_format is added, and a trial plays). Only OPS_SKIP_EMBEDDED_TEST=1 skips those.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_live_embedded import same_client

from ops_eval.base.exits import OpsEvalError
from ops_eval.base.settings import current
from ops_eval.cli import main
from recording_proxy import recording_proxy

embedded_tier = pytest.mark.skipif(
    current().skip_embedded_test,
    reason="OPS_SKIP_EMBEDDED_TEST=1: the gguf:PATH tests with a real server were skipped",
)


@pytest.fixture(autouse=True)
def _runs_here(ops_env, tmp_path):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(["run", "--cases", "list-skills", *argv])
    out = capsys.readouterr()
    return code, out.err


def recorded(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "runs").glob("*.json"))


def not_gguf(tmp_path: Path) -> Path:
    path = tmp_path / "weights.gguf"
    path.write_text("not weights at all")
    return path


def bad_gguf(tmp_path: Path) -> Path:
    path = tmp_path / "cut.gguf"
    path.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\xff" * 64)  # the magic, then nonsense
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: str(p / "nope.gguf"), "no such file"),
        (str, "not a file"),
        (lambda p: str(not_gguf(p)), "not a GGUF file (it does not start with b'GGUF')"),
        (lambda p: "", "needs a file (gguf:PATH)"),
    ],
)
def test_a_file_that_is_no_gguf_is_one_line_and_exit_2(tmp_path, capsys, make, said):
    code, err = run_cli(capsys, "--model", f"gguf:{make(tmp_path)}")
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith("error: --model: gguf:") and line.endswith(said), line
    assert recorded(tmp_path) == []  # nothing was recorded


def test_the_judges_gguf_is_checked_alike(ops_env, tmp_path):
    from ops_eval.judging.setup import configured

    ops_env.setenv("OPS_JUDGE_MODEL", f"gguf:{not_gguf(tmp_path)}")
    with pytest.raises(OpsEvalError, match="OPS_JUDGE_MODEL: gguf:.*not a GGUF file") as caught:
        configured()
    assert caught.value.code == 2


@pytest.mark.e2e
@embedded_tier
def test_a_gguf_llama_cpp_cannot_load_is_bad_input(tmp_path, capsys):
    from ops_eval.models import local_deps

    local_deps.ensure(print)
    code, err = run_cli(capsys, "--model", f"gguf:{bad_gguf(tmp_path)}")
    assert code == 2, err
    last = err.strip().splitlines()[-1]  # after what the server's start said, one error line
    assert last.startswith(f"error: --model: gguf:{tmp_path / 'cut.gguf'}: llama.cpp could not")
    assert "Traceback" not in err and recorded(tmp_path) == []


@pytest.mark.e2e
@embedded_tier
def test_a_gguf_whose_template_cannot_call_tools_is_refused(capsys, tmp_path):
    """SmolLM2 as shipped, copied here so that its server is told apart from any other."""
    import shutil

    from ops_eval.models import local_deps
    from ops_eval.models.embedded import embedded_gguf

    local_deps.ensure(print)
    mine = tmp_path / "smollm2-as-shipped.gguf"
    shutil.copy(embedded_gguf(), mine)
    code, err = run_cli(capsys, "--model", f"gguf:{mine}")
    assert code == 2, err
    assert err.strip().splitlines()[-1] == (
        f"error: --model: gguf:{mine}: its chat template cannot call tools "
        "(llama.cpp's server reports no tool support for it); the agent needs a tool-calling "
        "model"
    )
    assert not servers_of(mine), "the server outlived the refusal"
    assert recorded(tmp_path) == []


@pytest.mark.e2e
@embedded_tier
def test_a_gguf_with_a_tool_template_is_served_natively(tmp_path):
    """SmolLM2 with our tool template written into its metadata: a GGUF whose own template
    calls tools. The request is LiteLLM's alone (no response_format), the tools reach the
    server, and the record names the file and its digest."""
    from ops_copilot.definition import tool_specs
    from ops_eval import RunOptions, execute
    from ops_eval.models import local_deps
    from ops_eval.models.embedded import (
        TOOL_TEMPLATE,
        Served,
        client,
        embedded_gguf,
        gguf_alias,
        gguf_model,
    )
    from ops_eval.models.stand_ins import fixed_model

    local_deps.ensure(print)
    copy = tmp_path / "smollm2-tools.gguf"
    subprocess.run(
        [sys.executable, "-m", "gguf.scripts.gguf_new_metadata", str(embedded_gguf()), str(copy),
         "--chat-template-file", str(TOOL_TEMPLATE), "--force"],
        check=True, capture_output=True,
    )  # fmt: skip
    with gguf_model(f"gguf:{copy}", "--model", print, tmp_path) as choice:
        assert choice.name.startswith("gguf:smollm2-tools.gguf@sha256:")
        assert choice.caveat is None and choice.source == "--model"
        # SmolLM2, unconstrained, writes to its context: the proxy bounds the test's time
        with recording_proxy(choice.endpoint, reply_cap=64) as (proxy, exchanges):
            model = client(Served(copy, gguf_alias(copy)), proxy)
            assert same_client(choice.model, model)  # the choice's own client, at the proxy
            options = RunOptions(cases=["list-skills"], output=tmp_path / "run.json", timeout_s=300)
            _, record, _ = execute(options, chooser=fixed_model(model, choice.name, "a test"))
    chats = [x for x in exchanges if x["path"].endswith("/chat/completions")]
    assert chats, "no request reached the server"
    first = chats[0]["request"]
    assert "response_format" not in first and "tool_choice" not in first
    assert {t["function"]["name"] for t in first["tools"]} == set(tool_specs())
    assert chats[0]["response"]["usage"]["prompt_tokens"] > 1000  # the template rendered them
    (trial,) = record.trials
    assert trial.status in ("passed", "failed"), trial.error
    assert record.model.name == choice.name


def servers_of(gguf: Path) -> set[int]:
    """The llama.cpp servers running now that serve `gguf`."""
    found = subprocess.run(["pgrep", "-f", f"llama_server --model {gguf}"], capture_output=True)
    return {int(pid) for pid in found.stdout.split()}
