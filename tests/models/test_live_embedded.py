"""The real live path, end to end: the embedded llama.cpp server, LiteLLM, the real agent.

Slow (a real model answers), and never skipped silently: only OPS_SKIP_EMBEDDED_TEST=1 skips
these, and the skip says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops_eval.base.settings import current
from processes import TAG, llama_servers, new_tag
from recording_proxy import recording_proxy
from support import REPO

pytestmark = pytest.mark.e2e  # a real llama.cpp server answers

SKIP = current().skip_embedded_test
skip_unless_embedded = pytest.mark.skipif(
    SKIP, reason="OPS_SKIP_EMBEDDED_TEST=1: the embedded llama.cpp end-to-end test was skipped"
)


@skip_unless_embedded
def test_embedded_model_runs_a_case_end_to_end(tmp_path):
    record_path = tmp_path / "run.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPS_AGENT_")}
    env["OLLAMA_API_BASE"] = "http://127.0.0.1:9"  # an Ollama on this machine must not be picked
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    ops_eval = Path(sys.executable).with_name("ops-eval")
    env[TAG] = tag = new_tag()  # its server told apart from any other on this machine
    before = llama_servers(tag)
    proc = subprocess.run(
        [str(ops_eval), "run", "--cases", "service-status-inventory", "--output", str(record_path)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "far too small to pass the gate" in proc.stdout
    record = json.loads(record_path.read_text())
    assert record["model"]["source"] == "embedded"
    (trial,) = record["trials"]
    assert trial["status"] in ("passed", "failed"), trial.get("error")
    (turn,) = trial["turns"]
    assert turn["prompt_tokens"] > 0 and turn["output_tokens"] > 0  # a real model answered
    assert turn["calls"] and all(c["result"] for c in turn["calls"])  # it used its tools
    from ops_eval.scorers import registered

    assert set(trial["scores"]) == set(registered())  # every scorer gave a verdict or n/a
    assert llama_servers(tag) <= before, "the embedded server outlived the run"


def same_client(model, twin) -> bool:
    """Whether two LiteLlm models ask alike (client class, every argument but the endpoint):
    the one a choice holds, and the one a test sends through a proxy."""

    def asked(m):
        args = {k: v for k, v in m._additional_args.items() if k not in ("api_base", "llm_client")}
        return m.model, type(m.llm_client).__name__, args

    return asked(model) == asked(twin)


@skip_unless_embedded
def test_the_embedded_server_receives_every_tool_and_answers_with_tool_calls(
    tmp_path, embedded_server
):
    """Captured between LiteLLM and llama.cpp's server: every declared tool in each request, no
    `tool_choice`; the request that opens the turn constrained to one call of those tools
    (`opening_call`), the later ones as LiteLLM makes them; a tool call back, and the next
    request carrying its result, answered."""
    from ops_copilot.definition import tool_specs
    from ops_eval import RunOptions, execute
    from ops_eval.models.embedded import client, default_served
    from ops_eval.models.opening_call import RESPONSE_FORMAT_NAME
    from ops_eval.models.stand_ins import fixed_model

    choice = embedded_server.choice
    with recording_proxy(choice.endpoint) as (proxy, exchanges):
        model = client(default_served(), proxy)
        assert same_client(choice.model, model)  # the choice's own client, at the proxy
        chooser = fixed_model(model, choice.name, "embedded, through a proxy")
        with open(os.devnull, "w") as null:
            _, record, _ = execute(
                RunOptions(cases=["list-skills"], output=tmp_path / "run.json", timeout_s=120),
                chooser=chooser, out=null, err=null,
            )  # fmt: skip
    chats = [x for x in exchanges if x["path"].endswith("/chat/completions")]
    first, *later = [x["request"] for x in chats]
    assert {t["function"]["name"] for t in first["tools"]} == set(tool_specs())
    assert all("description" in t["function"] for t in first["tools"])
    assert all("tool_choice" not in r for r in (first, *later))
    constraint = first["response_format"]["json_schema"]
    assert constraint["name"] == RESPONSE_FORMAT_NAME
    assert {o["properties"]["name"]["const"] for o in constraint["schema"]["anyOf"]} == set(
        tool_specs()
    )
    assert later and all("response_format" not in r for r in later)
    assert chats[0]["response"]["usage"]["prompt_tokens"] > 1000  # the declarations were read
    with_results = [r for r in later if any(m["role"] == "tool" for m in r["messages"])]
    assert with_results, "no request carried a tool result back to the model"
    (trial,) = record.trials
    (turn,) = trial.turns
    assert turn.calls and turn.calls[0].name in tool_specs() and turn.calls[0].result
