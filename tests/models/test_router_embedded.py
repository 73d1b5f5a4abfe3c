"""A router over two real embedded llama.cpp servers, and one of them SIGKILLed mid-run.

Two llama.cpp servers (the embedded SmolLM2, a thread per core each) serve one `router:FILE`;
`ops-eval run --concurrency 2` plays two short cases of the ops set at once, and the first
server to answer a call (its log says so) is killed with SIGKILL at once, in the middle of a
conversation (the first reply of a turn is a tool call, whose result goes back to the model).
Every planned trial must be in the record, none errored (the conversation went on at the
survivor, after a call to the dead server failed and was retried), every call after the kill is
credited to the survivor, both servers answered, and no trial passes unless its scorers passed
it.

What keeps it short (about 30 s of run on 2 cores, from 65 s) without proving less: the first
server to answer is killed, rather than the first once both had answered; two trials rather
than four; and a thread per core for each server, so the survivor, which reads the
tool declarations (about 2,400 tokens) anew for the conversation it takes over, has the machine
to itself.

The model-call limit is lowered for this test, so a trial that runs on ends as the agent's own
failure (never an error and never a pass) and the test stays under a minute or two. Slow
anyway, so OPS_SKIP_EMBEDDED_TEST=1 skips it, saying so.
"""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from ops_eval.base.settings import current

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        current().skip_embedded_test,
        reason="OPS_SKIP_EMBEDDED_TEST=1: the two-llama-server router test was skipped",
    ),
]

CASES = ["list-skills", "service-status-inventory"]
REPEATS = 1
MODEL_CALL_LIMIT = 4  # per trial; see the module docstring
ANSWERED = re.compile(rb"slot +release: .*stop processing")  # llama.cpp's log, one per request


class Llama:
    """One embedded llama.cpp server on a loopback port of its own, its log in a file."""

    def __init__(self, name: str, log: Path) -> None:
        from ops_eval.models.embedded import EmbeddedServer, default_served

        self.name, self.log = name, log
        self.server = EmbeddedServer(default_served(), log)
        self.model = f"openai/{self.server.served.alias}"

    def start(self) -> None:
        self.server.start()
        self.base = self.server.base_url

    @property
    def proc(self):
        return self.server.proc

    def answered(self) -> int:
        """Chat completions it has answered, from its log (no record needed)."""
        return len(ANSWERED.findall(self.log.read_bytes()))

    def stop(self) -> None:
        self.server.stop()


def routed_like_the_embedded_default(spec, router):
    """The router's model, asking each server what the embedded default is asked (each user
    turn opened with a tool call, replies capped): SmolLM2 then makes several model calls per
    trial, which the kill can fall between. The Router, its client and its model are the real
    ones (`ops_eval.models.router`)."""
    from ops_eval.models import router as routing
    from ops_eval.models.embedded import EMBEDDED_MAX_TOKENS
    from ops_eval.models.opening_call import opening_format

    class OpeningRouterClient(routing._client_class()):
        async def acompletion(self, model, messages, tools, **kwargs):
            opening = opening_format(messages, tools)
            if kwargs.get("response_format") is None and opening is not None:
                kwargs["response_format"] = opening
            return await super().acompletion(model, messages, tools, **kwargs)

    client = OpeningRouterClient(router, spec.model_name)
    return routing._llm_class()(
        model=spec.servers[0].model, llm_client=client, max_tokens=EMBEDDED_MAX_TOKENS
    )


