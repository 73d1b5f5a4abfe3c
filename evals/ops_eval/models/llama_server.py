"""The embedded model server's process: llama.cpp's own HTTP server, from the prebuilt
`xllamacpp` wheel, serving one GGUF on loopback until it is told to stop.

    python -m ops_eval.models.llama_server --model FILE.gguf --alias NAME [--template FILE]
        [--parallel N] [--context-per-slot N] [--threads N]

It binds a free port itself (port 0) and prints one JSON line on stdout once the model is loaded
and the server listens -- `{"listening": "http://127.0.0.1:PORT"}` -- or `{"error": "..."}` and
exit code 2 when the model cannot be loaded. SIGTERM or SIGINT stop it. Everything llama.cpp
logs goes to stderr, which the parent keeps in a log file.

It runs in a process of its own so that the harness never shares its threads or memory with the
model, and so that a crash or `kill -9` of either side cannot leave the other in a bad state:
the parent's death sends this process SIGTERM (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path

THREADS_HTTP = 4  # more than the slots: a probe or /props is answered while slots are busy


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ops_eval.models.llama_server")
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--template", type=Path, help="a chat template for the GGUF's")
    parser.add_argument("--parallel", type=int, default=1, help="slots: conversations at once")
    parser.add_argument("--context-per-slot", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=max(1, os.cpu_count() or 1))
    return parser


def _say(**line: str) -> None:
    print(json.dumps(line), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = args.alias
    # llama.cpp caps each slot at the model's training context (and says so in its log).
    params.n_ctx = args.context_per_slot * args.parallel
    params.n_parallel = args.parallel
    params.cont_batching = True
    params.use_jinja = True  # the chat template renders tools and parses the model's tool calls
    if args.template is not None:
        params.chat_template = args.template.read_text(encoding="utf-8")
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.n_threads_http = THREADS_HTTP
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the server when it binds (no race with others)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # the model did not load (llama.cpp's log says why)
        _say(error=str(exc))
        return 2
    _say(listening=server.listening_address)
    while not stop.wait(1.0):
        pass
    del server  # llama.cpp stops its slots and its listener
    return 0


if __name__ == "__main__":
    sys.exit(main())