def test_killing_one_of_two_llama_servers_mid_run_loses_no_trial(tmp_path, monkeypatch, ops_env):
    from ops_eval import load_record
    from ops_eval.cli import main
    from ops_eval.models import local_deps

    local_deps.ensure(print)
    import litellm

    failed: Counter[str] = Counter()  # calls that failed on a server, as LiteLLM reports them

    def count(kwargs: dict, *_: object) -> None:
        failed[((kwargs.get("litellm_params") or {}).get("model_info") or {}).get("id", "?")] += 1

    monkeypatch.setattr(litellm, "failure_callback", [*litellm.failure_callback, count])
    monkeypatch.setattr("ops_eval.models.router.routed_llm", routed_like_the_embedded_default)
    ops_env.setenv("OPS_AGENT_TEMPERATURE", "0")
    monkeypatch.setattr("ops_eval.playing.play.MAX_MODEL_CALLS", MODEL_CALL_LIMIT)
    servers = [Llama(name, tmp_path / f"{name}.log") for name in ("left", "right")]
    killed: dict[str, object] = {}
    done = threading.Event()

    def kill_the_first_to_answer() -> None:
        """SIGKILL the first server to answer a call: its conversation has more calls to make
        (the first reply of a turn is a tool call, whose result goes back to the model)."""
        while not done.is_set():
            for victim, other in (servers, servers[::-1]):
                if victim.answered() >= 1:
                    victim.proc.send_signal(signal.SIGKILL)
                    victim.proc.wait()
                    killed.update(server=victim, answers=victim.answered(), other=other.answered())
                    return
            time.sleep(0.05)

    try:
        for s in servers:
            s.start()
        config = tmp_path / "router.yaml"
        config.write_text(
            json.dumps({
                "model_list": [
                    {"model_name": "smollm2", "model_info": {"id": s.name},
                     "litellm_params": {"model": s.model, "api_base": s.base, "api_key": "x"}}
                    for s in servers
                ],
                "router_settings": {"routing_strategy": "least-busy"},
            })
        )  # fmt: skip
        watcher = threading.Thread(target=kill_the_first_to_answer, daemon=True)
        watcher.start()
        out = tmp_path / "run.json"
        started = time.monotonic()
        code = main(
            ["run", "--model", f"router:{config}", "--cases", ",".join(CASES),
             "--repeats", str(REPEATS), "--concurrency", "2", "--timeout", "600",
             "--output", str(out)]
        )  # fmt: skip
        wall = time.monotonic() - started
        done.set()
        watcher.join(timeout=5)
    finally:
        done.set()
        for s in servers:
            s.stop()
    assert killed, "the run ended before a server had answered a call: none was killed"
    victim = killed["server"]
    survivor = next(s for s in servers if s is not victim)
    record = load_record(out)
    counts = Counter(s for t in record.trials for u in t.turns for s in u.servers or [])
    calls = sum(u.model_calls or 0 for t in record.trials for u in t.turns)
    print(
        f"\nper-server model calls: {victim.name} (SIGKILLed after its answer "
        f"#{killed['answers']}) {counts[victim.name]}, {survivor.name} {counts[survivor.name]}; "
        f"{calls} model calls in {len(record.trials)} trials; after the kill the survivor "
        f"answered {survivor.answered() - killed['other']}; calls that failed on a server and "
        f"were retried: {dict(failed)}; exit {code}; "
        f"run wall time {wall:.1f} s"
    )
    assert code in (0, 1)  # a verdict: no case was left without a valid trial
    assert len(record.trials) == len(CASES) * REPEATS  # every planned trial is in the record
    assert [t.error for t in record.trials if t.status == "error"] == []  # none lost to the kill
    for t in record.trials:  # a pass only where every scorer passed it
        bad = [n for n, s in t.scores.items() if s.outcome in ("fail", "error")]
        assert (t.status == "passed") == (not bad), (t.case_id, t.status, bad)
    assert sum(counts.values()) == calls  # one server per model call
    assert set(counts) <= {victim.name, survivor.name}
    # the victim is credited only with answers it gave before it died: every call after the
    # kill went to the survivor, which is credited with exactly what its log says it answered.
    # An answer the victim logged may die with it before it reaches the client (the SIGKILL
    # lands between the two: seen once, "answer #1" logged and 0 credited), so it may be
    # credited with none; that it took part in the run is its failed calls, retried, below.
    assert counts[victim.name] <= killed["answers"]
    assert counts[survivor.name] == survivor.answered() >= 1
    assert survivor.answered() > killed["other"]  # calls went on after the kill
    assert failed[victim.name] >= 1 and not failed[survivor.name]  # the kill was met, retried
    assert not any(s.server.alive() for s in servers), "a llama server outlived the test"
